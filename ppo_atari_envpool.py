r"""PPO on Atari with envpool_core, in one file: CleanRL's ppo_atari_envpool.py, time limits fixed.

    python ppo_atari_envpool.py --env-id Pong-v5 --total-timesteps 10000000   # CleanRL's defaults
    python ppo_atari_envpool.py --num-envs 24 --async-batch-size 8  # async: recv() gives 8 of 24
    python ppo_atari_envpool.py --save-model                        # save, then evaluate
    python ppo_atari_envpool.py --eval-checkpoint runs/RUN/ppo_atari_envpool.cleanrl_model \
        --eval-episodes 5 --capture-video                           # evaluate, MP4s in videos/
    tensorboard --logdir runs

Unlike CleanRL's script, the time limit (27000 steps) is not a terminal state: the value target
bootstraps from the last observation's value, not 0; episode statistics restart after a time
limit too; async mode works. A lost life ends the episode for the learner (episodic_life), but
charts/episodic_return is the unclipped score of the whole game (info["reward"]).
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
    """the number of episodes of an evaluation (one per env, played in parallel)"""

    # Algorithm specific arguments
    env_id: str = "Pong-v5"
    """the id of the environment"""
    total_timesteps: int = 10000000
    """total timesteps of the experiments"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    num_envs: int = 8
    """the number of parallel game environments"""
    async_batch_size: int = 0
    """envs returned by each recv(): 0 (= num_envs) is sync mode, fewer is async mode"""
    num_steps: int = 128
    """the number of recv() per policy rollout"""
    max_episode_steps: int | None = None
    """the time limit in agent steps (None: the engine's default, 27000)"""
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

    # to be filled in runtime
    batch_size: int = 0
    """the batch size: num_steps x envs per recv() (computed in runtime)"""
    num_iterations: int = 0
    """the number of iterations (computed in runtime)"""


def make_env(env_id, num_envs, batch_size, seed, max_episode_steps=None):
    # No wrappers: the engine already does the DeepMind preprocessing CleanRL wraps gym with
    # (noop reset, frame skip 4 with max-pool, 84x84 grayscale, stack 4, FIRE on reset).
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, batch_size=batch_size,
                        episodic_life=True, reward_clip=True, seed=seed, **limit)


def layer_init(layer, std=2**0.5, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
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
        hidden = self.network(x / 255.0)
        logits = self.actor(hidden)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)


def compute_gae(env_ids, values, rewards, terminations, truncations, gamma, gae_lambda):
    """GAE over the rows of a rollout, for the engine's next-step auto-reset, sync or async.

    Row j is one env's recv() output and what the agent did with it: env_ids[j], values[j] =
    V(obs_j), and rewards/terminations/truncations[j], which arrived *with* obs_j: the outcome
    of that env's previous row. So row j's transition is read from the env's next row k (k = j +
    num_envs in sync mode; wherever the env shows up again in async mode). The rule:
    - terminations[k]: obs_k is terminal, the target is r_k.
    - truncations[k]: obs_k is the last observation of an episode cut by the time limit (the
      reset comes one step later), so the target is r_k + gamma V(obs_k): bootstrap, never 0.
    - either one ends the GAE sum at row j.
    - a row that arrived with terminated/truncated acts on a final observation: the engine
      ignores that action and resets, so it is no transition and is not trained on.
    - a row with no later row (its outcome has not come back) is pending: the caller carries it
      into the next rollout; its predecessor uses it with advantage 0 (CleanRL's bootstrap).
    Returns advantages (0 where not trainable), the trainable mask and the pending mask.
    """
    ids, v, r, term = env_ids.tolist(), values.tolist(), rewards.tolist(), terminations.tolist()
    ended = (terminations | truncations).tolist()
    advantages = [0.0] * len(ids)
    trainable, pending = np.zeros(len(ids), dtype=bool), np.zeros(len(ids), dtype=bool)
    later_row = {}  # env id -> its next row, filled walking backwards
    for j in reversed(range(len(ids))):
        k = later_row.get(ids[j])
        later_row[ids[j]] = j
        if k is None:
            pending[j] = True
        elif not ended[j]:
            delta = r[k] + gamma * (0.0 if term[k] else v[k]) - v[j]
            advantages[j] = delta if ended[k] else delta + gamma * gae_lambda * advantages[k]
            trainable[j] = True
    return np.asarray(advantages, dtype=np.float32), trainable, pending


