"""Smoke tests of benchmark/: tiny configurations produce every output, every row measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_throughput_prints_side_by_side_table(tmp_path: Path) -> None:
    out = tmp_path / "cartpole.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmark" / "throughput.py"), "--task", "CartPole-v1",
         "--settings", "4,4,1", "4,2,1", "--seconds", "0.1", "--repeats", "2", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300)
    for setting in ("4,4,1", "4,2,1"):
        for system in ("envpool_core", "envpool"):
            assert f"| {setting} | {system} |" in proc.stdout
    results = json.loads(out.read_text())["results"]
    assert all(len(v) == 2 and min(v) > 0 for s in results.values() for v in s.values())


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
        assert data["scaling_model"][task]["predicted_fps"]["DGX-A100"] > 0
    assert (tmp_path / "paper_table_pong.png").stat().st_size > 0
    assert (tmp_path / "paper_table_ant.png").stat().st_size > 0


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
