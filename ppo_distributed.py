"""PPO with Cleanba's actor-learner split, on any number of devices and machines (JAX).

    python ppo_distributed.py --env-id Breakout-v5                      # 1 device
    python ppo_distributed.py --actor-device-ids 0 --learner-device-ids 1 2 3
    srun python ppo_distributed.py --distributed ...                    # several machines

Each process runs actor threads (`--num-actor-threads` per actor device), each stepping its own
envpool_core pool, and one learner that is data-parallel over the learner devices of every
process. With a fixed seed the learning curve and the final parameters are bitwise identical
for any split of the same global configuration (global envs, steps, minibatches,
`--num-grad-shards`) in which each actor thread steps the same number of envs, because
  - global env i is seeded `seed + i` and samples its actions from `fold_in(fold_in(key, i),
    step)`, whichever thread or process steps it;
  - the global batch is cut into `--num-grad-shards` fixed groups of envs; each group's
    gradient is computed alone, then the group gradients are all-gathered and reduced in group
    order: the same floating-point sums whatever the number of devices sharing the work.
Async pools (`--async-batch-size`) are faster but not reproducible (arrival order is timing).
"""

import json
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from functools import partial

# GPU scatter-adds and some cuDNN algorithms are not deterministic unless asked; CPU always is.
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_gpu_deterministic_ops=true"

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import tyro
from flax.linen.initializers import constant, orthogonal
from flax.training.train_state import TrainState
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
    """seed of the experiment"""
    track: bool = False
    """track the run with Weights and Biases (needs `wandb`)"""
    wandb_project_name: str = "cleanRL"
    """the wandb's project name"""
    wandb_entity: str | None = None
    """the entity (team) of wandb's project"""
    capture_video: bool = False
    """record episodes of global env 0 (the engine's render) into `videos/{run_name}`"""
    save_model: bool = False
    """save the final model into `runs/{run_name}` and evaluate it"""
    eval_checkpoint: str | None = None
    """evaluate this saved model instead of training"""
    eval_episodes: int = 10
    """the number of episodes of an evaluation"""
    results_file: str | None = None
    """write the per-update metrics and the final parameters to this .npz (process 0)"""

    # Algorithm specific arguments
    env_id: str = "Breakout-v5"
    """the id of the environment (image observations get the ResNet, vectors only the MLP)"""
    total_timesteps: int = 50000000
    """total timesteps of the experiments"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    local_num_envs: int = 64
    """the number of envs each actor thread steps"""
    async_batch_size: int = 0
    """envs returned by each recv() of an actor's pool (0 = all of them: sync, reproducible)"""
    num_actor_threads: int = 2
    """the number of actor threads per actor device"""
    num_steps: int = 128
    """the number of steps to run in each environment per policy rollout"""
    anneal_lr: bool = True
    """Toggle learning rate annealing for policy and value networks"""
    gamma: float = 0.99
    """the discount factor gamma"""
    gae_lambda: float = 0.95
    """the lambda for the general advantage estimation"""
    num_minibatches: int = 4
    """the number of mini-batches"""
    update_epochs: int = 4
    """the K epochs to update the policy"""
    norm_adv: bool = True
    """normalise advantages (per minibatch of each gradient shard, as Cleanba per device)"""
    clip_coef: float = 0.1
    """the surrogate clipping coefficient"""
    ent_coef: float = 0.01
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 0.5
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
    concurrency: bool = True
    """actors use params one update old while the learner trains (else they alternate)"""
    distributed: bool = False
    """call jax.distributed.initialize (from the three flags below, or from SLURM if unset)"""
    coordinator_address: str | None = None
    """host:port of process 0"""
    num_processes: int | None = None
    """the number of processes"""
    process_id: int | None = None
    """the index of this process"""


def make_env(env_id, seed, num_envs, batch_size=0):
    kwargs = {}
    if len(envpool.make_spec(env_id).observation_space.shape) == 3:
        # Espeholt et al. 2018 (IMPALA) preprocessing, as in Cleanba's impala_atari_wrapper.
        kwargs = dict(episodic_life=True, reward_clip=True, noop_max=30)
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs,
                        batch_size=batch_size or num_envs, seed=seed, **kwargs)


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