def update_episode_stats(episode_return, episode_length, after_done, env_id, raw_reward, done,
                         game_over):
    """Adds one recv() to the per-env running sums (arrays updated in place); returns (env ids,
    unclipped returns, lengths) of the games that ended.

    done: the output ended an episode for the learner (life lost, game over or time limit), so
    the env's next output is the reset, whose action was ignored: not an agent step.
    game_over: the game really ended (game over or time limit). CleanRL restarted the sums only
    at game over, so a game after a time limit inherited the old sums.
    """
    counted = ~after_done[env_id]
    episode_return[env_id] += np.where(counted, raw_reward, 0.0)
    episode_length[env_id] += counted
    ended = env_id[game_over]
    finished = (ended.copy(), episode_return[ended].copy(), episode_length[ended].copy())
    episode_return[ended], episode_length[ended] = 0.0, 0
    after_done[env_id] = done
    return finished


def evaluate(agent, env_id, num_episodes, seed, device, max_episode_steps=None, video_dir=None):
    """Plays one game in each of num_episodes envs, sampling actions. The envs are made as for
    training (episodic life, FIRE after a lost life), which is what the agent knows; the return
    is still the unclipped score of the whole game."""
    envs = make_env(env_id, num_episodes, num_episodes, seed, max_episode_steps)
    all_ids = np.arange(num_episodes)
    episode_return, episode_length = np.zeros(num_episodes), np.zeros(num_episodes, np.int64)
    after_done = np.zeros(num_episodes, dtype=bool)  # reset()'s output is not passed on
    returns, lengths = [None] * num_episodes, [None] * num_episodes
    writers = {}
    if video_dir is not None:
        import imageio

        os.makedirs(video_dir, exist_ok=True)
        # 60 Hz with frame skip 4: 15 agent steps per second of play
        writers = {i: imageio.get_writer(f"{video_dir}/episode-{i}.mp4", fps=15, macro_block_size=1)
                   for i in all_ids}

    def record_frames():
        playing = np.array(sorted(writers), dtype=np.int32)
        for i, frame in zip(playing, envs.render(playing) if writers else [], strict=True):
            writers[i].append_data(frame)

    next_obs, _ = envs.reset()
    record_frames()
    while any(x is None for x in returns):
        with torch.no_grad():
            action, _, _, _ = agent.get_action_and_value(torch.as_tensor(next_obs, device=device))
        next_obs, _, terminated, truncated, info = envs.step(action.cpu().numpy(), all_ids)
        record_frames()
        game_over = info["terminated"].astype(bool) | truncated
        for i, ret, length in zip(*update_episode_stats(
            episode_return, episode_length, after_done, info["env_id"], info["reward"],
            terminated | truncated, game_over,
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
        checkpoint = torch.load(args.eval_checkpoint, map_location=device, weights_only=True)
        args.env_id, args.max_episode_steps = checkpoint["env_id"], checkpoint["max_episode_steps"]
    if args.env_id not in envpool.list_all_envs():
        close = get_close_matches(args.env_id, envpool.list_all_envs(), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        sys.exit(f"error: unknown --env-id {args.env_id!r}{hint}")
    spec = envpool.make_spec(args.env_id)
    if len(spec.observation_space.shape) != 3 or not hasattr(spec.action_space, "n"):
        sys.exit(f"error: {args.env_id} is not an Atari task (image obs, discrete actions)")
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
        returns, lengths = evaluate(agent, args.env_id, args.eval_episodes, args.seed, device,
                                    args.max_episode_steps, video_dir)
        for i, (ret, length) in enumerate(zip(returns, lengths, strict=True)):
            print(f"eval_episode={i}, episodic_return={ret}, episodic_length={length}")
        print(f"mean_episodic_return={np.mean(returns)}")
        sys.exit(0)

    batch = args.async_batch_size or args.num_envs
    if not 0 < batch <= args.num_envs:
        sys.exit(f"error: --async-batch-size must be in [0, --num-envs={args.num_envs}]")
    args.batch_size = int(args.num_steps * batch)
    if args.num_minibatches < 1 or args.batch_size % args.num_minibatches != 0:
        sys.exit(f"error: the batch (--num-steps x envs per recv() = {args.batch_size}) is not "
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

    envs = make_env(args.env_id, args.num_envs, batch, args.seed, args.max_episode_steps)
    agent = Agent(envs).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: rollout rows (see compute_gae): those carried from the last rollout (at most
    # one per env), then num_steps recv() of `batch` rows each.
    capacity = args.num_envs + args.batch_size
    obs = torch.zeros((capacity, *envs.observation_space.shape), dtype=torch.uint8, device=device)
    actions = torch.zeros(capacity, dtype=torch.long, device=device)
    logprobs = torch.zeros(capacity, device=device)
    values, rewards = np.zeros(capacity, np.float32), np.zeros(capacity, np.float32)
    env_ids = np.zeros(capacity, dtype=np.int64)
    terminations, truncations = np.zeros(capacity, bool), np.zeros(capacity, bool)
    num_rows = 0
    episode_return, episode_length = np.zeros(args.num_envs), np.zeros(args.num_envs, np.int64)
    after_done = np.ones(args.num_envs, dtype=bool)  # the first outputs are resets, not steps
    recent_returns = deque(maxlen=20)

    global_step = 0
    start_time = time.time()
    envs.async_reset()
    progress = tqdm(total=args.num_iterations * args.batch_size, unit="step", dynamic_ncols=True)
    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for _step in range(0, args.num_steps):
            next_obs, reward, terminated, truncated, info = envs.recv()
            env_id = info["env_id"]
            global_step += len(env_id)
            rows = slice(num_rows, num_rows + len(env_id))
            num_rows += len(env_id)
            # Copied into the rollout before send(): recv()'s arrays view the engine's buffers.
            obs[rows] = torch.as_tensor(next_obs, device=device)
            env_ids[rows], rewards[rows], truncations[rows] = env_id, reward, truncated
            game_over = info["terminated"].astype(bool)
            # A game over that lands on the time limit is still terminal.
            terminations[rows] = terminated | game_over
            for _, ret, length in zip(*update_episode_stats(
                episode_return, episode_length, after_done, env_id, info["reward"],
                terminated | truncated, game_over | truncated,
            ), strict=True):
                recent_returns.append(ret)
                writer.add_scalar("charts/episodic_return", ret, global_step)
                writer.add_scalar("charts/episodic_length", length, global_step)

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(obs[rows])
            envs.send(action.cpu().numpy(), env_id)
            actions[rows], logprobs[rows] = action, logprob
            values[rows] = value.flatten().cpu().numpy()

        advantages, trainable, pending = compute_gae(
            env_ids[:num_rows], values[:num_rows], rewards[:num_rows], terminations[:num_rows],
            truncations[:num_rows], args.gamma, args.gae_lambda,
        )
        b_advantages = torch.as_tensor(advantages, device=device)
        b_values = torch.as_tensor(values[:num_rows], device=device)
        b_returns = b_advantages + b_values
        b_inds = np.nonzero(trainable)[0]

        # Optimizing the policy and value network (not when a tiny first rollout, whose last rows
        # are all pending, holds fewer transitions than minibatches)
        clipfracs = []
        epochs = args.update_epochs if len(b_inds) >= args.num_minibatches else 0
        for _epoch in range(epochs):
            for mb_inds in np.array_split(np.random.permutation(b_inds), args.num_minibatches):
                mb_inds = torch.as_tensor(mb_inds, device=device)
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    obs[mb_inds], actions[mb_inds]
                )
                logratio = newlogprob - logprobs[mb_inds]
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

        # Rows still waiting for their outcome open the next rollout.
        keep = np.nonzero(pending)[0]
        num_rows, keep_t = len(keep), torch.as_tensor(keep, device=device)
        for buffer in (obs, actions, logprobs, values, env_ids, rewards, terminations, truncations):
            buffer[:num_rows] = buffer[keep_t if isinstance(buffer, torch.Tensor) else keep]

        sps = int(global_step / (time.time() - start_time))
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        if clipfracs:
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
            torch.save({"model": agent.state_dict(), "env_id": args.env_id, "args": vars(args),
                        "max_episode_steps": args.max_episode_steps}, model_path)
            print(f"model saved to {model_path}")
        returns, _ = evaluate(agent, args.env_id, args.eval_episodes, args.seed, device,
                              args.max_episode_steps, video_dir)
        for idx, episodic_return in enumerate(returns):
            writer.add_scalar("eval/episodic_return", episodic_return, idx)
        print(f"eval episodic returns: {returns}")
    writer.close()
