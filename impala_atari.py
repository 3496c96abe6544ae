"""IMPALA (V-trace) with Cleanba's actor-learner split, on any number of devices and machines (JAX).

    python impala_atari.py --env-id Breakout-v5                           # 1 device
    python impala_atari.py --actor-device-ids 0 --learner-device-ids 1 2  # 3 devices
    srun python impala_atari.py --distributed ...                         # several machines

Actor threads step their own envpool_core pools; one learner is data-parallel over the learner
devices of every process. With a fixed seed every split of the same global configuration gives
bitwise the same run (which splits, and why: docs/distributed.md). Unlike Cleanba's
cleanba_impala.py, a time-limit truncation bootstraps from V(final observation), and the step
whose action the engine ignores (on an episode's final observation) is masked out of the loss.
"""

import atexit
import hashlib
import itertools
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

# GPU scatter-adds and some cuDNN algorithms are not deterministic unless asked; CPU always is.
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_gpu_deterministic_ops=true"

import flax
import flax.linen as nn
import imageio
import jax
import jax.numpy as jnp
import numpy as np
import optax
import tyro
from flax.linen.initializers import constant, orthogonal
from flax.training.train_state import TrainState
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import envpool_core as envpool


@dataclass
class Args:
    exp_name: str = os.path.basename(__file__)[: -len(".py")]
    """the name of this experiment"""
    seed: int = 1
    """seed of the experiment (env i is seeded with seed + i)"""
    track: bool = False
    """if toggled, this experiment will be tracked with Weights and Biases (pip install wandb)"""
    wandb_project_name: str = "cleanRL"
    """the wandb's project name"""
    wandb_entity: str | None = None
    """the entity (team) of wandb's project"""
    capture_video: bool = False
    """whether to write MP4s of the evaluation episodes to `videos/{run_name}/` (engine's render)"""
    save_model: bool = False
    """whether to save the model to `runs/{run_name}/{exp_name}.cleanrl_model` and evaluate it"""
    eval_checkpoint: str | None = None
    """if set, no training: evaluate this checkpoint on its task (env id and time limit as saved)"""
    eval_episodes: int = 10
    """the number of episodes of an evaluation (one per env, played in parallel)"""
    results_file: str | None = None
    """write the per-update metrics and the final parameters to this .npz (process 0)"""

    # Algorithm specific arguments
    env_id: str = "Breakout-v5"
    """the id of the environment"""
    total_timesteps: int = 50000000
    """total timesteps of the experiments"""
    learning_rate: float = 6e-4
    """the learning rate of the optimizer"""
    local_num_envs: int = 64
    """the number of envs each actor thread steps"""
    async_batch_size: int = 0
    """envs returned by each recv(): 0 (all of the pool's envs) is sync mode, fewer is async mode"""
    num_actor_threads: int = 2
    """the number of actor threads per actor device"""
    num_steps: int = 20
    """the number of steps to run in each environment per policy rollout"""
    max_episode_steps: int | None = None
    """the time limit in agent steps (None: the task's, 27000 on Atari, 1000 on most of MuJoCo)"""
    anneal_lr: bool = True
    """Toggle learning rate annealing for policy and value networks"""
    gamma: float = 0.99
    """the discount factor gamma"""
    num_minibatches: int = 4
    """the number of mini-batches"""
    vtrace_lambda: float = 1.0
    """the lambda of V-trace (mixes in the value of the next obs)"""
    clip_rho_threshold: float = 1.0
    """rho-bar: the clip of the importance ratios of the V-trace targets"""
    clip_c_threshold: float = 1.0
    """c-bar: the clip of the importance ratios of the V-trace traces"""
    clip_pg_rho_threshold: float = 1.0
    """the clip of the importance ratios of the policy-gradient advantages"""
    ent_coef: float = 0.01
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 40.0
    """the maximum norm for the gradient clipping"""
    channels: tuple[int, ...] = (16, 32, 32)
    """the channels of the IMPALA ResNet"""
    hiddens: tuple[int, ...] = (256,)
    """the hidden sizes of the MLP after the ResNet"""

    actor_device_ids: list[int] = field(default_factory=lambda: [0])
    """indices into jax.local_devices() of the actor devices"""
    learner_device_ids: list[int] = field(default_factory=lambda: [0])
    """indices into jax.local_devices() of the learner devices"""
    num_grad_shards: int = 0
    """groups of envs whose gradients are computed apart, then reduced in a fixed order
    (0 = one per learner device); keep it fixed to compare hardware splits"""
    learner_loop: Literal["auto", "python", "compiled"] = "auto"
    """the learner's loop: one compiled program, or Python over compiled steps (auto: on CPU)"""
    concurrency: bool = True
    """actors act with params one update old while the learner trains, else the two alternate
    (Cleanba's default: on in IMPALA, off in PPO)"""
    distributed: bool = False
    """call jax.distributed.initialize (from the three flags below, or from SLURM if unset)"""
    coordinator_address: str | None = None
    """host:port of process 0"""
    num_processes: int | None = None
    """the number of processes"""
    process_id: int | None = None
    """the index of this process"""


