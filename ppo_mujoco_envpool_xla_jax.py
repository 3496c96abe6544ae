r"""PPO with continuous actions on MuJoCo, every iteration one compiled function (JAX):
`python ppo_mujoco_envpool_xla_jax.py --env-id Ant-v4 --save-model`.

The rollout is a `jax.lax.scan` over the pool's `xla()` step, so no Python runs per env step:
sampling, observation normalisation, GAE, return standardisation and the update epochs are one
`jax.jit`. The algorithm is rl_games' `ant_envpool.yaml` (two minibatches, a shared trunk, its
KL-adaptive learning rate, value normalisation) on 128 envs x 32 steps. As in ppo_mujoco_envpool.py
a time limit is not a terminal state (the target bootstraps from V(final observation)), and the
step after an episode end, whose action the engine ignores while it resets the env, is not trained.
"""

import itertools
import json
import os
import sys
import time
from collections import deque, namedtuple
from dataclasses import dataclass
from difflib import get_close_matches

# xla() steps the pool from JAX's CPU backend only; the small MLPs gain nothing elsewhere.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import flax
import flax.linen as nn
import imageio
import jax
import jax.numpy as jnp
import numpy as np
import optax
import tyro
from flax.linen.initializers import constant, orthogonal
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import envpool_core as envpool