def compute_gae(values, next_values, rewards, discounts, conts, gae_lambda):
    """GAE over time-major [T, ...] arrays. `discounts` is gamma * (1 - terminated) of the next
    obs: a truncated episode still bootstraps from the value of its final obs. `conts` is 0
    where the next obs ends an episode (either way): the trace never crosses episodes."""
    deltas = rewards + discounts * next_values - values

    def step(adv, x):
        delta, discount, cont = x
        adv = delta + discount * gae_lambda * cont * adv
        return adv, adv

    _, advantages = jax.lax.scan(step, jnp.zeros_like(deltas[0]), (deltas, discounts, conts),
                                 reverse=True)
    return advantages


def sample_action(agent, params, obs, key, env_ids, steps):
    logits, _ = agent.apply(params, obs)
    # A key stream per global env: actions do not depend on which thread or process steps the
    # env, nor on the batch it arrives in.
    keys = jax.vmap(lambda i, s: jax.random.fold_in(jax.random.fold_in(key, i), s))(env_ids, steps)
    u = jax.vmap(lambda k: jax.random.uniform(k, logits.shape[1:]))(keys)
    return jnp.argmax(logits - jnp.log(-jnp.log(u)), axis=1), logits  # Gumbel-max sampling


TIME_MAJOR = ("obs", "actions", "logits", "rewards", "terms", "truncs", "masks")
EPISODES = ("ep_return", "ep_length", "ep_count")


def rollout(args, ctx, thread_id, env_offset, device, params_queue, rollout_queue):
    """Actor thread: steps envs env_offset ... env_offset + local_num_envs - 1 (global ids) and
    hands each rollout of num_steps per env to the learner, already sliced per learner device."""
    try:
        T, n = args.num_steps, args.local_num_envs
        envs = make_env(args.env_id, args.seed + env_offset, n, args.async_batch_size)
        key, space = jax.device_put(ctx.actor_key, device), envs.observation_space
        gids = np.arange(env_offset, env_offset + n, dtype=np.int32)

        def new_buffer(cap):
            return dict(obs=np.zeros((cap, n, *space.shape), space.dtype),
                        actions=np.zeros((cap, n), np.int32),
                        logits=np.zeros((cap, n, ctx.action_dim), np.float32),
                        **{k: np.zeros((cap, n), np.float32) for k in ("rewards", "terms",
                                                                        "truncs")})

        # Rows per env: async envs run at different paces, so each keeps its own write position;
        # a rollout is complete once every env has num_steps + 1 observations.
        buf, count, steps = new_buffer(2 * T + 2), np.zeros(n, np.int64), np.zeros(n, np.int64)
        ep_ret = np.zeros(n, np.float32)
        record = args.capture_video and thread_id == 0 and ctx.process_index == 0
        frames, video_episode = [], 0
        envs.async_reset()
        for update in range(1, ctx.num_updates + 1):
            t0 = time.time()
            if not args.concurrency or update != 2:  # concurrency: rollout 2 reuses params 0
                params = params_queue.get()
                jax.block_until_ready(params)
            t_params, t_recv, t_infer, t_send = time.time() - t0, 0.0, 0.0, 0.0
            episodes = {k: np.zeros(n, np.float32) for k in EPISODES}
            while count.min() < T + 1:
                t = time.time()
                obs, reward, term, trunc, info = envs.recv()
                ids = np.asarray(info["env_id"])
                if np.any(ids[1:] < ids[:-1]):  # a canonical batch for inference
                    order = np.argsort(ids)
                    obs, reward, term, trunc = obs[order], reward[order], term[order], trunc[order]
                    ids = ids[order]
                    info = {k: v[order] for k, v in info.items() if isinstance(v, np.ndarray)}
                t_recv += time.time() - t
                t = time.time()
                action, logits = ctx.act(params, obs, key, gids[ids], steps[ids].astype(np.uint32))
                action, logits = np.array(action), np.asarray(logits)  # the pool keeps action
                t_infer += time.time() - t
                ended = np.asarray(info.get("terminated", term), bool) | trunc  # real game end
                if record and ids[0] == 0:
                    if round(video_episode ** (1 / 3)) ** 3 == video_episode:  # 0, 1, 8, 27, ..
                        frames.append(envs.render(np.array([0]))[0])
                    if ended[0]:
                        if frames:
                            save_video(frames, f"videos/{ctx.run_name}/episode-{video_episode}.mp4")
                        frames, video_episode = [], video_episode + 1
                t = time.time()
                envs.send(action, ids)
                t_send += time.time() - t
                rows = count[ids]
                if rows.max() >= len(buf["obs"]):
                    old, buf = buf, new_buffer(2 * len(buf["obs"]))
                    for k in buf:
                        buf[k][: len(old[k])] = old[k]
                for k, v in zip(buf, (obs, action, logits, reward, term, trunc), strict=True):
                    buf[k][rows, ids] = v
                count[ids] += 1
                steps[ids] += 1
                ep_ret[ids] += info.get("reward", reward)  # Atari: the unclipped reward
                done = ids[ended]
                episodes["ep_return"][done] += ep_ret[done]
                episodes["ep_length"][done] += info["elapsed_step"][ended]
                episodes["ep_count"][done] += 1
                ep_ret[done] = 0.0
            # Row t holds obs_t, the action taken on it, and the reward and flags that came with
            # obs_t: transition t goes from row t to row t + 1.
            data = dict(obs=buf["obs"][: T + 1], actions=buf["actions"][:T],
                        logits=buf["logits"][:T], rewards=buf["rewards"][1 : T + 1],
                        terms=buf["terms"][1 : T + 1], truncs=buf["truncs"][1 : T + 1],
                        # an obs that ends an episode gets an ignored action: no loss on it
                        masks=1.0 - np.maximum(buf["terms"][:T], buf["truncs"][:T]), **episodes)
            pieces = [(j, {k: jax.device_put(v[:, lo:hi] if k in TIME_MAJOR else v[lo:hi],
                                             ctx.learner_devices[j]) for k, v in data.items()})
                      for j, lo, hi in ctx.pieces[thread_id]]
            # A fresh buffer, as the transfers may still read the old one; rows collected past
            # this rollout move down (row T becomes row 0).
            old, buf = buf, new_buffer(len(buf["obs"]))
            carry = int(count.max()) - T
            for k in buf:
                buf[k][:carry] = old[k][T : T + carry]
            count -= T
            timings = dict(params_queue_get_time=t_params, rollout_time=time.time() - t0 - t_params,
                           env_recv_time=t_recv, inference_time=t_infer, env_send_time=t_send)
            rollout_queue.put((pieces, timings))
    except BaseException as e:  # handed to the learner, which re-raises it
        rollout_queue.put(e)


