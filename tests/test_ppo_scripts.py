"""The single-file PPO scripts: GAE and episode bookkeeping on hand-made sequences, which steps
the training loops train on (recorded in-process), end-to-end runs on tiny budgets (TensorBoard
tags, checkpoint, evaluation, video, argument errors), and one learning run bounded by steps.

The scripts run as subprocesses in a temporary directory, or in this process through runpy;
their top-level functions are imported by loading each file as a module (the `__main__` guard
keeps the loop from running).
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
ATARI = ROOT / "ppo_atari_envpool.py"
ATARI_ASYNC = ROOT / "ppo_atari_envpool_async.py"
MUJOCO = ROOT / "ppo_mujoco_envpool.py"
GAMMA, LAM = 0.99, 0.95
TAGS = {
    "charts/episodic_return", "charts/episodic_length", "charts/SPS", "charts/learning_rate",
    "losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl",
    "losses/clipfrac", "losses/explained_variance",
}


def run(script: Path, cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(script), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def scalars(run_dir: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return acc, {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


# ---------------------------------------------------------------- GAE on hand-made sequences


def test_gae_bootstraps_truncation_not_termination(atari) -> None:
    # One env. Step 0: +1. Step 1: +2 and the episode ends, so obs[2] is its final observation.
    # Step 2 acts on that final observation (the engine ignores it and resets: reward 0).
    # Step 3: +1, then next_value.
    values = np.array([[0.5], [0.6], [0.7], [0.1]], dtype=np.float32)
    rewards = np.array([[1], [2], [0], [1]], dtype=np.float32)
    end = np.array([[0], [1], [0], [0]], dtype=bool)
    none = np.zeros_like(end)
    next_value = np.array([0.3], dtype=np.float32)
    for terminations, truncations in [(end, none), (none, end)]:
        advantages = atari.compute_gae(rewards, values, terminations, truncations, next_value,
                                       GAMMA, LAM)
        bootstrap = GAMMA * values[2, 0] if truncations.any() else 0.0  # V(final obs)
        a3 = 1 + GAMMA * next_value[0] - values[3, 0]
        a2 = 0 + GAMMA * values[3, 0] - values[2, 0] + GAMMA * LAM * a3
        a1 = 2 + bootstrap - values[1, 0]  # the sum stops at the episode's end
        a0 = 1 + GAMMA * values[1, 0] - values[0, 0] + GAMMA * LAM * a1
        np.testing.assert_allclose(advantages[:, 0], [a0, a1, a2, a3], rtol=1e-6)


def random_env_steps(rng, n: int):
    """One env's steps in the scripts' layout: after a step that ends an episode comes the
    ignored step on the final observation (reward 0, no end)."""
    values, rewards = rng.normal(size=n), rng.normal(size=n)
    terminations, truncations = np.zeros(n, bool), np.zeros(n, bool)
    for t in range(n):
        if t and (terminations[t - 1] or truncations[t - 1]):
            rewards[t] = 0.0
        elif rng.random() < 0.25:
            (terminations if rng.random() < 0.5 else truncations)[t] = True
    return values.astype(np.float32), rewards.astype(np.float32), terminations, truncations


def test_async_gae_in_any_arrival_order_equals_gae_per_env(atari_async) -> None:
    # Async mode: the same per-env steps, interleaved in any arrival order, give the advantages
    # of compute_gae on each env alone, bootstrapped from the value of the env's last row.
    rng = np.random.default_rng(0)
    per_env = [random_env_steps(rng, int(rng.integers(1, 40))) for _ in range(5)]
    order = np.concatenate([np.full(len(steps[0]), env) for env, steps in enumerate(per_env)])
    rng.shuffle(order)
    position = [np.nonzero(order == env)[0] for env in range(len(per_env))]
    values, rewards = np.zeros(len(order), np.float32), np.zeros(len(order), np.float32)
    terminations, truncations = np.zeros(len(order), bool), np.zeros(len(order), bool)
    for env, (v, r, term, trunc) in enumerate(per_env):
        rows = position[env]
        values[rows], rewards[rows], terminations[rows], truncations[rows] = v, r, term, trunc
    last_row = np.array([rows[-1] for rows in position])
    advantages = atari_async.compute_gae_by_env(order, last_row, rewards, values, terminations,
                                                truncations, GAMMA, LAM)
    for env, (v, r, term, trunc) in enumerate(per_env):
        alone = atari_async.compute_gae(r[:-1], v[:-1], term[:-1], trunc[:-1], v[-1], GAMMA, LAM)
        np.testing.assert_allclose(advantages[position[env][:-1]], alone, rtol=1e-5, atol=1e-6)
        assert advantages[last_row[env]] == 0.0  # no outcome yet: not trained in this rollout


# ------------------------------------- which steps the training loops train on (in process)


class RecordingEnvs:
    """The engine's envs, recording each output's env ids, whether it ended an episode (the
    agent's: a lost life counts on Atari) and whether it ended a whole game (Atari's
    info["terminated"]; elsewhere the same as the episode)."""

    def __init__(self, envs, outputs: list):
        self._envs, self._outputs = envs, outputs

    def __getattr__(self, name):
        return getattr(self._envs, name)

    def _record(self, result):
        _, _, terminated, truncated, info = result
        game_over = info.get("terminated", terminated).astype(bool) | truncated
        self._outputs.append((info["env_id"].copy(), terminated | truncated, game_over))
        return result

    def step(self, *args, **kwargs):
        return self._record(self._envs.step(*args, **kwargs))

    def recv(self):
        return self._record(self._envs.recv())


def run_in_process(monkeypatch, tmp_path: Path, script: Path, *argv: str, update_epochs: int = 1):
    """Runs a script's training loop here; returns the engine's outputs, in order, and the rows
    each iteration trained on (the indices the script shuffles into minibatches)."""
    import envpool_core

    outputs, trained, make, permutation = [], [], envpool_core.make, np.random.permutation
    monkeypatch.setattr(envpool_core, "make", lambda *a, **k: RecordingEnvs(make(*a, **k), outputs))
    monkeypatch.setattr(np.random, "permutation",
                        lambda x: (trained.append(np.array(x)), permutation(x))[1])
    monkeypatch.setattr(sys, "argv", [str(script), *argv, "--update-epochs", str(update_epochs)])
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script), run_name="__main__")
    return outputs, trained


def test_sync_loop_trains_every_step_but_the_ignored_ones(monkeypatch, tmp_path: Path) -> None:
    num_envs, num_steps = 3, 16
    outputs, trained = run_in_process(
        monkeypatch, tmp_path, ATARI, "--num-envs", str(num_envs), "--num-steps", str(num_steps),
        "--total-timesteps", str(3 * num_envs * num_steps), "--max-episode-steps", "6",
        "--num-minibatches", "2")
    done = np.array([d for _, d, _ in outputs])  # the outputs of step() after reset()'s
    # obs of step t arrived with step t - 1's output; its action is ignored after a done
    acted_on_final_obs = np.concatenate([np.zeros((1, num_envs), bool), done[:-1]])
    assert len(trained) == 3 and acted_on_final_obs[:-1].any()
    for iteration, rows in enumerate(trained):
        ignored = acted_on_final_obs[iteration * num_steps:(iteration + 1) * num_steps]
        assert sorted(rows) == np.nonzero(~ignored.reshape(-1))[0].tolist()


def test_async_loop_trains_every_step_once(monkeypatch, tmp_path: Path) -> None:
    # Rows of an iteration: num_envs slots (each env's last output of an earlier iteration),
    # then the outputs of its recv() calls in order. Every output that did not arrive with a
    # done must be trained exactly once, after its outcome arrived; the others never.
    num_envs, batch, num_steps = 5, 2, 8
    outputs, trained = run_in_process(
        monkeypatch, tmp_path, ATARI_ASYNC, "--num-envs", str(num_envs), "--async-batch-size",
        str(batch), "--num-steps", str(num_steps), "--max-episode-steps", "6",
        "--total-timesteps", str(4 * num_envs * num_steps), "--num-minibatches", "2")
    env_of = np.concatenate([ids for ids, _, _ in outputs])
    arrived_done = np.concatenate([d for _, d, _ in outputs])
    recvs = num_envs * num_steps // batch
    assert len(trained) == 4 and len(outputs) == 4 * recvs and arrived_done.any()
    count = np.zeros(len(env_of), dtype=int)
    slot = np.full(num_envs, -1)  # the output each slot holds (-1: none yet)
    for iteration, rows in enumerate(trained):
        first = iteration * recvs * batch
        source = np.concatenate([slot, np.arange(first, first + recvs * batch)])
        assert (source[rows] >= 0).all()
        count[source[rows]] += 1
        for output in range(first, first + recvs * batch):
            slot[env_of[output]] = output
    pending = set(slot)  # each env's last output: its outcome never arrived
    expected = [0 if arrived_done[o] or o in pending else 1 for o in range(len(env_of))]
    assert count.tolist() == expected


METRIC_RUNS = {
    "atari": (ATARI, ["--num-envs", "3", "--num-steps", "16", "--total-timesteps", "144"]),
    "atari_async": (ATARI_ASYNC, ["--num-envs", "5", "--async-batch-size", "2", "--num-steps",
                                  "8", "--total-timesteps", "120"]),
    "mujoco": (MUJOCO, ["--env-id", "InvertedPendulum-v4", "--num-envs", "3", "--num-steps", "16",
                        "--total-timesteps", "144"]),
}


@pytest.mark.parametrize("name", sorted(METRIC_RUNS))
def test_logged_metrics_mean_one_thing(monkeypatch, tmp_path: Path, name: str) -> None:
    """charts/episodic_* : one point per finished game, at the global step of the output that
    ended it. losses/* : the mean over the last epoch's minibatches, checked through the loss
    each minibatch minimised (policy − ent_coef · entropy + vf_coef · value: linear, so the
    mean of the logged parts must give the mean of the last epoch's losses)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    logged, minimised = {}, []
    add_scalar, backward = SummaryWriter.add_scalar, torch.Tensor.backward

    def record_scalar(writer, tag, value, step=None, *args, **kwargs):
        logged.setdefault(tag, []).append((step, float(value)))
        return add_scalar(writer, tag, value, step, *args, **kwargs)

    def record_loss(loss, *args, **kwargs):
        minimised.append(loss.item())
        return backward(loss, *args, **kwargs)

    monkeypatch.setattr(SummaryWriter, "add_scalar", record_scalar)
    monkeypatch.setattr(torch.Tensor, "backward", record_loss)
    script, argv = METRIC_RUNS[name]
    epochs, minibatches, ent_coef, vf_coef = 3, 2, 0.01, 0.5
    outputs, trained = run_in_process(
        monkeypatch, tmp_path, script, *argv, "--max-episode-steps", "6", "--num-minibatches",
        str(minibatches), "--ent-coef", str(ent_coef), "--vf-coef", str(vf_coef),
        update_epochs=epochs)

    global_steps = np.cumsum([len(ids) for ids, _, _ in outputs])
    game_over_steps = [int(g) for g, (_, _, over) in zip(global_steps, outputs, strict=True)
                       for _ in range(int(over.sum()))]
    assert len(game_over_steps) >= 5
    for tag in ("charts/episodic_return", "charts/episodic_length"):
        assert [step for step, _ in logged[tag]] == game_over_steps

    updates, per_update = len(trained) // epochs, epochs * minibatches  # a shuffle per epoch
    assert len(minimised) == updates * per_update and updates == 3
    for tag in ("losses/value_loss", "losses/policy_loss", "losses/entropy"):
        assert len(logged[tag]) == updates
    for update in range(updates):
        last_epoch = minimised[(update + 1) * per_update - minibatches:(update + 1) * per_update]
        value, policy, entropy = (logged[f"losses/{tag}"][update][1]
                                  for tag in ("value_loss", "policy_loss", "entropy"))
        assert policy - ent_coef * entropy + vf_coef * value == pytest.approx(
            np.mean(last_epoch), rel=1e-5, abs=1e-6)
        assert 0.0 <= logged["losses/clipfrac"][update][1] <= 1.0


@pytest.mark.parametrize("script", ["atari", "atari_async"])
def test_bf16_runs_the_cnn_in_bfloat16_and_the_rest_in_float32(request, script: str) -> None:
    import torch

    module = request.getfixturevalue(script)
    envs = module.make_env("Breakout-v5", 2, 2, 1)
    fp32, bf16 = module.Agent(envs), module.Agent(envs, bf16=True)
    bf16.load_state_dict(fp32.state_dict())
    conv_dtypes = []
    bf16.network[0].register_forward_hook(lambda _m, _i, out: conv_dtypes.append(out.dtype))
    obs, action = torch.as_tensor(envs.reset()[0]), torch.tensor([1, 3])
    _, logprob32, entropy32, value32 = fp32.get_action_and_value(obs, action)
    _, logprob16, entropy16, value16 = bf16.get_action_and_value(obs, action)
    assert conv_dtypes == [torch.bfloat16]
    for full, half in ((logprob32, logprob16), (entropy32, entropy16), (value32, value16)):
        assert half.dtype == torch.float32 and half.requires_grad
        torch.testing.assert_close(half, full, atol=0.05, rtol=0.05)  # bfloat16 keeps 8 bits
    envs.close()


# ----------------------------------------------------- episode statistics on hand-made sequences


@pytest.mark.parametrize("batch_size", [4, 2], ids=["sync", "async"])
def test_episode_stats_match_a_count_by_hand(atari, batch_size: int) -> None:
    """update_episode_stats on the engine's outputs against counting by hand every agent step
    (an output whose env's previous output did not end an episode: the next one is the reset,
    whose action the engine ignores) and its unclipped reward, across lost lives, time limits
    and game overs, in arrival order."""
    envs = atari.make_env("Breakout-v5", 4, batch_size, 3, max_episode_steps=150)
    episode_return, rng = np.zeros(4), np.random.default_rng(0)
    by_hand_return, by_hand_length = np.zeros(4), np.zeros(4, np.int64)
    after_done = np.ones(4, bool)  # the first outputs are resets
    finished, expected, kinds = [], [], {"life lost": 0, "time limit": 0, "game over": 0}
    envs.async_reset()
    while min(kinds.values()) < 2 or len(finished) < 8:
        _, reward, terminated, truncated, info = envs.recv()
        env_id, game_over = info["env_id"], info["terminated"].astype(bool)
        kinds["life lost"] += int((terminated & ~game_over).sum())
        kinds["time limit"] += int(truncated.sum())
        kinds["game over"] += int(game_over.sum())
        counted = ~after_done[env_id]
        by_hand_return[env_id] += np.where(counted, info["reward"], 0.0)
        by_hand_length[env_id] += counted
        for env in env_id[game_over | truncated]:
            expected.append((int(env), float(by_hand_return[env]), int(by_hand_length[env])))
            by_hand_return[env], by_hand_length[env] = 0.0, 0
        after_done[env_id] = terminated | truncated
        out = atari.update_episode_stats(episode_return, reward, terminated, truncated, info)
        finished += [(int(e), float(g), int(n)) for e, g, n in zip(*out, strict=True)]
        envs.send(rng.integers(0, 4, len(env_id)), env_id)
    envs.close()
    assert finished == expected
    assert episode_return.tolist() == by_hand_return.tolist()


def test_episode_stats_without_atari_info(mujoco) -> None:
    """Outside Atari, info has neither "reward" nor "terminated": an episode is the env's own,
    its rewards until terminated or truncated. CartPole pays 1 per agent step, so each return
    equals its length; the time limit (12) ends the episodes that did not fall before it."""
    envs = mujoco.make_env("CartPole-v1", 3, 3, 0, max_episode_steps=12)
    episode_return, rng, finished, ends = np.zeros(3), np.random.default_rng(0), [], set()
    envs.reset()
    while len(finished) < 12 or ends != {"terminated", "truncated"}:
        _, reward, terminated, truncated, info = envs.step(rng.integers(0, 2, 3))
        ends |= {"terminated"} if terminated.any() else set()
        ends |= {"truncated"} if truncated.any() else set()
        out = mujoco.update_episode_stats(episode_return, reward, terminated, truncated, info)
        assert out[0].tolist() == np.nonzero(terminated | truncated)[0].tolist()
        finished += [(float(g), int(n)) for _, g, n in zip(*out, strict=True)]
    envs.close()
    assert all(g == n and 0 < n <= 12 for g, n in finished), finished
    assert any(n < 12 for _, n in finished) and any(n == 12 for _, n in finished)


def test_mujoco_running_mean_std(mujoco) -> None:
    import torch

    rng = np.random.default_rng(0)
    batches = [rng.normal(3.0, 2.0, size=(n, 4)) for n in (1, 7, 0, 30)]
    rms = mujoco.RunningMeanStd((4,))
    for b in batches:
        rms.update(torch.as_tensor(b))
    allx = np.concatenate(batches)
    np.testing.assert_allclose(rms.mean.numpy(), allx.mean(0), rtol=1e-4)
    np.testing.assert_allclose(rms.var.numpy(), allx.var(0), rtol=1e-3)
    normalized = rms.normalize(torch.full((1, 4), 1e9, dtype=torch.float64), update=False)
    assert normalized.abs().max() == 10 and rms.count == pytest.approx(38, abs=1e-3)


# ------------------------------------------------------------------ end to end, tiny budgets


def check_training_run(tmp_path: Path, proc, script: Path, time_limit: int) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    acc, values = scalars(run_dir)
    assert TAGS <= set(values), TAGS - set(values)
    assert "hyperparameters/text_summary" in acc.Tags()["tensors"]
    # every episode hit the tiny time limit: its statistics came from truncation
    lengths = values["charts/episodic_length"]
    assert lengths and set(lengths) == {float(time_limit)}, lengths
    assert "SPS=" in proc.stderr  # the progress bar
    return run_dir


def check_eval_run(tmp_path: Path, script: Path, ckpt: Path, frame_shape: tuple, fps: float,
                   lives: bool) -> None:
    runs_before = sorted((tmp_path / "runs").iterdir())
    proc = run(script, tmp_path, "--eval-checkpoint", str(ckpt), "--eval-episodes", "2",
               "--capture-video")
    # Only what evaluation needs: no TensorBoard run, no training envs (no progress bar).
    assert sorted((tmp_path / "runs").iterdir()) == runs_before and "SPS=" not in proc.stderr
    lengths = re.findall(r"eval_episode=\d+, episodic_return=\S+, episodic_length=(\d+)",
                         proc.stdout)
    assert lengths == ["40", "40"], proc.stdout
    import imageio

    videos = sorted((tmp_path / "videos").glob("*/episode-*.mp4"))
    assert len(videos) == 2, videos
    for video in videos:
        with imageio.get_reader(video) as reader:
            frames = [frame.shape for frame in reader]
            assert reader.get_meta_data()["fps"] == pytest.approx(fps)  # real time
        # First to last frame: the first and one per step (40); with lives, also the reset step
        # after each lost life, which elapsed_step does not count (counted exactly in
        # test_atari_video_has_a_frame_per_step_and_per_lost_life).
        assert frames[0] == frame_shape
        assert len(frames) >= 41 if lives else len(frames) == 41, len(frames)


