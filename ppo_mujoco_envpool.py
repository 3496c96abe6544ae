r"""PPO with continuous actions on MuJoCo and the DeepMind Control Suite with envpool_core:
CleanRL's ppo_continuous_action.py, its batch as 8 envs x 256 steps, three fixes. A time limit
is not a terminal state: the value target bootstraps from V(final observation), and the return
that scales rewards restarts there; the step after an episode end, whose action the engine
ignores while it resets the env, is not trained on. The engine has no wrappers, so observation
flattening and normalisation, reward normalisation and action clipping are written out here."""

import os
import random
import sys
import time
from collections import deque
from dataclasses import dataclass

import gymnasium as gym
import imageio
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
    """if toggled, cuda will be enabled by default"""
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
    env_id: str = "HalfCheetah-v4"
    """the id of the environment"""
    total_timesteps: int = 1000000
    """total timesteps of the experiments"""
    learning_rate: float = 3e-4
    """the learning rate of the optimizer"""
    num_envs: int = 8
    """the number of parallel game environments"""
    num_steps: int = 256
    """the number of steps to run in each environment per policy rollout"""
    max_episode_steps: int | None = None
    """the time limit in agent steps (None: the task's, 27000 on Atari, 1000 on most of MuJoCo)"""
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


def make_env(env_id, num_envs, batch_size, seed, max_episode_steps=None):
    # No wrappers: CleanRL's (normalisation, action clipping) are in the training loop.
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, batch_size=batch_size,
                        seed=seed, **limit)


def layer_init(layer, std=2**0.5, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class RunningMeanStd(nn.Module):
    """Running mean and variance of a stream of batches, as in gymnasium's normalize wrappers;
    buffers, so that a checkpoint of the Agent carries its observation statistics."""

    def __init__(self, shape=()):
        super().__init__()
        self.register_buffer("mean", torch.zeros(shape, dtype=torch.float64))
        self.register_buffer("var", torch.ones(shape, dtype=torch.float64))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))

    def update(self, x):
        x = torch.as_tensor(x, dtype=torch.float64, device=self.mean.device)
        if len(x):  # Chan et al.'s parallel algorithm: merge the batch's moments into ours
            delta, total = x.mean(0) - self.mean, self.count + len(x)
            self.var.copy_((self.var * self.count + x.var(0, correction=0) * len(x)
                            + delta**2 * self.count * len(x) / total) / total)
            self.mean += delta * len(x) / total
            self.count.fill_(total)

    def normalize(self, x, update=True):
        if update:
            self.update(x)
        return torch.clamp((x - self.mean) / torch.sqrt(self.var + 1e-8), -10, 10).float()


def flat_obs(obs):
    """The observation as one row per env: an array flattened, or a dm_control task's dict of
    arrays concatenated in the sorted order of its keys (gymnasium's flatten order)."""
    arrays = [obs[key] for key in sorted(obs)] if isinstance(obs, dict) else [obs]
    return np.concatenate([array.reshape(len(array), -1) for array in arrays], axis=1)


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        n_obs, n_act = gym.spaces.flatdim(envs.observation_space), np.prod(envs.action_space.shape)
        self.obs_rms = RunningMeanStd((n_obs,))
        self.critic = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, n_act), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, n_act))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        action_mean = self.actor_mean(x)
        action_logstd = self.actor_logstd.expand_as(action_mean)
        action_std = torch.exp(action_logstd)
        probs = Normal(action_mean, action_std)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


def compute_gae(rewards, values, terminations, truncations, next_value, gamma, gae_lambda):
    """CleanRL's backwards GAE loop over the steps (axis 0), time limits fixed: where step t ends
    an episode, values[t + 1] (or next_value) is V(final obs), bootstrapped if truncated only."""
    advantages = np.zeros_like(rewards)
    lastgaelam = 0.0
    for t in reversed(range(len(rewards))):
        nextvalues = next_value if t == len(rewards) - 1 else values[t + 1]
        delta = rewards[t] + gamma * nextvalues * (1.0 - terminations[t]) - values[t]
        episode_goes_on = 1.0 - (terminations[t] | truncations[t])
        advantages[t] = lastgaelam = delta + gamma * gae_lambda * episode_goes_on * lastgaelam
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