def make_env(env_id, num_envs, batch_size, seed, max_episode_steps=None):
    options = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    if len(envpool.make_spec(env_id).observation_space.shape) == 3:
        # Machado et al. 2018's protocol, as Cleanba's current scripts (18 actions, not make_spec's)
        options.update(episodic_life=False, repeat_action_probability=0.25, noop_max=1,
                       full_action_space=True, reward_clip=True)
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, batch_size=batch_size,
                        seed=seed, **options)


def layer_init(features, std=2**0.5, bias_const=0.0):
    return nn.Dense(features, kernel_init=orthogonal(std), bias_init=constant(bias_const))


class ResidualBlock(nn.Module):
    channels: int

    @nn.compact
    def __call__(self, x):
        y = nn.Conv(self.channels, kernel_size=(3, 3))(nn.relu(x))
        y = nn.Conv(self.channels, kernel_size=(3, 3))(nn.relu(y))
        return x + y


class ConvSequence(nn.Module):
    channels: int

    @nn.compact
    def __call__(self, x):
        x = nn.Conv(self.channels, kernel_size=(3, 3))(x)
        x = nn.max_pool(x, window_shape=(3, 3), strides=(2, 2), padding="SAME")
        return ResidualBlock(self.channels)(ResidualBlock(self.channels)(x))


class Agent(nn.Module):
    """Image observations get the IMPALA ResNet, then the MLP; vectors only the MLP."""

    action_dim: int
    channels: tuple[int, ...] = (16, 32, 32)
    hiddens: tuple[int, ...] = (256,)

    @nn.compact
    def __call__(self, x):
        if x.ndim == 4:  # channel-first uint8 frames
            x = jnp.transpose(x, (0, 2, 3, 1)) / 255.0
            for channels in self.channels:
                x = ConvSequence(channels)(x)
            x = nn.relu(x)
        x = x.reshape((x.shape[0], -1)).astype(jnp.float32)
        for hidden in self.hiddens:
            x = nn.relu(layer_init(hidden)(x))
        return layer_init(self.action_dim, std=0.01)(x), layer_init(1, std=1.0)(x)[:, 0]


def vtrace(values, next_values, rewards, discounts, continues, rhos, vtrace_lambda=1.0,
           clip_rho_threshold=1.0, clip_c_threshold=1.0, clip_pg_rho_threshold=1.0):
    """V-trace targets and policy-gradient advantages (Espeholt et al. 2018, eq. 1 and 4) over
    time-major [num_steps, ...] arrays. values = V(x_t), next_values = V(x_t+1), rhos =
    pi(a_t|x_t) / mu(a_t|x_t). `discounts` is gamma * (1 - terminated) of x_t+1: a truncated
    episode still bootstraps from the value of its final obs. `continues` is 0 where x_t+1 ends
    an episode (either way): the trace never crosses episodes."""
    clipped_rhos = jnp.minimum(clip_rho_threshold, rhos)
    clipped_cs = vtrace_lambda * jnp.minimum(clip_c_threshold, rhos)
    deltas = clipped_rhos * (rewards + discounts * next_values - values)

    def backward_step(error, step):
        delta, discount, episode_continues, trace_coef = step
        error = delta + discount * episode_continues * trace_coef * error
        return error, error

    _, errors = jax.lax.scan(backward_step, jnp.zeros_like(values[0]),
                             (deltas, discounts, continues, clipped_cs), reverse=True)
    targets = values + errors
    # Q(x_t, a_t) bootstraps from the next target in an episode, from V(x_t+1) at an end
    next_targets = jnp.concatenate([targets[1:], next_values[-1:]])
    q_values = rewards + discounts * (
        next_values + continues * vtrace_lambda * (next_targets - next_values))
    return targets, jnp.minimum(clip_pg_rho_threshold, rhos) * (q_values - values)


def sample_action(agent, params, obs, key, env_ids, steps):
    logits, _ = agent.apply(params, obs)
    # A key stream per global env: actions do not depend on which thread or process steps the
    # env, nor on the batch it arrives in.
    keys = jax.vmap(lambda env_id, step: jax.random.fold_in(jax.random.fold_in(key, env_id),
                                                            step))(env_ids, steps)
    uniform = jax.vmap(lambda env_key: jax.random.uniform(env_key, logits.shape[1:]))(keys)
    return jnp.argmax(logits - jnp.log(-jnp.log(uniform)), axis=1), logits  # Gumbel-max sampling


# ALGO LOGIC: the loss and the learner. Rollouts are time-major: [num_steps (+1: obs), envs, ...]
TIME_MAJOR = ("obs", "actions", "logits", "rewards", "terminations", "truncations", "masks")
EPISODE_SUMS = ("episode_return", "episode_length", "episode_count")
METRICS = ("loss", "policy_loss", "value_loss", "entropy")
BATCH_SPECS = {name: P(None, "learner") if name in TIME_MAJOR else P("learner")  # over learners
               for name in TIME_MAJOR + EPISODE_SUMS}