def save_video(frames, path):
    import imageio  # optional: only with --capture-video

    os.makedirs(os.path.dirname(path), exist_ok=True)
    imageio.mimsave(path, frames, fps=30, macro_block_size=1)


def evaluate(params, args, num_episodes, run_name=None, capture_video=False):
    """Plays `num_episodes` episodes (the first one of as many envs) with the stochastic policy;
    records env 0 with the engine's render when `capture_video`."""
    envs = make_env(args.env_id, args.seed + 1_000_000, num_episodes)
    act = jax.jit(partial(sample_action, Agent(envs.action_space.n, args.channels, args.hiddens)))
    key, ids = jax.random.PRNGKey(args.seed + 1_000_000), np.arange(num_episodes, dtype=np.int32)
    obs, info = envs.reset()
    running, returns, frames = np.zeros(num_episodes), np.full(num_episodes, np.nan), []
    for step in range(1_000_000):
        if capture_video and np.isnan(returns[0]):
            frames.append(envs.render(np.array([0]))[0])
        action, _ = act(params, obs, key, ids, np.full(num_episodes, step, np.uint32))
        obs, reward, term, trunc, info = envs.step(np.asarray(action), ids)
        running += info.get("reward", reward)
        ended = (np.asarray(info.get("terminated", term), bool) | trunc) & np.isnan(returns)
        returns[ended] = running[ended]
        if not np.isnan(returns).any():
            break
    envs.close()
    if frames:
        save_video(frames, f"videos/{run_name}-eval/episode-0.mp4")
    return returns


