r"""PPO with continuous actions on MuJoCo with envpool_core, in one file: CleanRL's
ppo_continuous_action.py on a vectorized engine, time limits fixed.

    python ppo_mujoco_envpool.py --env-id HalfCheetah-v4 --total-timesteps 1000000
    python ppo_mujoco_envpool.py --save-model                       # save, then evaluate
    python ppo_mujoco_envpool.py --eval-checkpoint runs/RUN/ppo_mujoco_envpool.cleanrl_model \
        --eval-episodes 5 --capture-video                           # evaluate, MP4s in videos/
    tensorboard --logdir runs

Unlike CleanRL's script: 8 envs x 256 steps make its batch of 2048 (1 env x 2048; change both
together). The engine has no wrappers, so observation and reward normalisation (running stats,
clip +-10) and action clipping are here; the observation statistics are saved with the model
and used, frozen, by evaluation (which acts with the policy's mean). The time limit (1000
steps) is not a terminal state: the value target bootstraps from the last observation's value
instead of 0, and episode statistics restart after it.
"""

import os
import random
import sys
import time
from collections import deque
from dataclasses import dataclass
from difflib import get_close_matches

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import tyro
from torch.distributions.normal import Normal
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import envpool_core as envpool


@dataclass
class Args:
    exp_name: str = os.path.basename(__file__)[: -len(".py")]
    """the name of this experiment"""
    seed: int = 1
    """seed of the experiment (env i is seeded with seed + i)"""
    torch_deterministic: bool = True
    """if toggled, `torch.backends.cudnn.deterministic=True`"""
    cuda: bool = True
    """if toggled, cuda will be used when it is available"""
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
    """if set, do not train: load this checkpoint and play `eval_episodes` episodes"""
    eval_episodes: int = 10
    """the number of episodes (one per env, played in parallel) of an evaluation"""

    # Algorithm specific arguments
    env_id: str = "HalfCheetah-v4"
    """the id of the environment"""
    total_timesteps: int = 1000000
    """total timesteps of the experiments"""
    learning_rate: float = 3e-4
    """the learning rate of the optimizer"""
    num_envs: int = 8
    """the number of parallel game environments (8 x 256 steps = CleanRL's 1 x 2048)"""
    num_steps: int = 256
    """the number of steps to run in each environment per policy rollout"""
    max_episode_steps: int | None = None
    """the time limit in steps (None: the engine's default, 1000 for most tasks)"""
    anneal_lr: bool = True
    """Toggle learning rate annealing for policy and value networks"""
    gamma: float = 0.99
    """the discount factor gamma"""
    gae_lambda: float = 0.95
    """the lambda for the general advantage estimation"""
    num_minibatches: int = 32
    """the number of mini-batches"""
    update_epochs: int = 10
    """the K epochs to update the policy"""
    norm_adv: bool = True
    """Toggles advantages normalization"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """Toggles whether or not to use a clipped loss for the value function, as per the paper."""
    ent_coef: float = 0.0
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 0.5
    """the maximum norm for the gradient clipping"""
    target_kl: float | None = None
    """the target KL divergence threshold"""

    # to be filled in runtime
    batch_size: int = 0
    """the batch size (computed in runtime)"""
    num_iterations: int = 0
    """the number of iterations (computed in runtime)"""


def make_env(env_id, num_envs, seed, max_episode_steps=None):
    # Sync mode: every step returns all envs, in env order.
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, batch_size=num_envs,
                        seed=seed, **limit)


class RunningMeanStd:
    """Running mean and variance of a stream of batches, as in gymnasium's normalize wrappers."""

    def __init__(self, shape=()):
        self.mean, self.var, self.count = np.zeros(shape), np.ones(shape), 1e-4

    def update(self, x):
        if len(x):  # Chan et al.'s parallel algorithm: merge the batch's moments into ours
            n, delta, total = len(x), x.mean(0) - self.mean, self.count + len(x)
            m2 = self.var * self.count + x.var(0) * n + delta**2 * self.count * n / total
            self.mean, self.var, self.count = self.mean + delta * n / total, m2 / total, total

    def state_dict(self):  # tensors, which torch.load(weights_only=True) accepts
        return {key: torch.as_tensor(value) for key, value in vars(self).items()}

    def load_state_dict(self, state):
        self.mean, self.var, self.count = (state[k].numpy() for k in ("mean", "var", "count"))