def impala_loss(agent, args, params, obs, actions, behaviour_logits, rewards, terminations,
                truncations, mask):
    """Summed (not averaged) over a shard's [num_steps, envs] sequences, as in IMPALA, as dot
    products with the mask, which XLA compiles alike on every split (a .sum() it may not)."""
    logits, values = agent.apply(params, obs.reshape(-1, *obs.shape[2:]))
    logits, values = logits.reshape(*obs.shape[:2], -1)[:-1], values.reshape(obs.shape[:2])
    logprobs = jax.nn.log_softmax(logits)
    logprob = jnp.take_along_axis(logprobs, actions[..., None], -1)[..., 0]
    behaviour_logprob = jnp.take_along_axis(jax.nn.log_softmax(behaviour_logits),
                                            actions[..., None], -1)[..., 0]

    # CALCULATE V-TRACE TARGETS
    targets, pg_advantages = jax.lax.stop_gradient(vtrace(
        values[:-1], values[1:], rewards, args.gamma * (1.0 - terminations),
        1.0 - jnp.maximum(terminations, truncations), jnp.exp(logprob - behaviour_logprob),
        args.vtrace_lambda, args.clip_rho_threshold, args.clip_c_threshold,
        args.clip_pg_rho_threshold))

    # CALCULATE ACTOR LOSS
    pg_loss = -jnp.vdot(logprob * pg_advantages, mask)
    entropy = jnp.vdot(-(jnp.exp(logprobs) * logprobs).sum(-1), mask)

    # CALCULATE VALUE LOSS
    v_loss = 0.5 * jnp.vdot((targets - values[:-1]) ** 2, mask)

    loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
    return loss, (pg_loss, v_loss, entropy, mask.sum())


def make_learner_update(agent, args, mesh, shards_per_learner):
    """update(state, batch) -> (state, metrics): on CPU a Python loop over compiled steps (XLA:CPU
    runs a conv's gradient 15-30x slower in a loop, jax-ml/jax#12868), else one compiled program."""
    compiled = {"auto": jax.default_backend() != "cpu", "compiled": True}.get(args.learner_loop)
    loss_and_grad = jax.value_and_grad(partial(impala_loss, agent, args), has_aux=True)
    shard_map = partial(jax.shard_map, mesh=mesh, check_vma=False)
    def on_learners(in_specs, out_specs):  # a compiled step, each learner device on its part,
        # done when it returns: past 32 queued, XLA:CPU may starve a collective of its threads
        def compile_step(step):  # compiled: inlined in the one program, split the same way
            step_on_learners = jax.jit(shard_map(step, in_specs=in_specs, out_specs=out_specs))
            return step if compiled else lambda *a: jax.block_until_ready(step_on_learners(*a))
        return compile_step

    def loop(step, state, length):  # -> (state, outputs stacked over the steps)
        if compiled:
            return jax.lax.scan(step, state, jnp.arange(length))
        outputs = []
        for i in range(length):
            state, output = step(state, i)
            outputs.append(output)
        return state, tuple(zip(*outputs, strict=True))

    @on_learners((P(None, "learner"), P(), P()), P(None, "learner"))
    def select(rollout, minibatch, shard):  # [steps, envs, ...] of one shard of a minibatch
        return tuple(x.reshape(x.shape[0], shards_per_learner, args.num_minibatches, -1,
                               *x.shape[2:])[:, shard, minibatch] for x in rollout)
    @on_learners((P(), P(None, "learner")), P("learner"))
    def shard_gradient(state, shard):  # one compiled step for every shard: the same bits
        (loss, aux), grads = loss_and_grad(state.params, *shard)
        return jax.tree.map(lambda x: x[None], (grads, (loss, *aux)))
    @on_learners((P(), P("learner")), (P(), P()))
    def apply_gradients(state, shards):
        # averaged in shard order: the same sums whatever the number of devices (unlike a pmean)
        grads, losses = jax.tree.map(lambda *x: jax.lax.all_gather(
            jnp.concatenate(x), "learner", tiled=True).mean(0), *shards)
        return state.apply_gradients(grads=grads), losses
    @on_learners((P(), P("learner")), P())
    def summarize(losses, episode_sums):  # losses: [metric, minibatch]
        *sums, num_samples = jnp.array(losses).sum(1)  # over minibatches (0 samples: all resets)
        metrics = dict(zip(METRICS, jnp.array(sums) / jnp.maximum(num_samples, 1), strict=True))
        return metrics | {name: jax.lax.all_gather(values, "learner", tiled=True).sum()  # every env
                          for name, values in episode_sums.items()}  # of every process

    def update(state, batch):
        rollout = tuple(batch[name] for name in TIME_MAJOR)
        def minibatch_step(state, minibatch):  # UPDATE NETWORK: the shards' gradients, averaged
            return apply_gradients(state, [shard_gradient(state, select(rollout, minibatch, shard))
                                           for shard in range(shards_per_learner)])
        state, losses = loop(minibatch_step, state, args.num_minibatches)
        return state, summarize(losses, {name: batch[name] for name in EPISODE_SUMS})

    return jax.jit(shard_map(update, in_specs=(P(), BATCH_SPECS), out_specs=(P(), P())),
                   donate_argnums=0) if compiled else update