def load_checkpoint(path):
    with open(path, "rb") as f:
        ckpt = flax.serialization.msgpack_restore(f.read())
    saved = json.loads(ckpt["args"])
    ckpt_args = Args(**{k: v for k, v in saved.items() if k in Args.__dataclass_fields__})
    ckpt_args.channels, ckpt_args.hiddens = tuple(ckpt_args.channels), tuple(ckpt_args.hiddens)
    return ckpt_args, ckpt["params"]


def local(tree):
    """This process's copy of a replicated global array tree."""
    return jax.tree.map(lambda x: x.addressable_shards[0].data, tree)


if __name__ == "__main__":
    args = tyro.cli(Args)
    args.channels, args.hiddens = tuple(args.channels), tuple(args.hiddens)
    if args.track:
        try:
            import wandb
        except ImportError:
            raise SystemExit("--track needs Weights and Biases: pip install wandb") from None
    if args.eval_checkpoint:
        ckpt_args, params = load_checkpoint(args.eval_checkpoint)
        run_name = f"{ckpt_args.env_id}__{ckpt_args.exp_name}__eval__{int(time.time())}"
        returns = evaluate(params, ckpt_args, args.eval_episodes, run_name, args.capture_video)
        writer = SummaryWriter(f"runs/{run_name}")
        for i, r in enumerate(returns):
            writer.add_scalar("eval/episodic_return", r, i)
        writer.close()
        print(f"eval_episodic_returns={returns.tolist()} mean={returns.mean():.3f}")
        raise SystemExit(0)

    if args.distributed:
        if args.coordinator_address is None:
            jax.distributed.initialize()  # from the cluster's environment (SLURM, ...)
        else:
            jax.distributed.initialize(args.coordinator_address, args.num_processes,
                                       args.process_id)
    num_processes, process_index = jax.process_count(), jax.process_index()
    local_devices = jax.local_devices()
    for name, ids in (("actor", args.actor_device_ids), ("learner", args.learner_device_ids)):
        if not ids or not all(0 <= i < len(local_devices) for i in ids):
            raise SystemExit(f"error: --{name}-device-ids {ids} must index jax.local_devices() "
                             f"({len(local_devices)} here: {local_devices})")
    actor_devices = [local_devices[i] for i in args.actor_device_ids]
    learner_devices = [local_devices[i] for i in args.learner_device_ids]
    devices_of = [[d for d in jax.devices() if d.process_index == p] for p in range(num_processes)]
    global_learners = [devices_of[p][i] for p in range(num_processes)
                       for i in args.learner_device_ids]
    num_learners = len(global_learners)
    threads_per_process = args.num_actor_threads * len(actor_devices)
    num_envs = args.local_num_envs * threads_per_process * num_processes
    batch_size = num_envs * args.num_steps
    shards = args.num_grad_shards or num_learners
    envs_per_shard = num_envs // shards
    num_updates = args.total_timesteps // batch_size
    for ok, message in (
        (shards % num_learners == 0, f"--num-grad-shards {shards} must be a multiple of the "
         f"{num_learners} learner devices of all processes"),
        (num_envs % shards == 0, f"the global envs (local_num_envs {args.local_num_envs} x "
         f"num_actor_threads {args.num_actor_threads} x {len(actor_devices)} actor devices x "
         f"{num_processes} processes = {num_envs}) must divide into --num-grad-shards {shards}"),
        (args.num_steps * envs_per_shard % args.num_minibatches == 0, "a shard's samples "
         f"(num_steps {args.num_steps} x {envs_per_shard} envs) must divide into "
         f"--num-minibatches {args.num_minibatches}"),
        (0 <= args.async_batch_size <= args.local_num_envs,
         "--async-batch-size must be in [0, local_num_envs]"),
        (num_updates >= 1, f"--total-timesteps {args.total_timesteps} is less than one global "
         f"batch ({num_envs} envs x {args.num_steps} steps = {batch_size})"),
    ):
        if not ok:
            raise SystemExit(f"error: {message}")

    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = None
    if process_index == 0:
        if args.track:
            wandb.init(project=args.wandb_project_name, entity=args.wandb_entity,
                       sync_tensorboard=True, config=vars(args), name=run_name, save_code=True)
        writer = SummaryWriter(f"runs/{run_name}")
        writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
            f"|{k}|{v}|" for k, v in vars(args).items()))
    print(f"process {process_index}/{num_processes}: actors on {actor_devices}, learners on "
          f"{global_learners}; {num_envs} envs x {args.num_steps} steps, {shards} grad shards, "
          f"{num_updates} updates", flush=True)

    spec = envpool.make_spec(args.env_id)
    action_dim, obs_space = spec.action_space.n, spec.observation_space
    agent = Agent(action_dim, args.channels, args.hiddens)
    root_key = jax.random.PRNGKey(args.seed)
    learner_key = np.asarray(jax.random.fold_in(root_key, 1))

    def linear_schedule(count):
        # one update = update_epochs x num_minibatches optimizer steps
        frac = 1.0 - (count // (args.num_minibatches * args.update_epochs)) / num_updates
        return args.learning_rate * frac

    tx = optax.chain(optax.clip_by_global_norm(args.max_grad_norm), optax.adam(
        linear_schedule if args.anneal_lr else args.learning_rate, eps=1e-5))
    # Initialised on the host CPU, so that every process (and accelerator type) starts equal.
    with jax.default_device(jax.local_devices(backend="cpu")[0]):
        dummy = np.zeros((1, *obs_space.shape), obs_space.dtype)
        host_state = jax.device_get(jax.jit(lambda key: TrainState.create(
            apply_fn=None, params=agent.init(key, dummy), tx=tx))(jax.random.fold_in(root_key, 0)))
    mesh = Mesh(np.array(global_learners), ("learner",))
    agent_state = jax.tree.map(lambda x: jax.make_array_from_callback(
        np.shape(x), NamedSharding(mesh, P()), lambda idx: np.asarray(x)[idx]), host_state)

    def ppo_loss(params, obs, actions, behaviour_logits, advantages, returns, mask):
        logits, value = agent.apply(params, obs)
        logp = jax.nn.log_softmax(logits)
        newlogprob = jnp.take_along_axis(logp, actions[:, None], 1)[:, 0]
        # the ratio is against the policy that acted (the actor's, maybe one update old)
        oldlogprob = jnp.take_along_axis(jax.nn.log_softmax(behaviour_logits), actions[:, None],
                                         1)[:, 0]
        logratio = newlogprob - oldlogprob
        ratio = jnp.exp(logratio)

        def mean(x):
            return (x * mask).sum() / jnp.maximum(mask.sum(), 1.0)

        if args.norm_adv:
            mu = mean(advantages)
            advantages = (advantages - mu) / (jnp.sqrt(mean((advantages - mu) ** 2)) + 1e-8)
        clipped = jnp.clip(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
        pg_loss = mean(jnp.maximum(-advantages * ratio, -advantages * clipped))
        v_loss = 0.5 * mean((value - returns) ** 2)
        entropy = mean(-(jnp.exp(logp) * logp).sum(-1))
        loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
        approx_kl = mean((ratio - 1) - logratio)
        clipfrac = mean((jnp.abs(ratio - 1) > args.clip_coef).astype(jnp.float32))
        return loss, (pg_loss, v_loss, entropy, approx_kl, clipfrac)

    shards_here = shards // num_learners
    metric_names = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")

    def learner_update(state, batch, update):
        """One learner device's part of an update (inside shard_map): epochs > minibatches >
        this device's gradient shards, as nested scans."""
        key = jax.random.fold_in(learner_key, update)
        shard_ids = jax.lax.axis_index("learner") * shards_here + jnp.arange(shards_here)

        def by_shard(x):  # [T, this device's envs, ...] -> [shards, T, envs_per_shard, ...]
            return jnp.moveaxis(x.reshape(x.shape[0], shards_here, -1, *x.shape[2:]), 1, 0)

        b = {k: by_shard(batch[k]) for k in TIME_MAJOR}

        def shard_targets(_, sh):
            obs = sh["obs"]
            _, values = agent.apply(state.params, obs.reshape(-1, *obs.shape[2:]))
            values = values.reshape(obs.shape[:2])
            advantages = compute_gae(values[:-1], values[1:], sh["rewards"],
                                     args.gamma * (1.0 - sh["terms"]),
                                     1.0 - jnp.maximum(sh["terms"], sh["truncs"]), args.gae_lambda)
            return None, (advantages, advantages + values[:-1])

        _, (advantages, returns) = jax.lax.scan(shard_targets, None, b)

        def flat(x):  # [shards, T, envs_per_shard, ...] -> [shards, T * envs_per_shard, ...]
            return x.reshape(x.shape[0], -1, *x.shape[3:])

        data = (flat(b["obs"][:, :-1]), flat(b["actions"]), flat(b["logits"]), flat(advantages),
                flat(returns), flat(b["masks"]))
        num_samples = args.num_steps * envs_per_shard

        def epoch(state, epoch_index):
            epoch_key = jax.random.fold_in(key, epoch_index)
            perms = jax.vmap(lambda s: jax.random.permutation(
                jax.random.fold_in(epoch_key, s), num_samples))(shard_ids)

            def minibatch(state, indices):
                def shard_grad(_, x):
                    shard_data, idx = x
                    (loss, aux), grads = jax.value_and_grad(ppo_loss, has_aux=True)(
                        state.params, *(v[idx] for v in shard_data))
                    return None, (grads, (loss, *aux))

                _, (grads, aux) = jax.lax.scan(shard_grad, None, (data, indices))
                # Every shard's gradient, reduced in shard order: the same sums in the same
                # order whatever the number of devices (a psum's order depends on it).
                grads, aux = jax.tree.map(
                    lambda g: jax.lax.all_gather(g, "learner", tiled=True).mean(0), (grads, aux))
                return state.apply_gradients(grads=grads), aux

            minibatches = perms.reshape(shards_here, args.num_minibatches, -1).swapaxes(0, 1)
            return jax.lax.scan(minibatch, state, minibatches)

        state, aux = jax.lax.scan(epoch, state, jnp.arange(args.update_epochs))
        metrics = {name: jnp.mean(v) for name, v in zip(metric_names, aux, strict=True)}
        for k in EPISODES:  # summed over every env of every process
            metrics[k] = jax.lax.all_gather(batch[k], "learner", tiled=True).sum()
        return state, metrics

    batch_specs = {k: P(None, "learner") if k in TIME_MAJOR else P("learner")
                   for k in TIME_MAJOR + EPISODES}
    update_fn = jax.jit(jax.shard_map(learner_update, mesh=mesh, in_specs=(P(), batch_specs, P()),
                                      out_specs=(P(), P()), check_vma=False))

    # Global env order: process, actor device, thread, env. Learner device j of a process holds
    # its process's envs [j * per_learner, (j + 1) * per_learner): each thread's slice of it.
    per_learner = num_envs // num_processes // len(learner_devices)
    pieces = []
    for k in range(threads_per_process):
        lo, hi = k * args.local_num_envs, (k + 1) * args.local_num_envs
        pieces.append([(j, max(lo, j * per_learner) - lo, min(hi, (j + 1) * per_learner) - lo)
                       for j in range(len(learner_devices))
                       if max(lo, j * per_learner) < min(hi, (j + 1) * per_learner)])
    ctx = type("Context", (), dict(
        act=jax.jit(partial(sample_action, agent)), action_dim=action_dim,
        actor_key=np.asarray(jax.random.fold_in(root_key, 2)), num_updates=num_updates,
        learner_devices=learner_devices, pieces=pieces, process_index=process_index,
        run_name=run_name))
    params_queues, rollout_queues, threads = [], [], []
    params = local(agent_state.params)
    for d, device in enumerate(actor_devices):
        for t in range(args.num_actor_threads):
            k = d * args.num_actor_threads + t
            params_queues.append(queue.Queue(maxsize=1))
            rollout_queues.append(queue.Queue(maxsize=1))
            params_queues[k].put(jax.device_put(params, device))
            offset = (process_index * threads_per_process + k) * args.local_num_envs
            threads.append(threading.Thread(target=rollout, daemon=True, args=(
                args, ctx, k, offset, device, params_queues[k], rollout_queues[k])))
            threads[k].start()

    history = {}
    start_time = time.time()
    for update in tqdm(range(1, num_updates + 1), disable=process_index != 0, desc="updates"):
        t0 = time.time()
        payloads = [q.get() for q in rollout_queues]  # a fixed order: reproducible batches
        for p in payloads:
            if isinstance(p, BaseException):
                raise RuntimeError("an actor thread failed") from p
        batch = {}
        for k, spec_k in batch_specs.items():
            axis = 1 if k in TIME_MAJOR else 0
            parts = [[arrays[k] for pieces, _ in payloads for j2, arrays in pieces if j2 == j]
                     for j in range(len(learner_devices))]
            parts = [jnp.concatenate(p, axis) if len(p) > 1 else p[0] for p in parts]
            shape = list(parts[0].shape)
            shape[axis] = num_envs
            batch[k] = jax.make_array_from_single_device_arrays(
                tuple(shape), NamedSharding(mesh, spec_k), parts)
        t_get, t1 = time.time() - t0, time.time()
        agent_state, metrics = update_fn(agent_state, batch, np.uint32(update))
        metrics = {k: float(np.asarray(v)) for k, v in local(metrics).items()}
        t_train, t2 = time.time() - t1, time.time()
        if update < num_updates:  # the actors' last rollout is already in
            params = local(agent_state.params)
            for d, device in enumerate(actor_devices):
                device_params = jax.device_put(params, device)
                for t in range(args.num_actor_threads):
                    k = d * args.num_actor_threads + t
                    while True:  # an actor that died would otherwise block this put forever
                        try:
                            params_queues[k].put(device_params, timeout=1.0)
                            break
                        except queue.Full:
                            if not threads[k].is_alive():
                                raise RuntimeError(f"actor thread {k} stopped") from None
        global_step = update * batch_size
        metrics["global_step"] = global_step
        for k, v in metrics.items():
            history.setdefault(k, []).append(v)
        if writer is None:
            continue
        sps = int(global_step / (time.time() - start_time))
        lr = linear_schedule((update - 1) * args.num_minibatches * args.update_epochs)
        scalars = {"charts/SPS": sps, "charts/learning_rate": lr if args.anneal_lr else
                   args.learning_rate, **{f"losses/{k}": metrics[k] for k in metric_names},
                   "stats/rollout_queue_get_time": t_get, "stats/training_time": t_train,
                   "stats/params_queue_put_time": time.time() - t2,
                   "stats/rollout_queue_size": sum(q.qsize() for q in rollout_queues),
                   "stats/params_queue_size": sum(q.qsize() for q in params_queues),
                   **{f"stats/{k}": np.mean([p[1][k] for p in payloads]) for k in payloads[0][1]}}
        if metrics["ep_count"] > 0:  # episodes that ended in this rollout, in every env
            scalars["charts/episodic_return"] = metrics["ep_return"] / metrics["ep_count"]
            scalars["charts/episodic_length"] = metrics["ep_length"] / metrics["ep_count"]
        for k, v in scalars.items():
            writer.add_scalar(k, v, global_step)
        if update % 10 == 0 or update == num_updates:
            tqdm.write(f"global_step={global_step} SPS={sps} episodic_return="
                       f"{scalars.get('charts/episodic_return', float('nan')):.2f}")
    for thread in threads:
        thread.join()

    params = jax.device_get(local(agent_state.params))
    if args.results_file and process_index == 0:
        leaves = jax.tree_util.tree_flatten_with_path(params)[0]
        np.savez(args.results_file, **{f"metric/{k}": np.asarray(v) for k, v in history.items()},
                 **{f"param/{jax.tree_util.keystr(p)}": np.asarray(v) for p, v in leaves})
    if args.save_model and process_index == 0:
        model_path = f"runs/{run_name}/{args.exp_name}.cleanrl_model"
        with open(model_path, "wb") as f:
            f.write(flax.serialization.msgpack_serialize(
                {"args": json.dumps(vars(args)), "params": params}))
        print(f"model saved to {model_path}")
        returns = evaluate(params, args, args.eval_episodes, run_name, args.capture_video)
        for i, r in enumerate(returns):
            writer.add_scalar("eval/episodic_return", r, i)
        print(f"eval_episodic_returns={returns.tolist()}")
    if writer is not None:
        writer.close()
    if args.distributed:
        jax.distributed.shutdown()
