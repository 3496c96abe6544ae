"""ppo_mujoco_envpool_xla_jax.py: it learns InvertedPendulum-v4 on a short budget, a checkpoint
plays the same evaluation episodes after a reload, one seed trains the same way twice, and the
compiled pieces (GAE, running statistics) agree with a plain reference.

Two training runs of the same seed share one module-scoped fixture (about 30 s each on 2 cores);
the script runs as a subprocess in a temporary directory.
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

pytest.importorskip("jax")
pytest.importorskip("flax")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "ppo_mujoco_envpool_xla_jax.py"
# InvertedPendulum: a random policy's episodes last about 5-10 steps (return = length).
LEARN = ["--env-id", "InvertedPendulum-v4", "--total-timesteps", "40960", "--num-envs", "16",
         "--num-steps", "32", "--hidden-sizes", "64", "64", "--eval-episodes", "5", "--seed", "3"]
RANDOM_POLICY_CEILING = 50.0


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def eval_returns(stdout: str) -> list[float]:
    return [float(x) for x in re.findall(r"eval_episode=\d+, episodic_return=([-\d.e]+)", stdout)]


def episodic_returns(run_dir: Path) -> list[tuple[int, float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return [(e.step, e.value) for e in acc.Scalars("charts/episodic_return")]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The same seed trained twice, each in its own folder, with --save-model."""
    runs = []
    for name in ("first", "second"):
        cwd = tmp_path_factory.mktemp(name)
        proc = run(cwd, *LEARN, "--save-model")
        (run_dir,) = (cwd / "runs").iterdir()
        runs.append((cwd, run_dir, proc.stdout))
    return runs


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("ppo_xla", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_learns_inverted_pendulum(two_runs) -> None:
    _, run_dir, stdout = two_runs[0]
    returns = [value for _, value in episodic_returns(run_dir)]
    assert np.mean(returns[:20]) < RANDOM_POLICY_CEILING  # it starts as a random policy
    assert np.mean(returns[-20:]) > 5 * RANDOM_POLICY_CEILING, returns[-20:]
    assert np.mean(eval_returns(stdout)) > 5 * RANDOM_POLICY_CEILING


def test_one_point_per_finished_episode_at_its_global_step(two_runs) -> None:
    """charts/episodic_* : one point per finished episode, at the global step where it ended.
    InvertedPendulum pays 1 per step, so each return is its episode's length; every env step
    belongs to one finished episode, its ignored reset step, or an episode still running."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _, run_dir, _ = two_runs[0]
    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    returns, lengths = acc.Scalars("charts/episodic_return"), acc.Scalars("charts/episodic_length")
    num_envs, total = int(LEARN[LEARN.index("--num-envs") + 1]), 40960
    assert len(returns) == len(lengths) > 100
    for r, n in zip(returns, lengths, strict=True):
        assert r.step == n.step and r.step % num_envs == 0 and r.value == n.value
        assert n.value * num_envs <= r.step <= total  # it ran n steps before it ended
    finished = sum(n.value for n in lengths) + len(lengths)  # each episode's steps, its reset's
    # 1000: the task's time limit; + num_envs: an episode ending at the last step has no reset yet
    assert total - num_envs * 1000 <= finished <= total + num_envs


def test_checkpoint_reloads_and_plays_the_same_episodes(two_runs) -> None:
    cwd, run_dir, stdout = two_runs[0]
    (model,) = run_dir.glob("*.cleanrl_model")
    # Only the checkpoint and the seed: env id, time limit and network come from the file.
    reloaded = run(cwd, "--eval-checkpoint", str(model), "--eval-episodes", "5", "--seed", "3")
    import flax

    # The observation statistics of every training step (and the first reset) travel with it.
    saved = flax.serialization.msgpack_restore(model.read_bytes())["obs_rms"]
    np.testing.assert_allclose(saved["count"], 40960 + 16, rtol=1e-6)
    # ... not the initial (mean 0, var 1): InvertedPendulum's observations vary far less.
    assert np.all(saved["var"] < 0.8) and np.all(saved["var"] > 0)
    assert len(eval_returns(stdout)) == 5
    assert eval_returns(reloaded.stdout) == eval_returns(stdout)


def test_one_seed_trains_the_same_way_twice(two_runs) -> None:
    (_, first_dir, first_out), (_, second_dir, second_out) = two_runs
    first, second = episodic_returns(first_dir), episodic_returns(second_dir)
    assert len(first) > 100
    assert first == second
    assert eval_returns(first_out) == eval_returns(second_out)
    import flax

    params = [flax.serialization.msgpack_restore(next(d.glob("*.cleanrl_model")).read_bytes())
              for d in (first_dir, second_dir)]
    import jax

    for a, b in zip(jax.tree.leaves(params[0]["params"]), jax.tree.leaves(params[1]["params"]),
                    strict=True):
        np.testing.assert_array_equal(a, b)


def test_gae_bootstraps_truncation_not_termination(script) -> None:
    # Step 1 ends the episode, so the obs after it is the final one (value 0.7, acted on at
    # step 2, where the engine resets: reward 0).
    values = np.array([[0.5], [0.6], [0.7], [0.1]], np.float32)
    next_values = np.array([[0.6], [0.7], [0.1], [0.3]], np.float32)
    rewards = np.array([[1], [2], [0], [1]], np.float32)
    end = np.array([[0], [1], [0], [0]], np.float32)
    gamma, lam = 0.99, 0.95
    for terminated in (end, np.zeros_like(end)):
        got = np.asarray(script.compute_gae(values, next_values, rewards,
                                            gamma * (1 - terminated), 1 - end, lam))[:, 0]
        a3 = 1 + gamma * 0.3 - 0.1
        a2 = 0 + gamma * 0.1 - 0.7 + gamma * lam * a3
        a1 = 2 + (0.0 if terminated.any() else gamma * 0.7) - 0.6
        a0 = 1 + gamma * 0.6 - 0.5 + gamma * lam * a1
        np.testing.assert_allclose(got, [a0, a1, a2, a3], rtol=1e-5)


def test_running_statistics_skip_masked_rows(script) -> None:
    rng = np.random.default_rng(0)
    batches = [rng.normal(3.0, 2.0, size=(8, 3)).astype(np.float32) for _ in range(5)]
    masks = [rng.random(8) < 0.6 for _ in batches]
    masks[2][:] = False  # a batch with no rows leaves the statistics as they were
    rms = script.RunningStats(np.zeros(3, np.float32), np.ones(3, np.float32), np.float32(1e-4))
    for x, mask in zip(batches, masks, strict=True):
        rms = script.rms_update(rms, x, mask)
    kept = np.concatenate([x[m] for x, m in zip(batches, masks, strict=True)])
    np.testing.assert_allclose(rms.mean, kept.mean(0), rtol=1e-4)
    np.testing.assert_allclose(rms.var, kept.var(0), rtol=1e-3)
    np.testing.assert_allclose(rms.count, len(kept) + 1e-4, rtol=1e-6)


def test_seeds_give_runs_disjoint_env_streams(script) -> None:
    """Env i of a run of n envs is seeded seed * n + i: runs of seeds 1 and 2 start no env
    alike (with seed + i, env i + 1 of seed 1 would start as env i of seed 2)."""
    starts = {}
    for seed in (1, 2):
        envs = script.make_env("Hopper-v4", 4, 4, seed)
        starts[seed] = envs.reset()[0]
        envs.close()
    alone = script.envpool.make("Hopper-v4", env_type="gymnasium", num_envs=1, seed=2 * 4 + 3)
    np.testing.assert_array_equal(starts[2][3], alone.reset()[0][0])  # env 3 of seed 2: 11
    alone.close()
    for first in starts[1]:
        assert not any(np.array_equal(first, other) for other in starts[2])


@pytest.mark.parametrize(("args", "message"), [
    (["--env-id", "CheetahRun-v1"], "error: CheetahRun-v1 needs box actions and one observation"),
    (["--env-id", "Antt-v4"], "error: unknown --env-id 'Antt-v4'; did you mean Ant-v4"),
    (["--num-minibatches", "3"], "(num_envs 128 x num_steps 32) must divide into --num-minibat"),
    (["--seed", str(2**32 // 64)], "--seed must be in [0, 2**32 // max(--num-envs, --eval-e"),
])
def test_a_misuse_stops_with_one_error_line(tmp_path: Path, args: list, message: str) -> None:
    # Four cases: each one imports JAX, Flax and PyTorch's TensorBoard writer (seconds each).
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "runs").exists()


def test_a_checkpoint_of_another_network_stops_with_one_error_line(two_runs, tmp_path) -> None:
    # A checkpoint whose parameters are not this Agent's (an older network layout, say): one
    # error line instead of a traceback from deep inside Flax.
    import flax

    (model,) = two_runs[0][1].glob("*.cleanrl_model")
    checkpoint = flax.serialization.msgpack_restore(model.read_bytes())
    checkpoint["params"]["params"]["Dense_9"] = checkpoint["params"]["params"]["Dense_0"]
    other = tmp_path / "other.cleanrl_model"
    other.write_bytes(flax.serialization.msgpack_serialize(checkpoint))
    proc = subprocess.run([sys.executable, str(SCRIPT), "--eval-checkpoint", str(other)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert f"error: --eval-checkpoint {other}: not this script's network" in proc.stderr