def test_atari_video_has_a_frame_per_step_and_per_lost_life(tmp_path: Path, atari) -> None:
    def noop(obs: np.ndarray) -> np.ndarray:  # the served ball is missed: lives are lost
        return np.zeros(len(obs), np.int32)

    ((_, length),) = atari.evaluate(noop, "Breakout-v5", 1, 5, 150, str(tmp_path))
    # The same game, stepped here with the same actions: its length and lost lives.
    envs = atari.make_env("Breakout-v5", 1, 1, 5, 150)
    envs.reset()
    lives_lost = 0
    while True:
        _, _, terminated, truncated, info = envs.step(np.zeros(1, np.int32))
        if info["terminated"][0] or truncated[0]:
            break
        lives_lost += int(terminated[0])
    assert length == info["elapsed_step"][0] and lives_lost >= 1
    import imageio

    with imageio.get_reader(tmp_path / "episode-0.mp4") as reader:
        num_frames = sum(1 for _ in reader)
    # the first frame, one per step and one per reset step after a lost life
    assert num_frames == 1 + length + lives_lost


def test_atari_train_save_eval_video(tmp_path: Path) -> None:
    proc = run(ATARI, tmp_path, "--total-timesteps", "256", "--num-envs", "4", "--num-steps",
               "32", "--num-minibatches", "2", "--update-epochs", "1", "--max-episode-steps", "40",
               "--save-model", "--eval-episodes", "1")
    run_dir = check_training_run(tmp_path, proc, ATARI, 40)
    (ckpt,) = run_dir.glob("ppo_atari_envpool.cleanrl_model")
    check_eval_run(tmp_path, ATARI, ckpt, (210, 160, 3), 15.0, lives=True)


