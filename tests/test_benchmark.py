"""Smoke tests of benchmark/: tiny configurations produce every output, every row measured."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_throughput_prints_side_by_side_table(tmp_path: Path) -> None:
    out = tmp_path / "cartpole.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "throughput.py"), "--task", "CartPole-v1",
         "--settings", "4,4,1", "4,2,1", "--systems", "envpool_core", "envpool", "ceiling",
         "--seconds", "0.1", "--repeats", "2", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300)
    for setting in ("4,4,1", "4,2,1"):
        for system in ("envpool_core", "envpool", "ceiling"):
            assert f"| {setting} | {system} |" in proc.stdout
    data = json.loads(out.read_text())
    for per_setting in (data["results"], data["cpu_us_per_step"]):
        assert all(len(v) == 2 and min(v) > 0 for s in per_setting.values() for v in s.values())

    def best(system: str) -> str:
        return max(data["results"], key=lambda k: statistics.median(data["results"][k][system]))

    pairs = [(c["ours"], c["other"]) for c in data["best_vs_best"]]
    assert pairs == [("envpool_core", "ceiling"), ("envpool_core", "envpool"),
                     ("ceiling", "envpool")]
    for c in data["best_vs_best"]:
        assert len(c["per_round_ratios"]) == 2
        assert (c["ours_setting"], c["other_setting"]) == (best(c["ours"]), best(c["other"]))
        assert f"| {c['ours']} ({c['ours_setting']}) | {c['other']} ({c['other_setting']}) |" \
            in proc.stdout


@pytest.mark.timeout(960)  # a grid of systems and settings, subprocess limit 900 s
def test_paper_table_tiny(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "paper_table.py"), "--tiny", "--out",
         str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "paper_table.json").read_text())
    table = (tmp_path / "paper_table.md").read_text()
    assert data["machine"]["cores"] >= 1 and "cpu" in data["machine"]
    measured = ["For-loop", "Subprocess", "EnvPool (sync)", "EnvPool (async)",
                "envpool_core (sync)", "envpool_core (async)"]
    for task, task_id, extra in (("Pong", "Pong-v5", ["ale-py AtariVectorEnv"]),
                                 ("Ant", "Ant-v4", [])):
        for row in measured + extra:
            values = [v for vals in data["results"][task][row].values() for v in vals]
            assert values and all(isinstance(v, float) and v > 0 for v in values), (task, row,
                                                                                  values)
        for row in [*measured, *extra, "Sample-Factory", "EnvPool (numa+async)",
                    "envpool_core (numa+async)"]:
            assert f"| {row} |" in table.split(f"### {task_id}")[1]
        model = data["scaling_model"][task]
        per_core = max(statistics.median(v) for v in
                       data["results"][task]["envpool_core (async)"].values()) / \
            data["machine"]["cores"]
        skip = 4 if task == "Pong" else 5
        assert model["predicted_fps"]["DGX-A100"] == pytest.approx(per_core * 256 * skip)
        # the model is its own table, not a row among the measured systems
        measured_table, model_table = table.split(f"### {task_id}")[1].split("Scaling model")[:2]
        assert "predicted FPS" in model_table and "model" not in measured_table
    assert (tmp_path / "paper_table.png").stat().st_size > 0
    remade = tmp_path / "remade"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "paper_table.py"), "--from-json",
         str(tmp_path / "paper_table.json"), "--out", str(remade)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (remade / "paper_table.md").read_text() == table


@pytest.mark.timeout(660)  # the script's own limit is 600 s
def test_training_table_tiny(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "training.py"), "--runs",
         "ppo_mujoco_envpool:InvertedPendulum-v4:2048:--num-steps 64", "--out", str(tmp_path),
         "--workdir", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = json.loads((tmp_path / "training.json").read_text())
    assert result["returncode"] == 0 and result["episodes"] > 0 and result["mean_sps"] > 0
    assert "| ppo_mujoco_envpool | InvertedPendulum-v4 | 2,048 | envpool_core |" in (
        tmp_path / "training.md").read_text()
    assert (tmp_path / "training.png").stat().st_size > 0


REFERENCE_SCRIPT = """
import argparse, gymnasium, numpy as np
from torch.utils.tensorboard import SummaryWriter
p = argparse.ArgumentParser()
for flag in ("--env-id", "--total-timesteps", "--seed", "--exp-name"):
    p.add_argument(flag)
