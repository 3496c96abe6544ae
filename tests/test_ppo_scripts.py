"""The single-file PPO scripts: GAE and episode bookkeeping on hand-made sequences, end-to-end
runs on tiny budgets (TensorBoard tags, checkpoint, evaluation, video, argument errors), and
one learning run bounded by steps.

The scripts run as subprocesses in a temporary directory; their top-level functions are
imported by loading each file as a module (the `__main__` guard keeps the loop from running).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
ATARI = ROOT / "ppo_atari_envpool.py"
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


def test_atari_gae_bootstraps_truncation_not_termination(atari) -> None:
    # One env. Rows: reset obs; +1; +2 arriving with the episode's end (obs 2 is the final
    # observation); the reset obs (reward 0); +1, whose successor has not come back (pending).
    v = np.array([0.5, 0.6, 0.7, 0.1, 0.2], dtype=np.float32)
    r = np.array([0, 1, 2, 0, 1], dtype=np.float32)
    ids = np.zeros(5, dtype=np.int64)
    end = np.array([0, 0, 1, 0, 0], dtype=bool)
    none = np.zeros(5, dtype=bool)
    for term, trunc in [(end, none), (none, end)]:
        adv, trainable, pending = atari.compute_gae(ids, v, r, term, trunc, GAMMA, LAM)
        bootstrap = GAMMA * v[2] if trunc.any() else 0.0  # V(final obs) only on truncation
        a1 = 2 + bootstrap - v[1]
        a0 = 1 + GAMMA * v[1] - v[0] + GAMMA * LAM * a1
        a3 = 1 + GAMMA * v[4] - v[3]  # the pending row's advantage counts as 0
        np.testing.assert_allclose(adv, [a0, a1, 0, a3, 0], rtol=1e-6)
        assert trainable.tolist() == [True, True, False, True, False]  # row 2 acts on a final obs
        assert pending.tolist() == [False, False, False, False, True]


def random_env_rows(rng, n: int):
    """One env's recv() outputs: after an episode end the next output is a reset (reward 0)."""
    v, r = rng.normal(size=n), rng.normal(size=n)
    term, trunc = np.zeros(n, bool), np.zeros(n, bool)
    for i in range(1, n):
        if term[i - 1] or trunc[i - 1]:
            r[i] = 0.0
        elif rng.random() < 0.25:
            (term if rng.random() < 0.5 else trunc)[i] = True
    return v.astype(np.float32), r.astype(np.float32), term, trunc


def interleave(rng, per_env):
    """Merges per-env row sequences in a random arrival order, as async recv() would."""
    order = np.concatenate([np.full(len(rows[0]), e) for e, rows in enumerate(per_env)])
    rng.shuffle(order)
    pos = np.zeros(len(per_env), dtype=int)
    src = []
    for e in order:
        src.append((e, pos[e]))
        pos[e] += 1
    ids = np.array([e for e, _ in src], dtype=np.int64)
    cols = [np.array([per_env[e][k][i] for e, i in src]) for k in range(4)]
    return ids, cols, src


def test_atari_gae_async_order_equals_per_env(atari) -> None:
    # Async mode: the same per-env sequences, interleaved in any arrival order, give the same
    # advantages as each env alone.
    rng = np.random.default_rng(0)
    per_env = [random_env_rows(rng, int(rng.integers(5, 40))) for _ in range(5)]
    ids, (v, r, term, trunc), src = interleave(rng, per_env)
    adv, trainable, pending = atari.compute_gae(ids, v, r, term, trunc, GAMMA, LAM)
    alone = [atari.compute_gae(np.zeros(len(v), np.int64), v, r, term, trunc, GAMMA, LAM)
             for v, r, term, trunc in per_env]
    for j, (e, i) in enumerate(src):
        assert adv[j] == pytest.approx(alone[e][0][i], rel=1e-5, abs=1e-6)
        assert trainable[j] == alone[e][1][i] and pending[j] == alone[e][2][i]
    assert pending.sum() == 5  # exactly each env's last row is carried over


def test_atari_carried_rows_are_trained_exactly_once(atari) -> None:
    # The training loop's contract: cut the stream of rows into rollouts, carry the pending rows
    # to the front of the next one; then every row that is a transition is trained exactly once.
    rng = np.random.default_rng(2)
    per_env = [random_env_rows(rng, 60) for _ in range(4)]
    ids, (v, r, term, trunc), _ = interleave(rng, per_env)
    row = np.arange(len(ids))
    trained = np.zeros(len(ids), dtype=int)
    carried = np.zeros(0, dtype=int)
    for start in range(0, len(ids), 16):
        rows = np.concatenate([carried, row[start:start + 16]])
        _, trainable, pending = atari.compute_gae(ids[rows], v[rows], r[rows], term[rows],
                                                  trunc[rows], GAMMA, LAM)
        trained[rows[trainable]] += 1
        carried = rows[pending]
        assert len(carried) <= 4
    last_of_env = np.zeros(len(ids), dtype=bool)
    last_of_env[carried] = True
    assert np.all(trained[~(term | trunc) & ~last_of_env] == 1)
    assert np.all(trained[(term | trunc) | last_of_env] == 0)