def test_atari_async_train_save(tmp_path: Path) -> None:
    proc = run(ATARI_ASYNC, tmp_path, "--total-timesteps", "384", "--num-envs", "6",
               "--async-batch-size", "2", "--num-steps", "32", "--num-minibatches", "2",
               "--update-epochs", "1", "--max-episode-steps", "30", "--save-model",
               "--eval-episodes", "2")
    run_dir = check_training_run(tmp_path, proc, ATARI_ASYNC, 30)
    assert len(list(run_dir.glob("ppo_atari_envpool_async.cleanrl_model"))) == 1
    assert len(re.findall(r"eval_episode=\d+, episodic_return=\S+, episodic_length=30",
                          proc.stdout)) == 2, proc.stdout


@pytest.mark.egl  # its evaluation records a video
def test_mujoco_train_save_eval_video(tmp_path: Path) -> None:
    proc = run(MUJOCO, tmp_path, "--total-timesteps", "512", "--num-envs", "4", "--num-steps",
               "64", "--num-minibatches", "4", "--update-epochs", "2", "--max-episode-steps",
               "40", "--save-model", "--eval-episodes", "1")
    run_dir = check_training_run(tmp_path, proc, MUJOCO, 40)
    (ckpt,) = run_dir.glob("ppo_mujoco_envpool.cleanrl_model")
    import torch

    saved = torch.load(ckpt, weights_only=True)["model"]  # the observation statistics too
    assert saved["obs_rms.mean"].shape == (17,) and saved["obs_rms.count"] > 512
    check_eval_run(tmp_path, MUJOCO, ckpt, (480, 480, 3), 20.0, lives=False)


