r"""PPO with continuous actions on MuJoCo with envpool_core, in one file: CleanRL's
ppo_continuous_action.py on a vectorized engine, three fixes.

    python ppo_mujoco_envpool.py --env-id HalfCheetah-v4 --save-model  # train, save, evaluate
    python ppo_mujoco_envpool.py --eval-checkpoint runs/RUN/ppo_mujoco_envpool.cleanrl_model \
        --eval-episodes 5 --capture-video                           # evaluate, MP4s in videos/

Unlike CleanRL's, the time limit (1000 steps for most tasks) is not a terminal state: the value
target bootstraps from V(final observation), not 0, and the discounted return that scales rewards
restarts after it too; and the step after an episode end, whose action the engine ignores while
it resets the env, is left out of the loss. 8 envs x 256 steps make CleanRL's batch of 1 x 2048.
The engine has no wrappers, so observation and reward normalisation (running statistics, clip
+-10) and action clipping are here; the observation statistics are buffers of the Agent, saved
with it.
"""

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
    """if set, do not train: load this checkpoint and play `eval_episodes` episodes of the task it
    learned (its env id and time limit replace --env-id and --max-episode-steps)"""
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
            batch_count, delta, total = len(x), x.mean(0) - self.mean, self.count + len(x)
            m2 = (self.var * self.count + x.var(0, correction=0) * batch_count
                  + delta**2 * self.count * batch_count / total)
            self.mean += delta * batch_count / total
            self.var.copy_(m2 / total)
            self.count.fill_(total)

    def normalize(self, x, update=True):
        if update:
            self.update(x)
        return torch.clamp((x - self.mean) / torch.sqrt(self.var + 1e-8), -10, 10).float()


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        obs_dim = int(np.prod(envs.observation_space.shape))
        action_dim = int(np.prod(envs.action_space.shape))
        self.obs_rms = RunningMeanStd(envs.observation_space.shape)
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, action_dim), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, action_dim))

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
    """CleanRL's backwards GAE loop over a rollout's steps (axis 0), with time limits fixed.

    Step t's outcome is rewards[t], terminations[t], truncations[t] and the next observation, of
    value values[t + 1] (next_value after the last step). If step t ends an episode, that is its
    final observation (the engine resets one step later). Terminated: the target is r_t;
    truncated: r_t + gamma V(final observation), not 0 as in CleanRL. Either ends the sum at t."""
    advantages = np.zeros_like(rewards)
    lastgaelam = 0.0
    for t in reversed(range(len(rewards))):
        nextvalues = next_value if t == len(rewards) - 1 else values[t + 1]
        delta = rewards[t] + gamma * nextvalues * (1.0 - terminations[t]) - values[t]
        episode_goes_on = 1.0 - (terminations[t] | truncations[t])
        advantages[t] = lastgaelam = delta + gamma * gae_lambda * episode_goes_on * lastgaelam
    return advantages


def update_episode_stats(episode_return, reward, terminated, truncated, info):
    """Adds one step's rewards to the per-env running returns (updated in place); returns (env
    ids, returns, lengths) of the episodes that ended. On Atari an episode is the whole game: its
    unclipped rewards (info["reward"]) until the game is over (info["terminated"], not a lost
    life) or truncated; elsewhere the rewards until terminated or truncated. The length is the
    engine's elapsed_step, which skips the reset steps (reward 0). CleanRL's EnvPool scripts
    restarted the sums only at termination: an episode after a time limit inherited them."""
    env_id, game_over = info["env_id"], info.get("terminated", terminated).astype(bool) | truncated
    episode_return[env_id] += info.get("reward", reward)
    ended = env_id[game_over]
    finished = (ended, episode_return[ended].copy(), info["elapsed_step"][game_over])
    episode_return[ended] = 0.0
    return finished