def test_gae_of_both_scripts_agree_on_a_sync_rollout(atari, mujoco) -> None:
    # The MuJoCo script's (steps, envs) GAE and the Atari script's row GAE are two independent
    # implementations of the same rule; on a sync rollout they must agree.
    rng = np.random.default_rng(1)
    num_steps, num_envs = 30, 3
    cols = [random_env_rows(rng, num_steps + 1) for _ in range(num_envs)]
    v, r, term, trunc = (np.stack([c[k] for c in cols], axis=1) for k in range(4))
    # MuJoCo layout: step t acted on obs t; its outcome arrives with obs t + 1.
    adv_m = mujoco.compute_gae(r[1:], v[:-1], term[1:], trunc[1:], v[-1], GAMMA, LAM)
    ignored = (term | trunc)[:-1]
    # Atari layout: one row per (step, env), in recv() order.
    ids = np.tile(np.arange(num_envs), num_steps + 1)
    adv_a, trainable, pending = atari.compute_gae(
        ids, v.reshape(-1), r.reshape(-1), term.reshape(-1), trunc.reshape(-1), GAMMA, LAM)
    assert trainable.reshape(num_steps + 1, num_envs)[:-1].tolist() == (~ignored).tolist()
    assert pending.reshape(num_steps + 1, num_envs)[-1].all()
    np.testing.assert_allclose(adv_a.reshape(num_steps + 1, num_envs)[:-1][~ignored],
                               adv_m[~ignored], rtol=1e-5, atol=1e-6)


# ----------------------------------------------------- episode statistics on hand-made sequences


def test_atari_episode_stats_life_loss_truncation_game_over(atari) -> None:
    ret, length, after_done = np.zeros(2), np.zeros(2, np.int64), np.ones(2, bool)
    # (env ids, unclipped rewards, done for the learner, game really over), one recv() each.
    # Env 0: +1, +2 and a life lost, reset (ignored), +3, +4 at the time limit, reset, +5,
    # +1 at game over. Env 1 shows up in between, as in async mode.
    steps = [
        ([0, 1], [0, 0], [0, 0], [0, 0]),   # reset outputs: not agent steps
        ([0], [1], [0], [0]),
        ([1], [7], [0], [0]),
        ([0], [2], [1], [0]),               # life lost: episode ends for the learner only
        ([0, 1], [0, 7], [0, 1], [0, 1]),   # env 1: game over
        ([0], [3], [0], [0]),
        ([0], [4], [1], [1]),               # time limit
        ([0, 1], [0, 0], [0, 0], [0, 0]),
        ([0], [5], [0], [0]),
        ([0], [1], [1], [1]),               # game over
    ]
    finished = []
    for ids, rew, done, over in steps:
        out = atari.update_episode_stats(ret, length, after_done, np.array(ids),
                                         np.array(rew, float), np.array(done, bool),
                                         np.array(over, bool))
        finished += [(int(e), float(g), int(n)) for e, g, n in zip(*out, strict=True)]
    # CleanRL restarted the sums only at game over: env 0's second game would score 16.
    assert finished == [(1, 14.0, 2), (0, 10.0, 4), (0, 6.0, 2)]


def test_mujoco_episode_stats_restart_after_truncation(mujoco) -> None:
    ret, length, prev_done = np.zeros(2), np.zeros(2, np.int64), np.zeros(2, bool)
    # (rewards, done) of 2 envs per step; the step after a done is the reset, not counted.
    steps = [([1, 1], [0, 0]), ([1, 1], [0, 1]), ([1, 9], [1, 0]), ([9, 1], [0, 0]),
             ([2, 1], [0, 1])]
    finished = []
    for rew, done in steps:
        done = np.array(done, bool)
        out = mujoco.update_episode_stats(ret, length, np.array(rew, float), ~prev_done, done)
        finished += [(int(e), float(g), int(n)) for e, g, n in zip(*out, strict=True)]
        prev_done = done
    assert finished == [(1, 2.0, 2), (0, 3.0, 3), (1, 2.0, 2)]
    assert ret.tolist() == [2.0, 0.0] and length.tolist() == [1, 0]


def test_mujoco_running_mean_std(mujoco) -> None:
    rng = np.random.default_rng(0)
    batches = [rng.normal(3.0, 2.0, size=(n, 4)) for n in (1, 7, 0, 30)]
    rms = mujoco.RunningMeanStd((4,))
    for b in batches:
        rms.update(b)
    allx = np.concatenate(batches)
    np.testing.assert_allclose(rms.mean, allx.mean(0), rtol=1e-4)
    np.testing.assert_allclose(rms.var, allx.var(0), rtol=1e-3)
    assert np.abs(mujoco.normalize_obs(np.full((1, 4), 1e9), rms, update=False)).max() == 10