def test_mujoco_script_flattens_dict_observations_as_gymnasium(mujoco) -> None:
    # dm_control tasks give a dict of arrays (a scalar per env included, Walker's height): each
    # env's row is gymnasium's flatten of that env's dict under the pool's Dict space.
    import gymnasium as gym

    for task in ("CheetahRun-v1", "WalkerWalk-v1"):
        envs = mujoco.make_env(task, 3, 3, 0)
        obs, _ = envs.reset()
        for _ in range(5):
            obs = envs.step(np.zeros((3, *envs.action_space.shape)))[0]
        rows = mujoco.flat_obs(obs)
        assert rows.shape == (3, gym.spaces.flatdim(envs.observation_space))
        for i in range(3):
            single = {key: value[i] for key, value in obs.items()}
            np.testing.assert_array_equal(rows[i], gym.spaces.flatten(envs.observation_space,
                                                                      single))
        envs.close()
    array = np.arange(6.0).reshape(2, 3)  # gymnasium tasks' arrays pass through
    np.testing.assert_array_equal(mujoco.flat_obs(array), array)


@pytest.mark.egl  # its evaluation records a video
def test_mujoco_script_trains_on_dm_control(tmp_path: Path) -> None:
    # CheetahRun-v1's observation is a dict (position 8, velocity 9): the script trains on its
    # 17 flat values, saves their statistics and evaluates the checkpoint on the same rows.
    proc = run(MUJOCO, tmp_path, "--env-id", "CheetahRun-v1", "--total-timesteps", "512",
               "--num-envs", "4", "--num-steps", "64", "--num-minibatches", "4",
               "--update-epochs", "2", "--max-episode-steps", "40", "--save-model",
               "--eval-episodes", "1")
    run_dir = check_training_run(tmp_path, proc, MUJOCO, 40)
    (ckpt,) = run_dir.glob("ppo_mujoco_envpool.cleanrl_model")
    import torch

    saved = torch.load(ckpt, weights_only=True)["model"]
    assert saved["obs_rms.mean"].shape == (17,) and saved["obs_rms.count"] > 512
    assert saved["actor_mean.4.weight"].shape == (6, 64)
    check_eval_run(tmp_path, MUJOCO, ckpt, (240, 320, 3), 100.0, lives=False)