def update_episode_stats(episode_return, reward, terminated, truncated, info):
    """Adds a step's rewards to the running returns; returns (env ids, returns, lengths) of the
    episodes that ended. On Atari an episode is a game, of unclipped rewards (info["reward"]), to
    game over (info["terminated"]) or a time limit, where CleanRL's EnvPool scripts went on."""
    env_id, game_over = info["env_id"], info.get("terminated", terminated).astype(bool) | truncated
    episode_return[env_id] += info.get("reward", reward)
    ended = env_id[game_over]
    finished = (ended, episode_return[ended].copy(), info["elapsed_step"][game_over])
    episode_return[ended] = 0.0
    return finished


@dataclass
class ActorContext:
    """What every actor thread gets from the main thread besides `args`."""
    act: Callable  # the jitted sample_action
    key: np.ndarray  # the root of every global env's action key stream
    num_updates: int
    learner_devices: list
    # per actor thread: (learner device index, first env, end env) of its envs that device gets
    slices: list[list[tuple[int, int, int]]]


def new_storage(envs, num_rows):
    """Row t of an env holds the action taken on obs_t, the reward and flags that came with obs_t,
    and the slot of obs_t and of its logits among those the rollout keeps on the device."""
    shape = (num_rows, envs.num_envs)
    floats = {n: np.zeros(shape, np.float32) for n in ("rewards", "terminations", "truncations")}
    return dict(actions=np.zeros(shape, np.int32), **floats, slots=np.zeros(shape, np.int32))


def store(storage, on_device, num_kept, rows, env_id, step):
    """Writes one recv() batch to the next row of each of its envs (rows: their counts, advanced
    here), its obs and logits after the num_kept on_device; returns the storage and the new count.
    The arrays double when an async env runs ahead."""
    obs, logits, *values = step
    if rows[env_id].max() >= len(storage["actions"]):
        storage = {name: np.concatenate([array, np.zeros_like(array)])
                   for name, array in storage.items()}
    for name, value in zip(storage, (*values, num_kept + np.arange(len(env_id))), strict=True):
        storage[name][rows[env_id], env_id] = value
    on_device.append((obs, logits))
    rows[env_id] += 1
    return storage, num_kept + len(env_id)


def transitions(storage, obs, logits, num_steps):
    """The rollout: transition t goes from row t to row t + 1. The action on an obs that ends an
    episode is ignored by the engine (its next obs is the reset): no loss on it."""
    acted, outcome, slots = slice(0, num_steps), slice(1, num_steps + 1), storage["slots"]
    return dict(obs=obs[slots[: num_steps + 1]], actions=storage["actions"][acted],
                logits=logits[slots[acted]], rewards=storage["rewards"][outcome],
                terminations=storage["terminations"][outcome],
                truncations=storage["truncations"][outcome],
                masks=1.0 - np.maximum(storage["terminations"][acted],
                                       storage["truncations"][acted]))


def carry_over(storage, obs, logits, rows, num_steps):
    """A new storage that starts with the rows collected past this rollout (row num_steps becomes
    row 0; the row counts drop by num_steps), and the obs and logits of those rows, and how many."""
    rows -= num_steps
    new = {name: np.roll(array, -num_steps, axis=0) for name, array in storage.items()}
    collected = np.arange(len(new["slots"]))[:, None] < rows  # [row, env]: the env has filled it
    kept = new["slots"][collected]
    new["slots"][collected] = np.arange(len(kept))
    return new, [(obs[kept], logits[kept])], len(kept)