# ------------------------------------------------------------------ end to end, tiny budgets


def check_training_run(tmp_path: Path, proc, script: Path) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    acc, values = scalars(run_dir)
    assert TAGS <= set(values), TAGS - set(values)
    assert "hyperparameters/text_summary" in acc.Tags()["tensors"]
    # every episode hit the tiny time limit: its statistics came from truncation
    assert values["charts/episodic_length"] and set(values["charts/episodic_length"]) == {40.0}
    assert "global_step" in proc.stderr  # the progress bar
    (ckpt,) = run_dir.glob(f"{script.stem}.cleanrl_model")
    return ckpt


def check_eval_run(tmp_path: Path, script: Path, ckpt: Path) -> subprocess.CompletedProcess:
    proc = run(script, tmp_path, "--eval-checkpoint", str(ckpt), "--eval-episodes", "2",
               "--capture-video")
    lengths = re.findall(r"eval_episode=\d+, episodic_return=\S+, episodic_length=(\d+)",
                         proc.stdout)
    assert lengths == ["40", "40"], proc.stdout
    return proc


def test_atari_sync_train_save_eval_video(tmp_path: Path) -> None:
    proc = run(ATARI, tmp_path, "--total-timesteps", "256", "--num-envs", "4", "--num-steps", "32",
               "--num-minibatches", "2", "--update-epochs", "1", "--max-episode-steps", "40",
               "--save-model", "--eval-episodes", "1")
    ckpt = check_training_run(tmp_path, proc, ATARI)
    check_eval_run(tmp_path, ATARI, ckpt)
    videos = sorted((tmp_path / "videos").glob("*/episode-*.mp4"))
    assert len(videos) == 2 and all(v.stat().st_size > 0 for v in videos)
    import imageio

    with imageio.get_reader(videos[0]) as reader:
        assert reader.get_data(0).shape == (210, 160, 3)


def test_atari_async_mode(tmp_path: Path) -> None:
    run(ATARI, tmp_path, "--total-timesteps", "384", "--num-envs", "6", "--async-batch-size", "2",
        "--num-steps", "32", "--num-minibatches", "2", "--update-epochs", "1",
        "--max-episode-steps", "30")
    (run_dir,) = (tmp_path / "runs").iterdir()
    _, values = scalars(run_dir)
    assert TAGS <= set(values), TAGS - set(values)
    assert set(values["charts/episodic_length"]) == {30.0}


def test_mujoco_train_save_eval(tmp_path: Path) -> None:
    proc = run(MUJOCO, tmp_path, "--total-timesteps", "512", "--num-envs", "4", "--num-steps", "64",
               "--num-minibatches", "4", "--update-epochs", "2", "--max-episode-steps", "40",
               "--save-model", "--eval-episodes", "1")
    ckpt = check_training_run(tmp_path, proc, MUJOCO)
    import torch

    saved = torch.load(ckpt, weights_only=True)
    assert saved["obs_rms"]["mean"].shape == (17,) and saved["obs_rms"]["count"] > 512
    proc = check_eval_run(tmp_path, MUJOCO, ckpt)
    # the engine may not render MuJoCo; then the script says so instead of crashing
    videos = list((tmp_path / "videos").glob("*/episode-*.mp4"))
    assert len(videos) == 2 or "no video, the engine cannot render" in proc.stdout


@pytest.mark.parametrize(("script", "args", "message"), [
    (ATARI, ["--env-id", "Pongg-v5"], "unknown --env-id 'Pongg-v5'"),
    (ATARI, ["--env-id", "CartPole-v1"], "CartPole-v1 is not an Atari task"),
    (MUJOCO, ["--num-minibatches", "7"], "not divisible by --num-minibatches=7"),
    pytest.param(MUJOCO, ["--track"], "pip install wandb", marks=pytest.mark.skipif(
        importlib.util.find_spec("wandb") is not None, reason="wandb is installed")),
])
def test_argument_errors(tmp_path: Path, script: Path, args: list, message: str) -> None:
    proc = run(script, tmp_path, *args, check=False)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "runs").exists()


# --------------------------------------------------------------------------------- learning


def test_mujoco_script_learns_inverted_pendulum(tmp_path: Path) -> None:
    # CleanRL's defaults, only a short budget: 16 updates of 2048 steps. The policy's mean
    # action must then balance the pole for at least half of the 1000-step episode.
    proc = run(MUJOCO, tmp_path, "--env-id", "InvertedPendulum-v4", "--total-timesteps", "32768",
               "--save-model", "--eval-episodes", "5")
    tail = proc.stdout.split("eval episodic returns:")[1]
    returns = [float(x) for x in re.findall(r"[-\d.]+", tail)]
    assert len(returns) == 5 and np.mean(returns) >= 500, returns
