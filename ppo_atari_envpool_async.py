r"""PPO on Atari with envpool_core's async mode, in one file: ppo_atari_envpool.py with recv/send.

    python ppo_atari_envpool_async.py --num-envs 24 --async-batch-size 8  # recv() gives 8 of 24

What differs from ppo_atari_envpool.py (`diff` the two files): recv() returns the first
--async-batch-size envs to finish, and actions go back to those envs with send(), so the
workers never wait for the slowest env. What arrives for an env is the outcome of its previous
row, which may sit in any earlier batch, even in the previous rollout. So the storage is rows in
arrival order with their env ids (not the [num_steps, num_envs] grid), GAE runs over each env's
own rows, and each env's last row, whose action is still in flight, opens the next rollout.
Same batch (num_envs x num_steps rows per rollout), same fixes, same evaluation (sync).
"""

import os
import random
import sys
import time
from collections import deque
from dataclasses import dataclass

import imageio
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import tyro
from torch.distributions.categorical import Categorical
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
    env_id: str = "Breakout-v5"
    """the id of the environment"""
    total_timesteps: int = 10000000
    """total timesteps of the experiments"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    num_envs: int = 8
    """the number of parallel game environments"""
    num_steps: int = 128
    """the number of steps to run in each environment per policy rollout"""
    async_batch_size: int = 4
    """envs returned by each recv(): 0 (all of the pool's envs) is sync mode, fewer is async mode"""
    max_episode_steps: int | None = None
    """the time limit in agent steps (None: the task's, 27000 on Atari, 1000 on most of MuJoCo)"""
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
    """Toggles advantages normalization"""
    clip_coef: float = 0.1
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """Toggles whether or not to use a clipped loss for the value function, as per the paper."""
    ent_coef: float = 0.01
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 0.5
    """the maximum norm for the gradient clipping"""
    target_kl: float | None = None
    """the target KL divergence threshold"""
    bf16: bool = False
    """run the CNN in bfloat16 (torch.autocast; fast on GPUs and on CPUs with AVX512-BF16)"""


def make_env(env_id, num_envs, batch_size, seed, max_episode_steps=None):
    # No wrappers: the engine does the DeepMind preprocessing CleanRL's ppo_atari.py wraps gym for
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, batch_size=batch_size,
                        episodic_life=True, reward_clip=True, seed=seed, **limit)


def layer_init(layer, std=2**0.5, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs, bf16=False):
        super().__init__()
        self.bf16 = bf16
        self.network = nn.Sequential(
            layer_init(nn.Conv2d(envs.observation_space.shape[0], 32, 8, stride=4)),
            nn.ReLU(),
            layer_init(nn.Conv2d(32, 64, 4, stride=2)),
            nn.ReLU(),
            layer_init(nn.Conv2d(64, 64, 3, stride=1)),
            nn.ReLU(),
            nn.Flatten(),
            layer_init(nn.Linear(64 * 7 * 7, 512)),
            nn.ReLU(),
        )
        self.actor = layer_init(nn.Linear(512, envs.action_space.n), std=0.01)
        self.critic = layer_init(nn.Linear(512, 1), std=1)

    def get_action_and_value(self, x, action=None):
        # --bf16: the CNN (nearly all the compute) in bfloat16; heads, log-probs, losses float32
        with torch.autocast(x.device.type, torch.bfloat16, enabled=self.bf16):
            hidden = self.network(x / 255.0).float()
        logits = self.actor(hidden)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)


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