a = p.parse_args()
# CleanRL's call that gymnasium 1.x rejects unless reference_compat supplies the default.
env = gymnasium.wrappers.TransformObservation(gymnasium.make(a.env_id), lambda o: np.clip(o, -1, 1))
# CleanRL's episode bookkeeping, gymnasium 0.29's vector API: one info dict or None per env in
# final_info, and the env reset in the step that ends its episode.
envs = gymnasium.vector.SyncVectorEnv(
    [lambda: gymnasium.wrappers.RecordEpisodeStatistics(gymnasium.make(a.env_id))] * 2)
obs, _ = envs.reset(seed=0)
ended = 0
for _ in range(200):  # CartPole with one action ends within about 10 steps
    obs, _, terminated, truncated, infos = envs.step(np.zeros(2, dtype=np.int64))
    if "final_info" in infos:
        for i, info in enumerate(infos["final_info"]):
            assert (info is not None) == (terminated[i] or truncated[i])
            if info is not None:
                assert info["episode"]["l"] > 0 and abs(obs[i]).max() <= 0.05  # a fresh start
                ended += 1
assert ended
w = SummaryWriter(f"runs/{a.env_id}__{a.exp_name}__{a.seed}__0")
for step in (64, 128):
    w.add_scalar("charts/avg_episodic_return", 7.0, step)
    w.add_scalar("charts/SPS", 100.0, step)
w.close()
"""


def test_training_runs_a_reference_script_unmodified(tmp_path: Path) -> None:
    script = tmp_path / "their_script.py"
    script.write_text(REFERENCE_SCRIPT)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "training.py"), "--runs",
         f"{script}:CartPole-v1:128", "--engine", "envpool_core", "envpool", "--out",
         str(tmp_path), "--workdir", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = json.loads((tmp_path / "training.json").read_text())  # once, not per engine
    assert result["returncode"] == 0, result.get("error")
    assert result["reference"] and result["engine"] == "upstream"
    assert result["final_return"] == 7.0 and result["mean_sps"] == 100.0
    assert "| their_script (reference) | CartPole-v1 | 128 | upstream |" in (
        tmp_path / "training.md").read_text()


SWAPPED_SCRIPT = """
import argparse
import envpool
from torch.utils.tensorboard import SummaryWriter
p = argparse.ArgumentParser()
for flag in ("--env-id", "--total-timesteps", "--seed", "--exp-name"):
    p.add_argument(flag)