def test_mujoco_evaluation_leaves_observation_statistics(tmp_path: Path, monkeypatch) -> None:
    # Evaluating a checkpoint (here in this process) normalises observations with its statistics
    # and does not fold the evaluation's observations into them.
    import torch

    mujoco = runpy.run_path(str(MUJOCO))  # the definitions only (not run as __main__)
    spec_agent = mujoco["Agent"](mujoco["envpool"].make_spec("Hopper-v4"))  # as if trained:
    spec_agent.obs_rms.mean.fill_(0.5)
    spec_agent.obs_rms.var.fill_(2.0)
    spec_agent.obs_rms.count.fill_(1000.0)
    ckpt = tmp_path / "model.cleanrl_model"
    torch.save({"model": spec_agent.state_dict(),
                "args": {"env_id": "Hopper-v4", "max_episode_steps": 30}}, ckpt)
    loaded, load = [], torch.nn.Module.load_state_dict
    monkeypatch.setattr(torch.nn.Module, "load_state_dict",
                        lambda self, *a, **k: (loaded.append(self), load(self, *a, **k))[1])
    monkeypatch.setattr(sys, "argv", [str(MUJOCO), "--eval-checkpoint", str(ckpt),
                                      "--eval-episodes", "2"])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(MUJOCO), run_name="__main__")
    assert exited.value.code == 0
    (agent,) = loaded
    for name, value in spec_agent.state_dict().items():
        if name.startswith("obs_rms."):
            assert torch.equal(agent.state_dict()[name], value), name
    assert not (tmp_path / "runs").exists()