def rollout(args, context, thread_id, env_offset, device, params_queue, rollout_queue):
    """Actor thread: steps the global envs env_offset ... env_offset + local_num_envs - 1 and
    hands each rollout of num_steps per env to the learner, already sliced per learner device."""
    try:
        num_envs, num_steps = args.local_num_envs, args.num_steps
        envs = make_env(args.env_id, num_envs, args.async_batch_size or num_envs,
                        args.seed + env_offset, args.max_episode_steps)
        key = jax.device_put(context.key, device)
        global_env_ids = np.arange(env_offset, env_offset + num_envs, dtype=np.int32)
        storage, on_device, num_kept = new_storage(envs, 2 * num_steps + 2), [], 0
        rows = np.zeros(num_envs, np.int64)
        agent_steps = np.zeros(num_envs, np.int64)  # the position in each env's key stream
        episode_return = np.zeros(num_envs)
        envs.async_reset()
        for update in range(1, context.num_updates + 1):
            update_start = time.time()
            # Cleanba's concurrency: rollout 2 starts at once, with params 0, so that the actors
            # act with params one update old (docs/distributed.md#concurrency).
            if not args.concurrency or update != 2:
                params = params_queue.get()
                jax.block_until_ready(params)  # in the jitted call it would stall every thread
            params_queue_get_time = time.time() - update_start
            inference_time = 0.0
            episode_sums = {name: np.zeros(num_envs, np.float32) for name in EPISODE_SUMS}
            episodes = []  # (row of the last obs, return, length) of each episode that ends

            # COLLECT TRAJECTORIES
            while rows.min() < num_steps + 1:  # row num_steps also starts the next rollout
                next_obs, reward, terminated, truncated, info = envs.recv()
                env_id = info["env_id"]

                # ALGO LOGIC: action logic
                start = time.time()
                obs = jax.device_put(next_obs, device)  # uploaded once: acted on, then kept
                action, logits = context.act(params, obs, key, global_env_ids[env_id],
                                             agent_steps[env_id].astype(np.uint32))
                action = np.asarray(action)
                inference_time += time.time() - start
                envs.send(action, env_id)
                storage, num_kept = store(storage, on_device, num_kept, rows, env_id,
                                          (obs, logits, action, reward, terminated, truncated))
                agent_steps[env_id] += 1

                # TRY NOT TO MODIFY: record rewards for plotting purposes (Atari: unclipped)
                ended, returns, lengths = update_episode_stats(episode_return, reward, terminated,
                                                               truncated, info)
                for name, value in zip(EPISODE_SUMS, (returns, lengths, 1), strict=True):
                    episode_sums[name][ended] += value
                episodes += zip(rows[ended] - 1, returns, lengths, strict=True)

            # HAND THE ROLLOUT TO THE LEARNER, sliced per learner device (device to device)
            obs, logits = map(jnp.concatenate, zip(*on_device, strict=True))  # all this rollout
            data = {**transitions(storage, obs, logits, num_steps), **episode_sums}
            sliced_rollout = [
                (learner_index, {name: jax.device_put(
                    array[:, start:end] if name in TIME_MAJOR else array[start:end],
                    context.learner_devices[learner_index]) for name, array in data.items()})
                for learner_index, start, end in context.slices[thread_id]]
            storage, on_device, num_kept = carry_over(storage, obs, logits, rows, num_steps)
            timings = dict(params_queue_get_time=params_queue_get_time,
                           rollout_time=time.time() - update_start - params_queue_get_time,
                           inference_time=inference_time)
            rollout_queue.put((sliced_rollout, timings, episodes))
    except BaseException as e:  # handed to the learner, which re-raises it
        rollout_queue.put(e)


def evaluate(act, env_id, num_episodes, seed, max_episode_steps=None, video_dir=None):
    """Plays an episode in each of num_episodes envs made as for training; returns each one's
    (return, length). With video_dir, writes each episode there as an MP4 of the engine's frames."""
    envs = make_env(env_id, num_episodes, num_episodes, seed, max_episode_steps)
    episode_return, results, videos = np.zeros(num_episodes), {}, {}
    if video_dir is not None:
        os.makedirs(video_dir, exist_ok=True)
        fps = envs.metadata["render_fps"]
        videos = {i: imageio.get_writer(f"{video_dir}/episode-{i}.mp4", fps=fps, macro_block_size=1)
                  for i in range(num_episodes)}
    next_obs, _ = envs.reset()
    while len(results) < num_episodes:
        for i, frame in zip(list(videos), envs.render(list(videos)) if videos else [], strict=True):
            videos[i].append_data(frame)
        next_obs, reward, terminated, truncated, info = envs.step(act(next_obs))
        for i, episodic_return, episodic_length in zip(*update_episode_stats(
                episode_return, reward, terminated, truncated, info), strict=True):
            results.setdefault(i, (float(episodic_return), int(episodic_length)))
            if i in videos:  # the env shows the episode's last frame until it resets next step
                videos[i].append_data(envs.render([i])[0])
                videos.pop(i).close()
    envs.close()
    return [results[i] for i in range(num_episodes)]


def evaluation_policy(agent, params, seed, num_envs):
    """act(observations) for evaluate(): actions sampled as the actors sample them, env i on its
    own key stream from seed, so that an evaluation plays the same episodes every time."""
    sample = jax.jit(partial(sample_action, agent))
    # Streams 0, 1 and 2 of the seed's key are the training's (parameters, learner, actors).
    key = jax.random.fold_in(jax.random.PRNGKey(seed), 3)
    env_ids = np.arange(num_envs, dtype=np.int32)
    steps = itertools.count()  # the position in every env's key stream: one per call

    def act(obs):
        step = np.full(num_envs, next(steps), np.uint32)
        return np.asarray(sample(params, obs, key, env_ids, step)[0])

    return act