def normalize_obs(obs, obs_rms, update=True):
    if update:
        obs_rms.update(obs)
    return np.clip((obs - obs_rms.mean) / np.sqrt(obs_rms.var + 1e-8), -10, 10).astype(np.float32)


def layer_init(layer, std=2**0.5, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        obs_dim = int(np.prod(envs.observation_space.shape))
        action_dim = int(np.prod(envs.action_space.shape))
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, action_dim), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, action_dim))

    def get_action_and_value(self, x, action=None):
        action_mean = self.actor_mean(x)
        action_logstd = self.actor_logstd.expand_as(action_mean)
        action_std = torch.exp(action_logstd)
        probs = Normal(action_mean, action_std)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


def compute_gae(rewards, values, terminations, truncations, next_value, gamma, gae_lambda):
    """GAE for a sync rollout of shape (num_steps, num_envs), for next-step auto-reset.

    Step t acted on obs[t] and got rewards[t], terminations[t], truncations[t] and obs[t+1]
    (next_value is V of next_obs, after the last step). With next-step auto-reset, obs[t+1] is
    the episode's final observation when it ends at t. Terminated: the target is r_t. Truncated
    (time limit): r_t + gamma V(obs[t+1]), a bootstrap, not 0 as in CleanRL. Either stops the
    GAE sum. Step t+1 then acts on that final observation, an action the engine ignores while
    it resets: no transition, and the caller leaves it out of training.
    """
    advantages = np.zeros_like(rewards)
    dones = terminations | truncations
    lastgaelam = 0.0
    for t in reversed(range(len(rewards))):
        nextvalues = values[t + 1] if t + 1 < len(rewards) else next_value
        delta = rewards[t] + gamma * nextvalues * (1.0 - terminations[t]) - values[t]
        advantages[t] = lastgaelam = delta + gamma * gae_lambda * (1.0 - dones[t]) * lastgaelam
    return advantages


def update_episode_stats(episode_return, episode_length, reward, counted, done):
    """Adds one step of all envs to their running sums (arrays updated in place); returns (env
    ids, returns, lengths) of the episodes that ended.

    counted is False for an output that follows a done: the reset, whose action was ignored.
    The sums restart at any episode end; CleanRL restarted them only at termination, so the
    episode after a time limit inherited the old sums.
    """
    episode_return += np.where(counted, reward, 0.0)
    episode_length += counted
    ended = np.nonzero(done)[0]
    finished = (ended, episode_return[ended].copy(), episode_length[ended].copy())
    episode_return[ended], episode_length[ended] = 0.0, 0
    return finished


def evaluate(agent, obs_rms, env_id, num_episodes, seed, device, max_episode_steps=None,
             video_dir=None):
    """Plays one episode in each of num_episodes envs with the policy's mean action, normalising
    observations with the training statistics, frozen."""
    envs = make_env(env_id, num_episodes, seed, max_episode_steps)
    low, high = envs.action_space.low, envs.action_space.high
    episode_return, episode_length = np.zeros(num_episodes), np.zeros(num_episodes, np.int64)
    done = np.zeros(num_episodes, dtype=bool)
    returns, lengths = [None] * num_episodes, [None] * num_episodes
    writers = {}
    next_obs, _ = envs.reset()
    if video_dir is not None:
        try:
            envs.render(np.arange(num_episodes))
        except Exception as e:  # the engine may not render this task
            print(f"--capture-video: no video, the engine cannot render {env_id}: {e}")
        else:
            import imageio

            os.makedirs(video_dir, exist_ok=True)
            writers = {i: imageio.get_writer(f"{video_dir}/episode-{i}.mp4", fps=30,
                                             macro_block_size=1) for i in range(num_episodes)}

    def record_frames():
        playing = np.array(sorted(writers), dtype=np.int32)
        for i, frame in zip(playing, envs.render(playing) if writers else [], strict=True):
            writers[i].append_data(frame)

    record_frames()
    while any(x is None for x in returns):
        with torch.no_grad():
            x = torch.as_tensor(normalize_obs(next_obs, obs_rms, update=False), device=device)
            action = agent.actor_mean(x).cpu().numpy()
        next_obs, reward, terminated, truncated, _ = envs.step(np.clip(action, low, high))
        record_frames()
        counted, done = ~done, terminated | truncated
        for i, ret, length in zip(*update_episode_stats(
            episode_return, episode_length, reward, counted, done
        ), strict=True):
            if returns[i] is None:
                returns[i], lengths[i] = float(ret), int(length)
                if i in writers:
                    writers.pop(i).close()
    envs.close()
    return returns, lengths