CHECK = "error: need --num-steps >= 2, --num-envs x --num-steps >= 8 x --num-minibatches"


@pytest.mark.parametrize(("script", "args", "message"), [
    # The scripts' own checks print one `error:` line.
    (ATARI_ASYNC, ["--async-batch-size", "3"],
     "error: --async-batch-size (3) must be in [0, --num-envs (8)]"),
    (MUJOCO, ["--env-id", "Pong-v5"], "error: Pong-v5 is not a continuous-control task"),
    (ATARI, ["--num-steps", "1"], CHECK),
    (ATARI, ["--num-envs", "0"], CHECK),
    (ATARI_ASYNC, ["--num-minibatches", "256"], CHECK),
    (MUJOCO, ["--num-minibatches", "512"], CHECK),
    # The rest is the engine's or the library's own exception, raised before anything is written.
    (ATARI, ["--env-id", "Pongg-v5"], "unknown task id 'Pongg-v5'; did you mean"),
    (ATARI, ["--env-id", "CartPole-v1"], "unknown option 'episodic_life' for CartPole-v1"),
    (ATARI, ["--eval-checkpoint", "missing.pt"], "No such file or directory: 'missing.pt'"),
    (MUJOCO, ["--eval-checkpoint", "text.txt"], "UnpicklingError"),
])
def test_argument_errors(tmp_path: Path, script: Path, args: list, message: str) -> None:
    (tmp_path / "text.txt").write_text("not a checkpoint")
    proc = run(script, tmp_path, *args, check=False)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "runs").exists()