def load_checkpoint(path):
    """The Args and the parameters saved by --save-model."""
    with open(path, "rb") as f:
        checkpoint = flax.serialization.msgpack_restore(f.read())
    saved = json.loads(checkpoint["args"])
    checkpoint_args = Args(**{name: value for name, value in saved.items()
                              if name in Args.__dataclass_fields__})
    return checkpoint_args, checkpoint["params"]


def local(tree):
    """This process's copy of a replicated global array tree."""
    return jax.tree.map(lambda x: x.addressable_shards[0].data, tree)


def leave_at_once():
    """Exit handler of a --distributed process that stops early: a normal exit hangs in shutdown."""
    sys.stdout.flush()  # os._exit does not
    sys.stderr.flush()
    os._exit(1)


def join_processes(args):
    """Connects this process to the others of a --distributed run (jax.distributed), or
    exits with an error line: no coordinator, or processes given different flags."""
    try:
        jax.distributed.initialize(args.coordinator_address, args.num_processes, args.process_id)
    except (ValueError, IndexError, RuntimeError) as e:  # no cluster, a bad address, no peers
        sys.exit(f"error: --distributed: {e}")
    atexit.register(leave_at_once)  # once connected: before, there is no barrier to wait in
    # Other flags on another process (its batch shape, seed, learning rate) would silently
    # mix different rollouts and models, then hang at the end: compare every process's.
    flags = json.dumps({**vars(args), "process_id": None}, sort_keys=True, default=str)
    digest = np.frombuffer(hashlib.sha256(flags.encode()).digest(), np.uint8)
    if (multihost_utils.process_allgather(digest) != digest).any():
        sys.exit("error: --distributed: the processes were given different flags; every "
                 "process takes the same ones but --process-id")