def evaluate(act, env_id, num_episodes, seed, max_episode_steps=None, video_dir=None):
    """Plays one episode in each of num_episodes envs made as for training, with the actions
    act(observations) gives; returns each episode's (return, length), on Atari the unclipped
    score of the whole game. With video_dir, writes each episode as an MP4 of the engine's frames,
    first to last, in real time."""
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
    if args.eval_checkpoint is not None:  # no training: evaluate it on the task it learned
        try:  # whatever fails here, it is not a checkpoint that this script saved
            checkpoint = torch.load(args.eval_checkpoint, map_location=device, weights_only=True)
            saved, model = checkpoint["args"], checkpoint["model"]
            args.env_id, args.max_episode_steps = saved["env_id"], saved["max_episode_steps"]
        except Exception as e:
            sys.exit(f"error: --eval-checkpoint {args.eval_checkpoint} is not a checkpoint saved "
                     f"by this script ({type(e).__name__})")
    args.batch_size = int(args.num_envs * args.num_steps)
    for condition, message in (
        (min(args.num_envs, args.num_minibatches, args.update_epochs, args.eval_episodes) > 0,
         "--num-envs, --num-minibatches, --update-epochs and --eval-episodes must be at least 1"),
        # Reset steps are not trained on, and 2 steps per env leave at least a quarter of the
        # batch: 8 steps per minibatch leave 2, enough to normalise advantages.
        (args.num_steps > 1 and args.batch_size >= 8 * args.num_minibatches,
         f"--num-steps must be at least 2, and --num-envs x --num-steps ({args.batch_size}) "
         f"at least 8 x --num-minibatches ({8 * args.num_minibatches})"),
        (args.eval_checkpoint or args.total_timesteps >= args.batch_size,
         f"--total-timesteps must be at least one batch, {args.batch_size}"),
        (0 <= args.seed < 2**32, "--seed must be in [0, 2**32)"),
        # Each on its own: min() over several would pass a NaN that is not the first.
        (np.isfinite([args.learning_rate, args.clip_coef, args.ent_coef, args.vf_coef]).all()
         and args.learning_rate > 0 and args.clip_coef > 0 and args.max_grad_norm > 0
         and args.vf_coef >= 0 and 0 <= args.gamma <= 1 and 0 <= args.gae_lambda <= 1,
         "--learning-rate and --clip-coef must be finite and above 0, --max-grad-norm above 0, "
         "--vf-coef finite and at least 0, --ent-coef finite, --gamma and --gae-lambda in [0, 1]"),
        (args.exp_name and os.sep not in args.exp_name, "--exp-name must be a file name (no /)"),
    ):
        if not condition:
            sys.exit(f"error: {message}")
    args.num_iterations = 0 if args.eval_checkpoint else args.total_timesteps // args.batch_size
    try:  # the engine's errors name the faulty option; for an unknown id, they suggest close ones
        envs = make_env(args.env_id, args.num_envs, args.num_envs, args.seed,
                        args.max_episode_steps)
    except ValueError as e:
        sys.exit(f"error: {e}")
    if len(envs.observation_space.shape) != 1 or not isinstance(envs.action_space, gym.spaces.Box):
        sys.exit(f"error: {args.env_id} is not a continuous-control task (box actions)")
    if args.capture_video:  # render() is tried now, not after training: no render(), no EGL
        try:
            envs.render([0])
        except (RuntimeError, ValueError) as e:
            sys.exit(f"error: --capture-video: {e}")
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    if args.track:
        try:
            import wandb
        except ImportError:
            sys.exit("error: --track needs Weights & Biases, not installed: pip install wandb")
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
    if args.eval_checkpoint is not None:
        agent.load_state_dict(model)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: Storage setup. Step t: obs[t] arrived with dones[t], the action taken on it and
    # its outcome (rewards[t], terminations[t], truncations[t]). rewards & co. are numpy arrays.
    obs = torch.zeros((args.num_steps, args.num_envs, *envs.observation_space.shape), device=device)
    actions = torch.zeros((args.num_steps, args.num_envs, *envs.action_space.shape), device=device)
    logprobs = torch.zeros((args.num_steps, args.num_envs), device=device)
    rewards = np.zeros((args.num_steps, args.num_envs), dtype=np.float32)
    dones = np.zeros((args.num_steps, args.num_envs), dtype=bool)
    terminations = np.zeros((args.num_steps, args.num_envs), dtype=bool)
    truncations = np.zeros((args.num_steps, args.num_envs), dtype=bool)
    values = np.zeros((args.num_steps, args.num_envs), dtype=np.float32)
    episode_return = np.zeros(args.num_envs)
    avg_returns = deque(maxlen=20)
    return_rms = RunningMeanStd()  # of the discounted return, to scale rewards (NormalizeReward)
    discounted_return = np.zeros(args.num_envs)

    # TRY NOT TO MODIFY: start the game
    global_step = 0
    start_time = time.time()
    # A loaded checkpoint's observation statistics stay as they were: it is only evaluated.
    next_obs = agent.obs_rms.normalize(torch.as_tensor(envs.reset()[0], device=device),
                                       update=args.eval_checkpoint is None)
    next_done = np.zeros(args.num_envs, dtype=bool)
    progress = tqdm(range(1, args.num_iterations + 1), unit="iteration", dynamic_ncols=True)

    for iteration in progress:
        # Annealing the rate if instructed to do so.
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            lrnow = frac * args.learning_rate
            optimizer.param_groups[0]["lr"] = lrnow

        for step in range(0, args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            # A done here means obs[step] is a final observation: the engine will ignore the
            # action taken on it (it resets the env instead), so this step is not trained on.
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
            stepped = ~next_done  # False where the engine reset the env instead (reward 0)
            next_done = terminated | truncated
            next_obs = agent.obs_rms.normalize(torch.as_tensor(next_obs, device=device))
            # Scale rewards by the std of the discounted return (not of the reward), clip +-10.
            discounted_return[stepped] = discounted_return[stepped] * args.gamma + reward[stepped]
            return_rms.update(discounted_return[stepped])
            discounted_return[next_done] = 0.0
            rewards[step] = np.clip(reward / np.sqrt(return_rms.var.item() + 1e-8), -10, 10)

            for _, episodic_return, episodic_length in zip(*update_episode_stats(
                    episode_return, reward, terminated, truncated, info), strict=True):
                avg_returns.append(episodic_return)
                writer.add_scalar("charts/episodic_return", episodic_return, global_step)
                writer.add_scalar("charts/episodic_length", episodic_length, global_step)

        # bootstrap value (compute_gae drops it after a termination)
        with torch.no_grad():
            next_value = agent.get_value(next_obs).flatten().cpu().numpy()
        advantages = compute_gae(rewards, values, terminations, truncations, next_value,
                                 args.gamma, args.gae_lambda)

        # flatten the batch
        b_obs = obs.reshape((-1, *envs.observation_space.shape))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1, *envs.action_space.shape))
        b_advantages = torch.as_tensor(advantages.reshape(-1), device=device)
        b_values = torch.as_tensor(values.reshape(-1), device=device)
        b_returns = b_advantages + b_values

        # Optimizing the policy and value network, on the steps whose action the engine used
        b_inds = np.nonzero(~dones.reshape(-1))[0]
        clipfracs = []
        for _epoch in range(args.update_epochs):
            for mb_inds in np.array_split(np.random.permutation(b_inds), args.num_minibatches):
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds],
                                                                              b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

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

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values[b_inds].cpu().numpy(), b_returns[b_inds].cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        # TRY NOT TO MODIFY: record rewards for plotting purposes
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        sps = int(global_step / (time.time() - start_time))
        writer.add_scalar("charts/SPS", sps, global_step)
        progress.set_postfix(SPS=sps, avg_return=np.average(avg_returns) if avg_returns else None)

    envs.close()
    if args.save_model:
        model_path = f"runs/{run_name}/{args.exp_name}.cleanrl_model"
        torch.save({"model": agent.state_dict(), "args": vars(args)}, model_path)
        print(f"model saved to {model_path}")
    if args.save_model or args.capture_video or args.eval_checkpoint is not None:
        @torch.no_grad()
        def act(obs):  # the observation statistics are frozen; actions are clipped as in training
            x = agent.obs_rms.normalize(torch.as_tensor(obs, device=device), update=False)
            return np.clip(agent.get_action_and_value(x)[0].cpu().numpy(), low, high)

        results = evaluate(act, args.env_id, args.eval_episodes, args.seed, args.max_episode_steps,
                           f"videos/{run_name}" if args.capture_video else None)
        for i, (ret, length) in enumerate(results):
            writer.add_scalar("eval/episodic_return", ret, i)
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
    writer.close()