def test_capture_video_without_egl_is_refused_before_training(tmp_path: Path) -> None:
    # An EGL device that is not there stands for any renderer that cannot start: render() is
    # tried before training, so the run is not lost to it after training.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MUJOCO_EGL_DEVICE_ID": "99"}
    proc = subprocess.run([sys.executable, str(MUJOCO), "--env-id", "Hopper-v4", "--capture-video"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "cannot render" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("script", [ATARI, ATARI_ASYNC, MUJOCO])
def test_track_without_wandb_stops_before_training(tmp_path: Path, script: Path) -> None:
    # A wandb that fails to import, whether or not the real one is installed.
    (tmp_path / "wandb").mkdir()
    (tmp_path / "wandb" / "__init__.py").write_text("raise ImportError('no wandb')")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, str(script), "--track"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "ImportError: no wandb" in proc.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("script", "args"), [
    (ATARI, []),
    (ATARI_ASYNC, ["--async-batch-size", "1"]),
    (MUJOCO, ["--env-id", "Hopper-v4"]),
])
def test_smallest_minibatches_allowed_train(tmp_path: Path, script: Path, args: list) -> None:
    # The least batch the rule allows (8 steps per minibatch), and a time limit of 1 step: every
    # other step is then a reset step, which is not trained on, as few trained steps as can be.
    run(script, tmp_path, *args, "--num-envs", "2", "--num-steps", "8", "--num-minibatches", "2",
        "--max-episode-steps", "1", "--total-timesteps", "64", "--update-epochs", "2")
    (run_dir,) = (tmp_path / "runs").iterdir()
    _, values = scalars(run_dir)
    for tag in ("losses/value_loss", "losses/policy_loss", "losses/entropy"):
        assert len(values[tag]) == 4 and np.isfinite(values[tag]).all(), (tag, values[tag])


# --------------------------------------------------------------------------------- learning


def test_mujoco_script_learns_inverted_pendulum(tmp_path: Path) -> None:
    # CleanRL's defaults, only a short budget: 16 updates of 2048 steps. The policy must then
    # balance the pole for at least half of the 1000-step episode.
    proc = run(MUJOCO, tmp_path, "--env-id", "InvertedPendulum-v4", "--total-timesteps", "32768",
               "--save-model", "--eval-episodes", "5")
    returns = [float(x) for x in re.findall(r"eval_episode=\d+, episodic_return=(\S+),",
                                            proc.stdout)]
    assert len(returns) == 5 and np.mean(returns) >= 500, returns