if __name__ == "__main__":
    args = tyro.cli(Args)
    if args.eval_checkpoint is not None:  # no training: evaluate it on its task, with its network
        saved, params = load_checkpoint(args.eval_checkpoint)
        agent = Agent(make_env(saved.env_id, 1, 1, 0).action_space.n, tuple(saved.channels),
                      tuple(saved.hiddens))
        video_dir = f"videos/{saved.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
        results = evaluate(evaluation_policy(agent, params, args.seed, args.eval_episodes),
                           saved.env_id, args.eval_episodes, args.seed, saved.max_episode_steps,
                           video_dir if args.capture_video else None)
        for i, (ret, length) in enumerate(results):
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
        sys.exit(0)

    # Refused now what would train alone, fail after training, or crash deep inside JAX.
    for name in ("local_num_envs", "num_actor_threads", "num_steps", "num_minibatches"):
        if getattr(args, name) < 1:  # 0 divides by 0; below, reshapes fail deep inside JAX
            sys.exit(f"error: --{name.replace('_', '-')} must be at least 1")
    process_flags = {"--coordinator-address": args.coordinator_address,
                     "--num-processes": args.num_processes, "--process-id": args.process_id}
    given = [flag for flag, value in process_flags.items() if value is not None]
    if given and not args.distributed:  # each process would train alone, as process 0
        sys.exit(f"error: {', '.join(given)}: only with --distributed")
    if args.results_file and not os.path.isdir(os.path.dirname(os.path.abspath(args.results_file))):
        sys.exit(f"error: the folder of --results-file {args.results_file} does not exist")
    spec = envpool.make_spec(args.env_id)  # an unknown id: the engine names the closest ones
    if not hasattr(spec.action_space, "n"):
        sys.exit(f"error: {args.env_id} has continuous actions; this script needs discrete ones")
    if args.capture_video and not spec.render_shape:
        sys.exit(f"error: --capture-video: {args.env_id} has no render() to record")
    agent = Agent(make_env(args.env_id, 1, 1, 0).action_space.n, tuple(args.channels),  # as made
                  tuple(args.hiddens))
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    video_dir = f"videos/{run_name}" if args.capture_video else None

    if args.distributed:
        join_processes(args)
    num_processes, process_index = jax.process_count(), jax.process_index()
    local_devices = jax.local_devices()
    for role, ids in (("actor", args.actor_device_ids), ("learner", args.learner_device_ids)):
        if not ids or len(set(ids)) < len(ids) or not all(0 <= i < len(local_devices) for i in ids):
            sys.exit(f"error: --{role}-device-ids {ids} must be distinct indices into "
                     f"jax.local_devices() ({len(local_devices)} here: {local_devices})")
    actor_devices = [local_devices[i] for i in args.actor_device_ids]
    learner_devices = [local_devices[i] for i in args.learner_device_ids]
    devices_of = [[device for device in jax.devices() if device.process_index == process]
                  for process in range(num_processes)]
    global_learners = [devices_of[process][device_id] for process in range(num_processes)
                       for device_id in args.learner_device_ids]
    num_learners = len(global_learners)
    threads_per_process = args.num_actor_threads * len(actor_devices)
    num_envs = args.local_num_envs * threads_per_process * num_processes
    batch_size = num_envs * args.num_steps
    num_shards = args.num_grad_shards or num_learners
    envs_per_shard = num_envs // num_shards
    num_updates = args.total_timesteps // batch_size
    for condition, message in (
        (num_shards > 0 and num_shards % num_learners == 0, f"--num-grad-shards {num_shards} "
         f"must be a positive multiple of the {num_learners} learner devices of all processes"),
        (num_envs % num_shards == 0, f"the global envs (local_num_envs {args.local_num_envs} x "
         f"num_actor_threads {args.num_actor_threads} x {len(actor_devices)} actor devices x "
         f"{num_processes} processes = {num_envs}) must divide into {num_shards} gradient shards"),
        (envs_per_shard % args.num_minibatches == 0, f"a shard's {envs_per_shard} envs must "
         f"divide into --num-minibatches {args.num_minibatches}"),
    ):
        if not condition:
            sys.exit(f"error: {message}")

    writer = None
    if process_index == 0:
        if args.track:
            import wandb
            wandb.init(project=args.wandb_project_name, entity=args.wandb_entity,
                       sync_tensorboard=True, config=vars(args), name=run_name, save_code=True)
        writer = SummaryWriter(f"runs/{run_name}")
        table = "\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
    print(f"process {process_index}/{num_processes}: actors on {actor_devices}, learners on "
          f"{global_learners}; {num_envs} envs x {args.num_steps} steps, {num_shards} grad "
          f"shards, {num_updates} updates", flush=True)

    # ALGO LOGIC: initialize agent here:
    root_key = jax.random.PRNGKey(args.seed)

    def linear_schedule(count):  # per update: one count per minibatch
        return args.learning_rate * (1.0 - (count // args.num_minibatches) / num_updates)

    # RMSProp as PyTorch's and Cleanba's: eps outside the square root.
    tx = optax.chain(optax.clip_by_global_norm(args.max_grad_norm), optax.rmsprop(
        linear_schedule if args.anneal_lr else args.learning_rate, decay=0.99, eps=0.01,
        eps_in_sqrt=False))
    # Initialised on the host CPU, so that every process (and accelerator type) starts equal.
    with jax.default_device(jax.local_devices(backend="cpu")[0]):
        dummy_obs = np.zeros((1, *spec.observation_space.shape), spec.observation_space.dtype)
        params = agent.init(jax.random.fold_in(root_key, 0), dummy_obs)
        host_state = jax.device_get(TrainState.create(apply_fn=None, params=params, tx=tx))
    mesh = Mesh(np.array(global_learners), ("learner",))
    agent_state = jax.tree.map(lambda x: jax.make_array_from_callback(
        np.shape(x), NamedSharding(mesh, P()), lambda index: np.asarray(x)[index]), host_state)
    update_fn = make_learner_update(agent, args, mesh, num_shards // num_learners)

    # Global env order: process, actor device, thread, env. Learner device j of a process takes
    # its process's envs [j * envs_per_learner, (j + 1) * envs_per_learner): from each actor
    # thread, the part of that range the thread steps.
    envs_per_learner = num_envs // num_learners
    slices = []
    for thread_start in range(0, threads_per_process * args.local_num_envs, args.local_num_envs):
        ranges = [(learner_index, max(thread_start, learner_index * envs_per_learner),
                   min(thread_start + args.local_num_envs, (learner_index + 1) * envs_per_learner))
                  for learner_index in range(len(learner_devices))]
        slices.append([(learner_index, start - thread_start, end - thread_start)
                       for learner_index, start, end in ranges if start < end])
    context = ActorContext(act=jax.jit(partial(sample_action, agent)),
                           key=np.asarray(jax.random.fold_in(root_key, 2)),
                           num_updates=num_updates, learner_devices=learner_devices, slices=slices)
    params_queues, rollout_queues, threads = [], [], []
    params = local(agent_state.params)
    for device_index, device in enumerate(actor_devices):
        for thread_index in range(args.num_actor_threads):
            params_queue, rollout_queue = queue.Queue(maxsize=1), queue.Queue(maxsize=1)
            params_queue.put(jax.device_put(params, device, may_alias=False))
            thread_id = device_index * args.num_actor_threads + thread_index
            env_offset = (process_index * threads_per_process + thread_id) * args.local_num_envs
            threads.append(threading.Thread(target=rollout, daemon=True, args=(
                args, context, thread_id, env_offset, device, params_queue, rollout_queue)))
            params_queues.append(params_queue)
            rollout_queues.append(rollout_queue)
            threads[-1].start()

    history, start_time = {}, time.time()
    for update in tqdm(range(1, num_updates + 1), disable=process_index != 0, desc="updates"):
        # GATHER THE ROLLOUTS: one from every actor thread, in a fixed order, so that the batch
        # does not depend on which thread finished first
        get_start = time.time()
        payloads = [rollout_queue.get() for rollout_queue in rollout_queues]
        for payload in (payload for payload in payloads if isinstance(payload, BaseException)):
            raise RuntimeError("an actor thread failed") from payload
        batch = {}
        for name, partition in BATCH_SPECS.items():
            axis = 1 if name in TIME_MAJOR else 0
            parts = []  # one per learner device of this process: its envs, in global order
            for device_index in range(len(learner_devices)):
                pieces = [arrays[name] for sliced_rollout, *_ in payloads
                          for learner_index, arrays in sliced_rollout
                          if learner_index == device_index]
                parts.append(jnp.concatenate(pieces, axis))
            shape = (*parts[0].shape[:axis], num_envs, *parts[0].shape[axis + 1:])
            batch[name] = jax.make_array_from_single_device_arrays(
                shape, NamedSharding(mesh, partition), parts)
        rollout_queue_get_time = time.time() - get_start
        training_start = time.time()

        # UPDATE NETWORK, dispatched: the devices compute it while this thread goes on; its
        # metrics are read one update later, when the next update is queued behind it
        agent_state, metrics = update_fn(agent_state, batch)
        training_time = time.time() - training_start
        put_start = time.time()

        # SEND THE NEW PARAMETERS to the actors (see rollout() for when they take them); the
        # actors' last rollout is already in after the last update
        if update < num_updates:
            params = local(agent_state.params)  # copied: the next update donates (reuses) it
            device_params = [jax.device_put(params, d, may_alias=False) for d in actor_devices]
            for thread_id, params_queue in enumerate(params_queues):
                params_queue.put(device_params[thread_id // args.num_actor_threads])

        # TRY NOT TO MODIFY: record rewards for plotting purposes
        global_step = update * batch_size
        for name, value in {**local(metrics), "global_step": global_step}.items():
            history.setdefault(name, []).append(value)
        if writer is None:
            continue
        sps = int(global_step / (time.time() - start_time))
        scalars = {"charts/SPS": sps,
                   "charts/learning_rate": linear_schedule((update - 1) * args.num_minibatches)
                   if args.anneal_lr else args.learning_rate,
                   "stats/rollout_queue_get_time": rollout_queue_get_time,
                   "stats/training_time": training_time,
                   "stats/params_queue_put_time": time.time() - put_start,
                   "stats/rollout_queue_size": sum(map(queue.Queue.qsize, rollout_queues)),
                   "stats/params_queue_size": sum(map(queue.Queue.qsize, params_queues)),
                   **{f"stats/{name}": np.mean([timings[name] for _, timings, _ in payloads])
                      for name in payloads[0][1]}}
        for row, episode_return, length in sorted(e for *_, episodes in payloads for e in episodes):
            episode_step = (update - 1) * batch_size + int(row) * num_envs  # where it ended
            writer.add_scalar("charts/episodic_return", episode_return, episode_step)
            writer.add_scalar("charts/episodic_length", length, episode_step)
        for tag, value in scalars.items():
            writer.add_scalar(tag, value, global_step)
        for name in METRICS if update > 1 else ():  # the previous update's, queued before this one
            writer.add_scalar(f"losses/{name}", float(history[name][-2]), global_step - batch_size)
        if update % 10 == 0 or update == num_updates:  # the rollout's mean, over every process
            tqdm.write(f"global_step={global_step} SPS={sps} episodic_return="
                       f"{history['episode_return'][-1] / history['episode_count'][-1]:.2f}")
    for name in METRICS if writer and history else ():  # the last update's (if any)
        writer.add_scalar(f"losses/{name}", float(history[name][-1]), global_step)
    for thread in threads:
        thread.join()

    params = jax.device_get(local(agent_state.params))
    if args.distributed:
        # Training is over everywhere: shut down now, or the others would wait in shutdown()'s
        # barrier through process 0's evaluation (docs/distributed.md).
        atexit.unregister(leave_at_once)
        jax.distributed.shutdown()
    if args.results_file and process_index == 0:
        leaves = jax.tree_util.tree_flatten_with_path(params)[0]
        np.savez(args.results_file,
                 **{f"metric/{name}": np.asarray(values) for name, values in history.items()},
                 **{f"param/{jax.tree_util.keystr(path)}": np.asarray(leaf)
                    for path, leaf in leaves})
    if args.save_model and process_index == 0:
        model_path = f"runs/{run_name}/{args.exp_name}.cleanrl_model"
        with open(model_path, "wb") as f:
            f.write(flax.serialization.msgpack_serialize(
                {"args": json.dumps(vars(args)), "params": params}))
        print(f"model saved to {model_path}")
    if (args.save_model or args.capture_video) and process_index == 0:
        act = evaluation_policy(agent, params, args.seed, args.eval_episodes)
        results = evaluate(act, args.env_id, args.eval_episodes, args.seed,
                           args.max_episode_steps, video_dir)
        for i, (ret, length) in enumerate(results):
            writer.add_scalar("eval/episodic_return", ret, i)
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
    if writer is not None:
        writer.close()