if __name__ == "__main__":
    args = tyro.cli(Args)
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
    @torch.no_grad()
    def act(obs):  # the observation statistics are frozen; actions are clipped as in training
        x = agent.obs_rms.normalize(torch.as_tensor(flat_obs(obs), device=device), update=False)
        return np.clip(agent.get_action_and_value(x)[0].cpu().numpy(), low, high)
    if args.eval_checkpoint is not None:  # no training: evaluate it on the task it learned
        checkpoint = torch.load(args.eval_checkpoint, map_location=device, weights_only=True)
        vars(args).update({key: checkpoint["args"][key] for key in ("env_id", "max_episode_steps")})
        spec = envpool.make_spec(args.env_id)  # what Agent and act need of the envs: their spaces
        low, high = spec.action_space.low, spec.action_space.high
        agent = Agent(spec).to(device)
        agent.load_state_dict(checkpoint["model"])
        run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
        video_dir = f"videos/{run_name}" if args.capture_video else None
        for i, (ret, length) in enumerate(evaluate(act, args.env_id, args.eval_episodes, args.seed,
                                                   args.max_episode_steps, video_dir)):
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
        sys.exit(0)
    args.batch_size = int(args.num_envs * args.num_steps)
    if args.num_steps < 2 or args.batch_size < 8 * args.num_minibatches:  # see docs/scripts.md
        sys.exit("error: need --num-steps >= 2, --num-envs x --num-steps >= 8 x --num-minibatches")
    args.num_iterations = args.total_timesteps // args.batch_size
    envs = make_env(args.env_id, args.num_envs, args.num_envs, args.seed, args.max_episode_steps)
    if not isinstance(envs.action_space, gym.spaces.Box):
        sys.exit(f"error: {args.env_id} is not a continuous-control task (box actions)")
    if args.capture_video:  # render() is tried now, not after training: no render(), no EGL
        envs.render([0])
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    video_dir = f"videos/{run_name}" if args.capture_video else None
    if args.track:
        import wandb
        wandb.init(project=args.wandb_project_name, entity=args.wandb_entity,
                   sync_tensorboard=True, config=vars(args), name=run_name, save_code=True)
    writer = SummaryWriter(f"runs/{run_name}")
    table = "\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    # TRY NOT TO MODIFY: seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic

    low, high = envs.action_space.low, envs.action_space.high
    agent = Agent(envs).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: Storage setup. obs[t] arrives with dones[t]; rewards[t] & co. are its outcome.
    obs = torch.zeros((args.num_steps, args.num_envs, *agent.obs_rms.mean.shape), device=device)
    actions = torch.zeros((args.num_steps, args.num_envs, *envs.action_space.shape), device=device)
    logprobs = torch.zeros((args.num_steps, args.num_envs), device=device)
    rewards, values = np.zeros((2, args.num_steps, args.num_envs), dtype=np.float32)
    dones = np.zeros((args.num_steps, args.num_envs), dtype=bool)
    terminations, truncations = np.zeros((2, args.num_steps, args.num_envs), dtype=bool)
    episode_return, discounted_return = np.zeros((2, args.num_envs))  # the latter to scale rewards
    avg_returns = deque(maxlen=20)
    return_rms = RunningMeanStd()  # of the discounted return, to scale rewards (NormalizeReward)

    # TRY NOT TO MODIFY: start the game
    global_step = 0
    start_time = time.time()
    next_obs = agent.obs_rms.normalize(torch.as_tensor(flat_obs(envs.reset()[0]), device=device))
    next_done = np.zeros(args.num_envs, dtype=bool)
    progress = tqdm(range(1, args.num_iterations + 1), unit="iteration", dynamic_ncols=True)

    for iteration in progress:
        # Annealing the rate if instructed to do so.
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(0, args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            dones[step] = next_done

            # ALGO LOGIC: action logic
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten().cpu().numpy()
            actions[step] = action
            logprobs[step] = logprob

            # TRY NOT TO MODIFY: execute the game and log data.
            # The Gaussian sample is unbounded; the env gets it clipped to the box (ClipAction).
            next_obs, reward, terminated, truncated, info = envs.step(
                np.clip(action.cpu().numpy(), low, high))
            terminations[step], truncations[step] = terminated, truncated
            next_done = terminated | truncated
            next_obs = agent.obs_rms.normalize(torch.as_tensor(flat_obs(next_obs), device=device))
            # Scale rewards by the std of the discounted return (not of the reward), clip +-10.
            # The return restarts after an episode end; reset steps (reward 0) are not counted.
            discounted_return = discounted_return * args.gamma * ~dones[step] + reward
            return_rms.update(discounted_return[~dones[step]])
            rewards[step] = np.clip(reward / np.sqrt(return_rms.var.item() + 1e-8), -10, 10)

            for _, episodic_return, episodic_length in zip(*update_episode_stats(
                    episode_return, reward, terminated, truncated, info), strict=True):
                avg_returns.append(episodic_return)
                writer.add_scalar("charts/episodic_return", episodic_return, global_step)
                writer.add_scalar("charts/episodic_length", episodic_length, global_step)

        with torch.no_grad():  # bootstrap value (compute_gae drops it after a termination)
            next_value = agent.get_value(next_obs).flatten().cpu().numpy()
        advantages = compute_gae(rewards, values, terminations, truncations, next_value,
                                 args.gamma, args.gae_lambda)

        # flatten the batch
        b_obs = obs.reshape((-1, obs.shape[-1]))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1, *envs.action_space.shape))
        b_advantages = torch.as_tensor(advantages.reshape(-1), device=device)
        b_values = torch.as_tensor(values.reshape(-1), device=device)
        b_returns = b_advantages + b_values

        # Optimizing the policy and value network, on the steps whose action the engine used
        b_inds = np.nonzero(~dones.reshape(-1))[0]
        for _epoch in range(args.update_epochs):
            epoch_losses = []  # each minibatch's: losses/* log the last epoch's mean
            for mb_inds in np.array_split(np.random.permutation(b_inds), args.num_minibatches):
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds],
                                                                              b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfrac = ((ratio - 1.0).abs() > args.clip_coef).float().mean()

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_advantages = ((mb_advantages - mb_advantages.mean())
                                     / (mb_advantages.std() + 1e-8))

                # Policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + (newvalue - b_values[mb_inds]).clamp(
                        -args.clip_coef, args.clip_coef)
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
                epoch_losses.append(torch.stack([v_loss, pg_loss, entropy_loss, old_approx_kl,
                                                 approx_kl, clipfrac]).detach())

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values[b_inds].cpu().numpy(), b_returns[b_inds].cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        # TRY NOT TO MODIFY: record rewards for plotting purposes
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        names = ("value_loss", "policy_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac")
        for name, value in zip(names, torch.stack(epoch_losses).mean(0).tolist(), strict=True):
            writer.add_scalar(f"losses/{name}", value, global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        sps = int(global_step / (time.time() - start_time))
        writer.add_scalar("charts/SPS", sps, global_step)
        progress.set_postfix(SPS=sps, avg_return=np.average(avg_returns) if avg_returns else None)

    envs.close()
    if args.save_model:
        model_path = f"runs/{run_name}/{args.exp_name}.cleanrl_model"
        torch.save({"model": agent.state_dict(), "args": vars(args)}, model_path)
        print(f"model saved to {model_path}")
    if args.save_model or args.capture_video:
        for i, (ret, length) in enumerate(evaluate(act, args.env_id, args.eval_episodes, args.seed,
                                                   args.max_episode_steps, video_dir)):
            writer.add_scalar("eval/episodic_return", ret, i)
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
    writer.close()