a = p.parse_args()
assert envpool.__name__ == "envpool_core", envpool.__name__  # the one line a user changes
envs = envpool.make(a.env_id, env_type="gym", num_envs=2)
w = SummaryWriter(f"runs/{a.env_id}__{a.exp_name}__{a.seed}__0")
w.add_scalar("charts/episodic_return", 3.0, 64)
w.add_scalar("charts/SPS", 50.0, 64)
w.close()
"""


def test_training_runs_a_reference_script_on_envpool_core_by_its_import(tmp_path: Path) -> None:
    script = tmp_path / "their_script.py"

    def run_it() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(ROOT / "benchmark" / "training.py"), "--runs",
             f"{script}:CartPole-v1:64", "--reference-engine", "envpool_core", "--out",
             str(tmp_path), "--workdir", str(tmp_path / "work")],
            capture_output=True, text=True, timeout=300)

    script.write_text(SWAPPED_SCRIPT)
    proc = run_it()
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = json.loads((tmp_path / "training.json").read_text())
    assert result["returncode"] == 0, result.get("error")
    assert result["reference"] and result["engine"] == "envpool_core"
    assert result["final_return"] == 3.0
    assert script.read_text() == SWAPPED_SCRIPT  # their file is not touched
    # A script without the line to change is refused, not run on another engine.
    script.write_text(SWAPPED_SCRIPT.replace("import envpool\n", "import envpool as e\n"))
    proc = run_it()
    assert proc.returncode != 0 and "has no line 'import envpool' to change" in proc.stderr


def test_training_merges_earlier_results_into_one_table(tmp_path: Path) -> None:
    runs = [{"run": f"{script}:CartPole-v1:100", "engine": "envpool_core", "seed": 1,
             "wall_s": 6.0, "returncode": 0, "returns": [[50, 9.0], [100, 20.0]],
             "sps": [[50, 10.0], [100, 16.0]], "episodes": 2, "final_return": 20.0,
             "mean_sps": 13.0} for script in ("impala_atari", "ppo_distributed")]
    for i, run in enumerate(runs):
        (tmp_path / f"part{i}.json").write_text(json.dumps([run]))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "training.py"), "--merge",
         str(tmp_path / "part0.json"), str(tmp_path / "part1.json"), "--out", str(tmp_path),
         "--name", "all"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads((tmp_path / "all.json").read_text()) == runs
    table = (tmp_path / "all.md").read_text()
    for script in ("impala_atari", "ppo_distributed"):
        row = f"| {script} | CartPole-v1 | 100 | envpool_core | 1 | 16 | 0.1 min | 2 | 20.0 |"
        assert row in table
    assert (tmp_path / "all.png").stat().st_size > 0


def test_time_to_score_reads_curves_and_summarizes(tmp_path: Path) -> None:
    """benchmark/time_to_score.py on hand-made TensorBoard logs: CleanRL-style episode returns
    averaged over the last 100, rl_games' own mean, the first time a target is reached."""
    import importlib.util

    import numpy as np
    from torch.utils.tensorboard import SummaryWriter

    spec = importlib.util.spec_from_file_location(
        "time_to_score", ROOT / "benchmark" / "time_to_score.py")
    tts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tts)
    start = 1000.0
    writer = SummaryWriter(str(tmp_path / "cleanrl"))
    for i in range(150):  # returns 0, 10, 20, ...: the last-100 mean passes 500 at episode 100
        writer.add_scalar("charts/episodic_return", 10.0 * i, i * 100, walltime=start + i)
    writer.close()
    points = tts.curve(tmp_path / "cleanrl", start)
    assert len(points) == 150
    assert points[99][2] == pytest.approx(np.mean(10.0 * np.arange(100)))
    assert points[149][2] == pytest.approx(np.mean(10.0 * np.arange(50, 150)))
    assert tts.time_to(points, 995.0) == 149.0 and tts.time_to(points, 996.0) is None
    assert tts.value_at(points, 5000) == pytest.approx(np.mean(10.0 * np.arange(51)))
    writer = SummaryWriter(str(tmp_path / "rl_games" / "summaries"))
    for i in range(5):
        writer.add_scalar("rewards/step", 100.0 * i, 4096 * i, walltime=start + 10 * i)
    writer.close()
    assert tts.curve(tmp_path / "rl_games", start) == [
        (10.0 * i, 4096 * i, 100.0 * i) for i in range(5)]
    summary = tts.run_summary(points, 990.0, [5000])
    assert summary == {"time_to_target_s": 149.0, "steps_to_target": 14900,
                       "best": points[149][2], "steps": 14900,
                       "return_at_steps": {"5000": tts.value_at(points, 5000)}}
    runs = [{"system": "xla_jax", "env_id": "Ant-v4", "seed": 1, "load_average": [1.0],
             "curve": tts.thin(points, most=10), "summary": summary}]
    table = tts.summarize(runs, 990.0, [5000], 300.0)
    assert "| xla_jax | 1 | 1 of 1 | 149 s (149) |" in table
    tts.plot({"env_id": "Ant-v4", "target": 990.0, "wall_limit": 300.0, "runs": runs},
             tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 0


def _time_to_score_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "time_to_score", ROOT / "benchmark" / "time_to_score.py")
    tts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tts)
    return tts


@pytest.mark.parametrize(("times", "median"), [
    ([212.0, None, 217.0], (217.0, False)),  # the seed that missed is the slowest, not dropped
    ([None, 212.0, None], (300.0, True)),  # most missed: the median is above the limit
    ([100.0, 200.0, None, None], (250.0, True)),  # (200 + more than 300) / 2: above 250
    ([100.0, 200.0, 250.0, None], (225.0, False)),
])
def test_time_to_score_median_counts_every_seed(times, median) -> None:
    assert _time_to_score_module().median_time(times, 300.0) == median