if __name__ == "__main__":
    args = tyro.cli(Args)
    if args.track:
        try:
            import wandb
        except ImportError:
            sys.exit("error: --track needs Weights & Biases, not installed: pip install wandb")
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
    if args.eval_checkpoint is not None:
        checkpoint = torch.load(args.eval_checkpoint, map_location="cpu", weights_only=True)
        args.env_id, args.max_episode_steps = checkpoint["env_id"], checkpoint["max_episode_steps"]
    if args.env_id not in envpool.list_all_envs():
        close = get_close_matches(args.env_id, envpool.list_all_envs(), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        sys.exit(f"error: unknown --env-id {args.env_id!r}{hint}")
    spec = envpool.make_spec(args.env_id)
    if len(spec.observation_space.shape) != 1 or not hasattr(spec.action_space, "low"):
        sys.exit(f"error: {args.env_id} is not a continuous-control task (vector obs, box actions)")
    if args.eval_episodes < 1:
        sys.exit("error: --eval-episodes must be at least 1")
    torch.backends.cudnn.deterministic = args.torch_deterministic
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    video_dir = f"videos/{run_name}" if args.capture_video else None

    if args.eval_checkpoint is not None:
        agent = Agent(spec).to(device)
        agent.load_state_dict(checkpoint["model"])
        obs_rms = RunningMeanStd()
        obs_rms.load_state_dict(checkpoint["obs_rms"])
        returns, lengths = evaluate(agent, obs_rms, args.env_id, args.eval_episodes, args.seed,
                                    device, args.max_episode_steps, video_dir)
        for i, (ret, length) in enumerate(zip(returns, lengths, strict=True)):
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
        print(f"mean_episodic_return={np.mean(returns)}")
        sys.exit(0)

    args.batch_size = int(args.num_envs * args.num_steps)
    if args.num_minibatches < 1 or args.batch_size % args.num_minibatches != 0:
        sys.exit(f"error: the batch (--num-envs x --num-steps = {args.batch_size}) is not "
                 f"divisible by --num-minibatches={args.num_minibatches}")
    args.num_iterations = args.total_timesteps // args.batch_size
    if args.num_iterations < 1:
        sys.exit(f"error: --total-timesteps must be at least one batch, {args.batch_size}")
    if args.track:
        wandb.init(project=args.wandb_project_name, entity=args.wandb_entity,
                   sync_tensorboard=True, config=vars(args), name=run_name, save_code=True)
    writer = SummaryWriter(f"runs/{run_name}")
    table = "\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    envs = make_env(args.env_id, args.num_envs, args.seed, args.max_episode_steps)
    low, high = envs.action_space.low, envs.action_space.high
    agent = Agent(envs).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    obs_rms, return_rms = RunningMeanStd(envs.observation_space.shape), RunningMeanStd()

    # ALGO Logic: Storage setup
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros((*shape, *envs.observation_space.shape), device=device)
    actions = torch.zeros((*shape, *envs.action_space.shape), device=device)
    logprobs = torch.zeros(shape, device=device)
    values, rewards = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
    terminations, truncations = np.zeros(shape, bool), np.zeros(shape, bool)
    ignored = np.zeros(shape, bool)  # obs[t] is a final observation: the action is ignored

    episode_return, episode_length = np.zeros(args.num_envs), np.zeros(args.num_envs, np.int64)
    next_done = np.zeros(args.num_envs, dtype=bool)
    discounted_return = np.zeros(args.num_envs)  # for the reward scale, as gym's NormalizeReward
    recent_returns = deque(maxlen=20)

    global_step = 0
    start_time = time.time()
    next_obs = normalize_obs(envs.reset()[0], obs_rms)
    progress = tqdm(total=args.num_iterations * args.batch_size, unit="step", dynamic_ncols=True)
    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(0, args.num_steps):
            global_step += args.num_envs
            obs[step] = torch.as_tensor(next_obs, device=device)
            ignored[step] = next_done

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(obs[step])
            actions[step], logprobs[step] = action, logprob
            values[step] = value.flatten().cpu().numpy()

            # The Gaussian sample is unbounded; the engine only accepts actions in the box.
            raw_obs, reward, terminated, truncated, _ = envs.step(
                np.clip(action.cpu().numpy().astype(np.float64), low, high)
            )
            counted = ~next_done
            next_done = terminated | truncated
            next_obs = normalize_obs(raw_obs, obs_rms)
            terminations[step], truncations[step] = terminated, truncated

            # Scale rewards by the std of the discounted return (not of the reward), clip +-10.
            discounted_return[counted] = discounted_return[counted] * args.gamma + reward[counted]
            return_rms.update(discounted_return[counted])
            discounted_return[next_done] = 0.0
            rewards[step] = np.clip(reward / np.sqrt(return_rms.var + 1e-8), -10, 10)

            for _, ret, length in zip(*update_episode_stats(
                episode_return, episode_length, reward, counted, next_done
            ), strict=True):
                recent_returns.append(ret)
                writer.add_scalar("charts/episodic_return", ret, global_step)
                writer.add_scalar("charts/episodic_length", length, global_step)

        with torch.no_grad():
            next_value = agent.critic(torch.as_tensor(next_obs, device=device)).cpu().numpy()
        advantages = compute_gae(rewards, values, terminations, truncations, next_value[:, 0],
                                 args.gamma, args.gae_lambda)

        # flatten the batch, keeping only real transitions
        b_inds = np.nonzero(~ignored.reshape(-1))[0]
        b_obs = obs.reshape((-1, *envs.observation_space.shape))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1, *envs.action_space.shape))
        b_advantages = torch.as_tensor(advantages.reshape(-1), device=device)
        b_values = torch.as_tensor(values.reshape(-1), device=device)
        b_returns = b_advantages + b_values

        # Optimizing the policy and value network
        clipfracs = []
        for _epoch in range(args.update_epochs):
            for mb_inds in np.array_split(np.random.permutation(b_inds), args.num_minibatches):
                mb_inds = torch.as_tensor(mb_inds, device=device)
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_actions[mb_inds]
                )
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_adv = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

                # Policy loss
                pg_loss1 = -mb_adv * ratio
                pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values[b_inds].cpu().numpy(), b_returns[b_inds].cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        sps = int(global_step / (time.time() - start_time))
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        writer.add_scalar("charts/SPS", sps, global_step)
        progress.update(global_step - progress.n)
        recent = f"{np.mean(recent_returns):.1f}" if recent_returns else "n/a"
        progress.set_postfix(global_step=global_step, SPS=sps, ret=recent)
    progress.close()
    envs.close()

    if args.save_model or args.capture_video:
        if args.save_model:
            model_path = f"runs/{run_name}/{args.exp_name}.cleanrl_model"
            torch.save({"model": agent.state_dict(), "obs_rms": obs_rms.state_dict(),
                        "return_rms": return_rms.state_dict(), "env_id": args.env_id,
                        "max_episode_steps": args.max_episode_steps, "args": vars(args)},
                       model_path)
            print(f"model saved to {model_path}")
        returns, _ = evaluate(agent, obs_rms, args.env_id, args.eval_episodes, args.seed, device,
                              args.max_episode_steps, video_dir)
        for idx, episodic_return in enumerate(returns):
            writer.add_scalar("eval/episodic_return", episodic_return, idx)
        print(f"eval episodic returns: {returns}")
    writer.close()