def compute_gae_by_env(env_ids, last_row, rewards, values, terminations, truncations, gamma,
                       gae_lambda):
    """compute_gae over each env's own rows; the rows are in arrival order, env_ids[j] is the env
    of row j. last_row[env] is the env's last row, whose action is still in flight: it has no
    outcome yet, so it only gives the bootstrap value and gets no advantage here."""
    advantages = np.zeros_like(rewards)
    for env, last in enumerate(last_row):
        steps = np.nonzero(env_ids[:last] == env)[0]
        advantages[steps] = compute_gae(rewards[steps], values[steps], terminations[steps],
                                        truncations[steps], values[last], gamma, gae_lambda)
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
    def act(obs):  # sampled actions, as in CleanRL's evaluation
        return agent.get_action_and_value(torch.as_tensor(obs, device=device))[0].cpu().numpy()
    if args.eval_checkpoint is not None:  # no training: evaluate it on the task it learned
        checkpoint = torch.load(args.eval_checkpoint, map_location=device, weights_only=True)
        vars(args).update({key: checkpoint["args"][key] for key in ("env_id", "max_episode_steps")})
        agent = Agent(envpool.make_spec(args.env_id), args.bf16).to(device)
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
    args.async_batch_size = args.async_batch_size or args.num_envs
    if not 0 < args.async_batch_size <= args.num_envs or args.batch_size % args.async_batch_size:
        sys.exit(f"error: --async-batch-size ({args.async_batch_size}) must be in [0, --num-envs "
                 f"({args.num_envs})] and divide --num-envs x --num-steps = {args.batch_size}")
    envs = make_env(args.env_id, args.num_envs, args.async_batch_size, args.seed,
                    args.max_episode_steps)
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

    agent = Agent(envs, args.bf16).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: Storage setup. Rows in arrival order: first a slot per env, for its last row of
    # the previous rollout; then the rows of this rollout's recv() batches. Row j: obs[j] arrived
    # with dones[j], the action taken on it and its outcome (rewards[j], terminations[j],
    # truncations[j]), which arrives with the env's next row. rewards & co. are numpy arrays.
    num_rows = args.num_envs + args.batch_size
    obs = torch.zeros((num_rows, *envs.observation_space.shape), dtype=torch.uint8, device=device)
    actions = torch.zeros(num_rows, dtype=torch.long, device=device)
    logprobs = torch.zeros(num_rows, device=device)
    rewards = np.zeros(num_rows, dtype=np.float32)
    dones = np.ones(num_rows, dtype=bool)  # an empty slot is not a step: it is not trained on
    terminations = np.zeros(num_rows, dtype=bool)
    truncations = np.zeros(num_rows, dtype=bool)
    values = np.zeros(num_rows, dtype=np.float32)
    env_ids = np.concatenate([np.arange(args.num_envs), np.zeros(args.batch_size, np.int64)])
    last_row = np.arange(args.num_envs)  # each env's latest row: its action is in flight
    episode_return = np.zeros(args.num_envs)
    avg_returns = deque(maxlen=20)

    # TRY NOT TO MODIFY: start the game
    global_step = 0
    start_time = time.time()
    envs.async_reset()
    progress = tqdm(range(1, args.num_iterations + 1), unit="iteration", dynamic_ncols=True)

    for iteration in progress:
        # Annealing the rate if instructed to do so.
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            lrnow = frac * args.learning_rate
            optimizer.param_groups[0]["lr"] = lrnow

        for step in range(0, args.batch_size // args.async_batch_size):  # a step: one recv()
            # TRY NOT TO MODIFY: execute the game and log data.
            next_obs, reward, terminated, truncated, info = envs.recv()
            env_id = info["env_id"]
            global_step += len(env_id)
            # What arrived is the outcome of each env's last row.
            terminations[last_row[env_id]] = terminated
            truncations[last_row[env_id]] = truncated
            rewards[last_row[env_id]] = reward

            for _, episodic_return, episodic_length in zip(*update_episode_stats(
                    episode_return, reward, terminated, truncated, info), strict=True):
                avg_returns.append(episodic_return)
                writer.add_scalar("charts/episodic_return", episodic_return, global_step)
                writer.add_scalar("charts/episodic_length", episodic_length, global_step)

            rows = args.num_envs + step * args.async_batch_size + np.arange(len(env_id))
            last_row[env_id], env_ids[rows] = rows, env_id
            obs[rows] = torch.as_tensor(next_obs, device=device)
            dones[rows] = terminated | truncated

            # ALGO LOGIC: action logic
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(obs[rows])
                values[rows] = value.flatten().cpu().numpy()
            actions[rows] = action
            logprobs[rows] = logprob
            envs.send(action.cpu().numpy(), env_id)

        # bootstrap value of each env: its last row, whose outcome comes in the next rollout
        advantages = compute_gae_by_env(env_ids, last_row, rewards, values, terminations,
                                        truncations, args.gamma, args.gae_lambda)

        # the batch is flat already
        b_obs, b_logprobs, b_actions = obs, logprobs, actions
        b_advantages = torch.as_tensor(advantages, device=device)
        b_values = torch.as_tensor(values, device=device)
        b_returns = b_advantages + b_values

        # Optimizing the policy and value network, on the rows whose action the engine used and
        # whose outcome has arrived
        trainable = ~dones
        trainable[last_row] = False
        b_inds = np.nonzero(trainable)[0]
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

        # Each env's last row moves to the env's slot: its outcome arrives in the next rollout.
        # It keeps the logprob and value of the policy that chose its action, one update old by
        # then, so its PPO ratio starts away from 1 (the importance weight of an older policy's
        # action) and that value is its baseline and its value-clipping reference.
        for buffer in (obs, actions, logprobs, values, dones):
            buffer[: args.num_envs] = buffer[last_row]
        last_row = np.arange(args.num_envs)

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