def test_time_to_score_table_reports_every_seed() -> None:
    """The row names the seeds, how many reached the target, the median over all of them (a
    missed seed counted as more than the limit), the best return's spread and every seed."""
    tts = _time_to_score_module()
    runs = [{"system": "xla_jax", "seed": seed, "load_average": [2.0],
             "summary": {"time_to_target_s": time, "best": best, "steps": 2_000_000,
                         "return_at_steps": {"1000000": 500.0}}}
            for seed, time, best in ((1, None, 674.0), (2, 212.0, 4146.0), (3, 217.0, 4080.0))]
    table = tts.summarize(runs, 3000.0, [1000000], 300.0, cpus=2)
    row = "| xla_jax | 1, 2, 3 | 2 of 3 | 217 s (> 300, 212, 217) | 4,080, 674–4,146 (674, 4,146, "
    assert row in table
    assert "| -, -, - | 2.0 |" in table  # no env steps to the target recorded
    runs[1]["summary"]["steps_to_target"] = 1_900_000
    assert "| -, 1.90M, - | 2.0 |" in tts.summarize(runs, 3000.0, [1000000], 300.0, cpus=2)
    runs[2]["summary"]["time_to_target_s"] = None
    assert "| 1 of 3 | > 300 s (> 300, 212, > 300) |" in tts.summarize(runs, 3000.0, [1000000],
                                                                        300.0, cpus=2)


def test_time_to_score_passes_script_options_and_names_them(tmp_path: Path) -> None:
    """--script-args reaches this repo's scripts and names the row; the policy's entropy is
    read where the script logs it."""
    from torch.utils.tensorboard import SummaryWriter

    tts = _time_to_score_module()
    cmd = tts.command("xla_jax", "Ant-v4", 3, None, "--ent-coef 0.001 --num-steps 64")
    assert cmd[-6:] == ["--seed", "3", "--ent-coef", "0.001", "--num-steps", "64"]
    assert cmd[1].endswith("ppo_mujoco_envpool_xla_jax.py")
    writer = SummaryWriter(str(tmp_path / "run"))
    for i in range(3):
        writer.add_scalar("losses/entropy", 11.0 - i, 1000 * i)
    writer.close()
    assert tts.scalar(tmp_path, "losses/entropy") == [(0, 11.0), (1000, 10.0), (2000, 9.0)]
    runs = [{"system": "xla_jax", "script_args": args, "seed": 1, "load_average": [2.0],
             "summary": {"time_to_target_s": None, "best": 600.0, "steps": 2_000_000,
                         "return_at_steps": {"1000000": 500.0}}} for args in ("", "--ent-coef 1")]
    table = tts.summarize(runs, 3000.0, [1000000], 300.0, cpus=2)
    assert "| xla_jax | 1 | 0 of 1 |" in table and "| xla_jax --ent-coef 1 | 1 | 0 of 1 |" in table
    # A setting in the results' name keeps its digits: `_0.02.json`, not `_0.json`.
    assert tts.with_ending(tmp_path / "ant_kl_0.02", ".json") == tmp_path / "ant_kl_0.02.json"


def test_atari_speedups_times_each_phase_of_the_main_jobs_iteration(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "atari_speedups.py"), "--variants", "fp32",
         "engine_threads_1", "--combined", "--iterations", "1", "--warmup", "0", "--rounds", "1",
         "--script-steps", "0", "--out", str(tmp_path)],
        capture_output=True, text=True, check=True, timeout=600)
    data = json.loads((tmp_path / "atari_speedups.json").read_text())
    assert list(data["variants"]) == ["fp32", "engine_threads_1"]
    for per_round in data["variants"].values():
        assert all(len(per_round[p]) == 1 and per_round[p][0][0] > 0
                   for p in ("env", "inference", "update", "total"))
        assert per_round["total"][0][0] == pytest.approx(
            sum(per_round[p][0][0] for p in ("env", "inference", "update", "other")))
    assert "| fp32 |" in proc.stdout and "| engine_threads_1 |" in proc.stdout