@dataclass
class Args:
    exp_name: str = os.path.basename(__file__)[: -len(".py")]
    """the name of this experiment"""
    seed: int = 1
    """seed of the experiment (env i of n is seeded with seed * n + i)"""
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

    # Algorithm specific arguments
    env_id: str = "Ant-v4"
    """the id of the environment"""
    total_timesteps: int = 3000000
    """total timesteps of the experiments"""
    learning_rate: float = 3e-4
    """the learning rate of the optimizer"""
    num_envs: int = 128
    """the number of parallel game environments"""
    num_steps: int = 32
    """the number of steps to run in each environment per policy rollout"""
    max_episode_steps: int | None = None
    """the time limit in agent steps (None: the task's, 27000 on Atari, 1000 on most of MuJoCo)"""
    kl_threshold: float | None = 0.008
    """adaptive learning rate: after each minibatch, divided by 1.5 if the KL to the policy of the
    previous pass over its samples is above twice this, times 1.5 if below half (None: constant)"""
    gamma: float = 0.99
    """the discount factor gamma"""
    gae_lambda: float = 0.95
    """the lambda for the general advantage estimation"""
    num_minibatches: int = 2
    """the number of mini-batches"""
    update_epochs: int = 4
    """the K epochs to update the policy"""
    norm_adv: bool = True
    """Toggles advantages normalization (over the whole batch, as rl_games')"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    ent_coef: float = 0.0
    """coefficient of the entropy"""
    vf_coef: float = 2.0
    """coefficient of the value function"""
    max_grad_norm: float = 1.0
    """the maximum norm for the gradient clipping"""
    hidden_sizes: tuple[int, ...] = (256, 128, 64)
    """the hidden sizes of the MLP trunk the actor and the critic share (ELU)"""


def make_env(env_id, num_envs, batch_size, seed, max_episode_steps=None):
    # No wrappers: normalisation and action clipping are in the compiled step.
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, batch_size=batch_size,
                        seed=[seed * num_envs + i for i in range(num_envs)], **limit)


def layer_init(features, std=2**0.5, bias_const=0.0):
    return nn.Dense(features, kernel_init=orthogonal(std), bias_init=constant(bias_const))


class Agent(nn.Module):
    """One MLP trunk under the actor's mean and the critic's value (rl_games' `separate: False`);
    a state-independent log standard deviation."""

    action_dim: int
    hidden_sizes: tuple[int, ...] = (256, 128, 64)

    @nn.compact
    def __call__(self, x):
        for hidden in self.hidden_sizes:
            x = nn.elu(layer_init(hidden)(x))
        logstd = self.param("actor_logstd", constant(0.0), (self.action_dim,))
        return layer_init(self.action_dim, std=0.01)(x), logstd, layer_init(1, std=1.0)(x)[:, 0]


def normal_logprob(mean, logstd, action):
    """Log-density of a diagonal Gaussian, summed over the action's dimensions."""
    return (-0.5 * ((action - mean) / jnp.exp(logstd)) ** 2 - logstd
            - 0.5 * jnp.log(2 * jnp.pi)).sum(-1)


# Named fields (pytrees). The rollout [num_steps, num_envs, ...]: obs normalised, action unclipped,
# value standardized, mask 0 where not trained on; Batch's mean, logstd: the previous pass's policy.
Transition = namedtuple("Transition", "obs action logprob mean value reward terminated truncated "
                        "mask env_id elapsed_step")
Batch = namedtuple("Batch", "obs action logprob mean logstd advantage target value mask")
RunningStats = namedtuple("RunningStats", "mean var count")  # as gymnasium's normalize wrappers'
# What an iteration hands the next, and each step of its scans the next (handle: xla()'s state).
Carry = namedtuple("Carry", "handle params opt_state learning_rate obs done obs_rms value_rms key")


def rms_update(rms, x, mask):
    """Merges the rows of x where mask is set into RunningStats, with Chan et al.'s parallel
    algorithm (gymnasium's normalize wrappers' statistics); no rows: unchanged."""
    weight = mask.astype(jnp.float32).reshape(-1, *(1,) * (x.ndim - 1))
    n = weight.sum()
    batch_mean = (weight * x).sum(0) / jnp.maximum(n, 1.0)
    batch_var = (weight * (x - batch_mean) ** 2).sum(0) / jnp.maximum(n, 1.0)
    delta, total = batch_mean - rms.mean, rms.count + n
    return RunningStats(rms.mean + delta * n / total, (rms.var * rms.count + batch_var * n
                        + delta**2 * rms.count * n / total) / total, total)


def normalize(rms, obs):  # clipped to 5 standard deviations, as rl_games' normalize_input
    return jnp.clip((obs - rms.mean) / jnp.sqrt(rms.var + 1e-8), -5, 5)


def standardize(rms, x, inverse=False):
    """(x - running mean) / running std, or back with inverse (rl_games' normalize_value)."""
    std = jnp.sqrt(rms.var + 1e-8)
    return x * std + rms.mean if inverse else (x - rms.mean) / std


def compute_gae(values, next_values, rewards, discounts, continues, gae_lambda):
    """GAE over time-major [num_steps, ...] arrays. `discounts` is gamma * (1 - terminated) of
    the next obs: a truncated episode still bootstraps from the value of its final obs.
    `continues` is 0 where the next obs ends an episode (either way): the trace never crosses
    episodes."""
    deltas = rewards + discounts * next_values - values

    def backward_step(advantage, step):
        delta, discount, episode_continues = step
        advantage = delta + discount * gae_lambda * episode_continues * advantage
        return advantage, advantage

    _, advantages = jax.lax.scan(backward_step, jnp.zeros_like(deltas[0]),
                                 (deltas, discounts, continues), reverse=True)
    return advantages


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


def evaluation_policy(agent, params, obs_rms, seed, low, high):
    """act(observations) for evaluate(): the observation statistics frozen, actions sampled
    from a key stream of seed (the same episodes every time) and clipped as in training."""
    @jax.jit
    def sample(key, obs):
        mean, logstd, _ = agent.apply(params, normalize(obs_rms, obs))
        return jnp.clip(mean + jnp.exp(logstd) * jax.random.normal(key, mean.shape), low, high)

    key, steps = jax.random.fold_in(jax.random.PRNGKey(seed), 2), itertools.count()
    return lambda obs: np.asarray(sample(jax.random.fold_in(key, next(steps)), obs))


if __name__ == "__main__":
    args = tyro.cli(Args)
    checkpoint = None
    if args.eval_checkpoint is not None:  # no training: evaluate it on the task it learned
        try:
            with open(args.eval_checkpoint, "rb") as f:
                checkpoint = flax.serialization.msgpack_restore(f.read())
            saved = json.loads(checkpoint["args"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"error: --eval-checkpoint {args.eval_checkpoint}: cannot load it ({e})")
        args.env_id, args.max_episode_steps = saved["env_id"], saved["max_episode_steps"]
        args.hidden_sizes = tuple(saved["hidden_sizes"])
    for name, least in (("num_envs", 1), ("num_steps", 2), ("num_minibatches", 1),
                        ("update_epochs", 1), ("eval_episodes", 1), ("max_episode_steps", 1)):
        value = getattr(args, name)
        if value is not None and value < least:
            sys.exit(f"error: --{name.replace('_', '-')} must be at least {least}, not {value}")
    if not 0 <= args.seed < 2**32 // max(args.num_envs, args.eval_episodes):  # env seeds 32-bit
        sys.exit("error: --seed must be in [0, 2**32 // max(--num-envs, --eval-episodes))")
    batch_size = args.num_envs * args.num_steps
    num_iterations = 0 if checkpoint else args.total_timesteps // batch_size
    for condition, message in (
        (batch_size % args.num_minibatches == 0, f"the batch (num_envs {args.num_envs} x "
         f"num_steps {args.num_steps}) must divide into --num-minibatches {args.num_minibatches}"),
        (checkpoint or num_iterations >= 1, f"--total-timesteps {args.total_timesteps} is less "
         f"than one batch ({batch_size})"),
        (np.isfinite([args.learning_rate, args.ent_coef, args.vf_coef]).all()
         and args.learning_rate > 0 and args.max_grad_norm > 0 and args.vf_coef >= 0
         and 0 <= args.gamma <= 1 and 0 <= args.gae_lambda <= 1 and args.clip_coef > 0,
         "--learning-rate, --max-grad-norm and --clip-coef must be above 0, --vf-coef at "
         "least 0, --ent-coef finite, --gamma and --gae-lambda in [0, 1]"),
        (args.kl_threshold is None or args.kl_threshold > 0, "--kl-threshold must be above 0"),
        (min(args.hidden_sizes, default=0) >= 1, "--hidden-sizes must be at least 1 each"),
        (args.exp_name and os.sep not in args.exp_name, "--exp-name must be a file name (no /)"),
    ):
        if not condition:
            sys.exit(f"error: {message}")
    if args.env_id not in envpool.list_all_envs():
        close = get_close_matches(args.env_id, envpool.list_all_envs(), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        sys.exit(f"error: unknown --env-id {args.env_id!r}{hint}")
    spec = envpool.make_spec(args.env_id)
    if not hasattr(spec.action_space, "low") or len(spec.observation_space.shape or ()) != 1:
        sys.exit(f"error: {args.env_id} needs box actions and one observation array")
    if args.capture_video and not spec.render_shape:
        sys.exit(f"error: --capture-video: {args.env_id} has no render() to record")
    low, high = spec.action_space.low, spec.action_space.high  # 1-D on MuJoCo and dm_control
    obs_dim, agent = spec.observation_space.shape[0], Agent(len(low), tuple(args.hidden_sizes))
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    video_dir = f"videos/{run_name}" if args.capture_video else None
    if checkpoint is not None:
        wanted = jax.eval_shape(agent.init, jax.random.PRNGKey(0), np.zeros((1, obs_dim)))
        if jax.tree.map(np.shape, checkpoint["params"]) != jax.tree.map(np.shape, wanted):
            sys.exit(f"error: --eval-checkpoint {args.eval_checkpoint}: not this script's network")
        act = evaluation_policy(agent, checkpoint["params"],
                                RunningStats(**checkpoint["obs_rms"]), args.seed, low, high)
        results = evaluate(act, args.env_id, args.eval_episodes, args.seed,
                           args.max_episode_steps, video_dir)
        for i, (ret, length) in enumerate(results):
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
        print(f"mean_episodic_return={np.mean([ret for ret, _ in results])}")
        sys.exit(0)

    if args.track:
        import wandb
        wandb.init(project=args.wandb_project_name, entity=args.wandb_entity,
                   sync_tensorboard=True, config=vars(args), name=run_name, save_code=True)
    writer = SummaryWriter(f"runs/{run_name}")
    table = "\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    # TRY NOT TO MODIFY: seeding
    key, params_key = jax.random.split(jax.random.PRNGKey(args.seed))
    envs = make_env(args.env_id, args.num_envs, args.num_envs, args.seed, args.max_episode_steps)
    handle, _, _, step_env = envs.xla()

    # ALGO LOGIC: initialize agent here:
    params = agent.init(params_key, np.zeros((1, obs_dim), np.float32))
    # Adam (PyTorch's epsilon) without its learning rate, carried and adapted by the iteration.
    tx = optax.chain(optax.clip_by_global_norm(args.max_grad_norm), optax.scale_by_adam(eps=1e-8))

    def ppo_loss(params, minibatch):
        """PPO's clipped losses (rl_games' smooth clamp), averaged over the steps trained on."""
        mean_action, logstd, newvalue = agent.apply(params, minibatch.obs)
        logratio = normal_logprob(mean_action, logstd, minibatch.action) - minibatch.logprob
        ratio = jnp.exp(logratio)
        advantages, old_value, target = minibatch.advantage, minibatch.value, minibatch.target

        def mean(x):
            return (x * minibatch.mask).sum() / jnp.maximum(minibatch.mask.sum(), 1.0)

        # rl_games' smooth clamp of the ratio: slope 1 at 1, flattening out at 1 ± clip_coef.
        clipped = 1 + args.clip_coef * (2 * jax.nn.sigmoid(2 * (ratio - 1) / args.clip_coef) - 1)
        pg_loss = mean(jnp.maximum(-advantages * ratio, -advantages * clipped))
        v_clipped = old_value + jnp.clip(newvalue - old_value, -args.clip_coef, args.clip_coef)
        v_loss = 0.5 * mean(jnp.maximum((newvalue - target) ** 2, (v_clipped - target) ** 2))
        entropy = (logstd + 0.5 * jnp.log(2 * jnp.pi * jnp.e)).sum()
        loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
        logstd = jnp.broadcast_to(logstd, mean_action.shape)  # KL to the previous pass's policy:
        pass_kl = mean((minibatch.logstd - logstd - 0.5 + (jnp.exp(2 * logstd) + (
            mean_action - minibatch.mean) ** 2) / (2 * jnp.exp(2 * minibatch.logstd))).sum(-1))
        return loss, {"loss": loss, "policy_loss": pg_loss, "value_loss": v_loss,
                      "entropy": entropy, "approx_kl": mean((ratio - 1) - logratio),
                      "clipfrac": mean((jnp.abs(ratio - 1) > args.clip_coef).astype(jnp.float32)),
                      "pass_kl": pass_kl, "policy": (mean_action, logstd)}

    def iteration(carry):
        """One rollout of num_steps x num_envs through xla(), GAE and the update epochs."""
        # ALGO LOGIC: action logic, then TRY NOT TO MODIFY: execute the game, inside the scan
        def env_step(carry, step_key):
            mean_action, logstd, value = agent.apply(carry.params, carry.obs)
            action = mean_action + jnp.exp(logstd) * jax.random.normal(step_key, mean_action.shape)
            logprob = normal_logprob(mean_action, logstd, action)
            # The Gaussian sample is unbounded; the env gets it clipped to the box (ClipAction).
            handle, (next_obs, reward, terminated, truncated, info) = step_env(
                carry.handle, jnp.clip(action, low, high))
            obs_rms = rms_update(carry.obs_rms, next_obs, jnp.ones_like(carry.done))
            next_carry = carry._replace(handle=handle, obs=normalize(obs_rms, next_obs), done=(
                terminated | truncated).astype(jnp.float32), obs_rms=obs_rms)
            # A done in `done` means obs is a final observation: the engine ignores the action
            # taken on it (it resets the env instead), so this step is not trained on.
            return next_carry, Transition(carry.obs, action, logprob, mean_action, value, reward,
                terminated, truncated, 1.0 - carry.done, info["env_id"], info["elapsed_step"])

        key, rollout_key, update_key = jax.random.split(carry.key, 3)
        carry, rollout = jax.lax.scan(env_step, carry._replace(key=key),
                                      jax.random.split(rollout_key, args.num_steps))
        # Value normalisation, all here: the critic predicts returns standardized by value_rms.
        values = standardize(carry.value_rms, jnp.concatenate(
            [rollout.value, agent.apply(carry.params, carry.obs)[2][None]]), inverse=True)
        advantages = compute_gae(values[:-1], values[1:], rollout.reward,
                                 args.gamma * (1.0 - rollout.terminated),
                                 1.0 - (rollout.terminated | rollout.truncated), args.gae_lambda)
        returns, values = advantages + values[:-1], values[:-1]
        if args.norm_adv:  # by the mean and std of the steps trained on (from empty statistics)
            advantages = standardize(rms_update(RunningStats(0.0, 1.0, 0.0), advantages.ravel(),
                                                rollout.mask.ravel()), advantages)
        value_rms = rms_update(carry.value_rms, returns.reshape(-1), rollout.mask.reshape(-1))
        batch = jax.tree.map(lambda x: x.reshape(batch_size, *x.shape[2:]), Batch(
            rollout.obs, rollout.action, rollout.logprob, rollout.mean, jnp.broadcast_to(
                carry.params["params"]["actor_logstd"], rollout.mean.shape), advantages,
            standardize(value_rms, returns), standardize(value_rms, values), rollout.mask))

        # UPDATE NETWORK: epochs of shuffled minibatches, the learning rate adapted after each
        def minibatch_update(state, indices):
            carry, batch = state
            (_, aux), grads = jax.value_and_grad(ppo_loss, has_aux=True)(
                carry.params, jax.tree.map(lambda x: x[indices], batch))
            mean_action, logstd = aux.pop("policy")  # the next pass's reference for these samples
            batch = batch._replace(mean=batch.mean.at[indices].set(mean_action),
                                   logstd=batch.logstd.at[indices].set(logstd))
            updates, opt_state = tx.update(grads, carry.opt_state)
            lr, kl = carry.learning_rate, aux["pass_kl"]
            params = optax.apply_updates(carry.params, jax.tree.map(lambda u: -lr * u, updates))
            if args.kl_threshold is not None:  # rl_games' adaptive schedule
                lr = jnp.where(kl > 2 * args.kl_threshold, jnp.maximum(lr / 1.5, 1e-6), lr)
                lr = jnp.where(kl < 0.5 * args.kl_threshold, jnp.minimum(lr * 1.5, 1e-2), lr)
            carry = carry._replace(params=params, opt_state=opt_state, learning_rate=lr)
            return (carry, batch), aux

        def epoch_update(state, epoch_key):  # shuffled minibatches
            order = jax.random.permutation(epoch_key, batch_size)
            return jax.lax.scan(minibatch_update, state, order.reshape(args.num_minibatches, -1))

        (carry, _), metrics = jax.lax.scan(epoch_update, (carry._replace(value_rms=value_rms),
                                           batch), jax.random.split(update_key, args.update_epochs))
        explained_var = 1 - jnp.var(returns - values) / jnp.var(returns)
        metrics = {name: value[-1].mean() for name, value in metrics.items()} | {
            "explained_variance": explained_var, "learning_rate": carry.learning_rate}
        return carry, (metrics, (rollout.reward, rollout.terminated, rollout.truncated,
                                 rollout.env_id, rollout.elapsed_step))

    iteration = jax.jit(iteration, donate_argnums=0)

    # TRY NOT TO MODIFY: start the game
    global_step, start_time = 0, time.time()
    obs_rms = RunningStats(jnp.zeros(obs_dim), jnp.ones(obs_dim), jnp.float32(1e-4))
    value_rms = RunningStats(jnp.float32(0.0), jnp.float32(1.0), jnp.float32(1e-4))
    first_obs = jnp.asarray(envs.reset()[0], jnp.float32)
    obs_rms = rms_update(obs_rms, first_obs, jnp.ones(args.num_envs))
    carry = Carry(handle, params, tx.init(params), jnp.float32(args.learning_rate),
                  normalize(obs_rms, first_obs), jnp.zeros(args.num_envs), obs_rms, value_rms, key)
    episode_return = np.zeros(args.num_envs)
    avg_returns = deque(maxlen=100)
    progress = tqdm(range(num_iterations), unit="iteration", dynamic_ncols=True)
    for _ in progress:
        carry, (metrics, episodes) = iteration(carry)
        reward, terminated, truncated, env_id, elapsed = jax.device_get(episodes)
        for step in range(args.num_steps):
            global_step += args.num_envs
            for _, episodic_return, episodic_length in zip(*update_episode_stats(
                    episode_return, reward[step], terminated[step], truncated[step],
                    {"env_id": env_id[step], "elapsed_step": elapsed[step]}), strict=True):
                avg_returns.append(episodic_return)
                writer.add_scalar("charts/episodic_return", episodic_return, global_step)
                writer.add_scalar("charts/episodic_length", episodic_length, global_step)
        # TRY NOT TO MODIFY: record rewards for plotting purposes
        metrics = jax.device_get(metrics)
        writer.add_scalar("charts/learning_rate", metrics.pop("learning_rate"), global_step)
        for name, value in metrics.items():
            writer.add_scalar(f"losses/{name}", value, global_step)
        sps = int(global_step / (time.time() - start_time))
        writer.add_scalar("charts/SPS", sps, global_step)
        if avg_returns:
            writer.add_scalar("charts/avg_episodic_return", np.mean(avg_returns), global_step)
        progress.set_postfix(SPS=sps, avg_return=np.mean(avg_returns) if avg_returns else None)

    envs.close()
    params, obs_rms = jax.device_get((carry.params, carry.obs_rms))
    if args.save_model:
        model_path = f"runs/{run_name}/{args.exp_name}.cleanrl_model"
        with open(model_path, "wb") as f:
            f.write(flax.serialization.msgpack_serialize({
                "args": json.dumps(vars(args)), "params": params, "obs_rms": obs_rms._asdict()}))
        print(f"model saved to {model_path}")
    if args.save_model or args.capture_video:
        act = evaluation_policy(agent, params, obs_rms, args.seed, low, high)
        results = evaluate(act, args.env_id, args.eval_episodes, args.seed,
                           args.max_episode_steps, video_dir)
        for i, (ret, length) in enumerate(results):
            writer.add_scalar("eval/episodic_return", ret, i)
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
    writer.close()
