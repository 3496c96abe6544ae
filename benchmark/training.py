"""Training speed and scores of the four scripts, for fixed budgets, in one table and plot.

    python benchmark/training.py --runs ppo_mujoco_envpool:HalfCheetah-v4:1000000 \
        ppo_mujoco_envpool:Hopper-v4:1000000 ppo_atari_envpool:Pong-v5:1000000
    python benchmark/training.py --runs ppo_atari_envpool:Pong-v5:200000 --engine envpool
    python benchmark/training.py --reference-python /path/to/venv-with-gym/bin/python \
        --runs ~/cleanrl/cleanrl/ppo_atari_envpool.py:Pong-v5:200000

Each run is `script:env_id:total_timesteps[:extra args separated by spaces]`. The
script runs as a subprocess in `--workdir` (its TensorBoard logs land in
`runs/` there); afterwards its `charts/episodic_return` and `charts/SPS`
curves are read back. `--engine envpool` runs the same script on upstream
EnvPool instead of envpool_core (through a one-line `envpool_core` shim on
PYTHONPATH), so the two engines can be compared with identical learning code.

A script given as a path ending in `.py` is a reference script from another
project (CleanRL's or Cleanba's own, from a checkout of theirs): it runs as it
is, on its own env stack (upstream EnvPool, or gymnasium), with
`--reference-python` (an interpreter that also has their extra packages).
`reference_compat/sitecustomize.py` adapts what changed since they were written
(EnvPool 0.8's gym-0.23 API, one gymnasium 1.x signature) without touching them.
With `--reference-engine envpool_core` a reference script runs instead as a user of this
engine runs it: a copy with its `import envpool` line changed to `import envpool_core as
envpool`, nothing else (CleanRL's EnvPool scripts run so unchanged otherwise).
Writes `<name>.json`, `<name>.md` and `<name>.png` to `--out` (default: benchmark/out/,
git-ignored; `--out benchmark/results` replaces the committed figures); `--merge`
combines the JSON files of earlier runs into one such table and plot.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plots
from cleanrl_clients import IMPORT_LINE, OUR_IMPORT

ROOT = Path(__file__).resolve().parents[1]
# Reproducing a figure must not overwrite the committed one it is compared with.
OUT = Path(__file__).resolve().parent / "out"


def scalars(run_dir: Path, tag: str) -> list[tuple[int, float]]:
    """(step, value) pairs of one TensorBoard tag in a run directory."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    if tag not in acc.Tags()["scalars"]:
        return []
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def import_swapped(script: Path, into: Path) -> Path:
    """A copy of `script` in `into` with its `import envpool` line changed to envpool_core."""
    text = script.read_text()
    if IMPORT_LINE not in text:
        raise SystemExit(f"error: {script} has no line {IMPORT_LINE.strip()!r} to change")
    copy = into / script.name
    copy.write_text(text.replace(IMPORT_LINE, OUR_IMPORT, 1))
    return copy


def run_one(spec: str, workdir: Path, engine: str, seed: int,
            reference_python: str, reference_engine: str = "upstream") -> dict[str, Any]:
    """Runs one `script:env_id:steps[:args]` and summarises its logs."""
    script, env_id, steps, *extra = spec.split(":", 3)
    reference = script.endswith(".py")
    if reference:
        # The reference script's own env stack as it is written, or envpool_core by its import.
        engine = reference_engine
    name = f"{Path(script).stem}-{env_id}-{engine}-{seed}"
    python, path = ((reference_python, Path(script).expanduser()) if reference
                    else (sys.executable, ROOT / f"{script}.py"))
    if reference and engine == "envpool_core":
        path = import_swapped(path, Path(tempfile.mkdtemp()))
    cmd = [python, str(path), "--env-id", env_id,
           "--total-timesteps", steps, "--seed", str(seed), "--exp-name", name,
           *(extra[0].split() if extra else [])]
    env = dict(os.environ)
    if reference and engine == "upstream":
        env["REFERENCE_COMPAT"] = "1"
        env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent /
                                                 "reference_compat"), env.get("PYTHONPATH", "")])
    elif engine == "envpool":
        shim = Path(tempfile.mkdtemp()) / "envpool_core"
        shim.mkdir()
        (shim / "__init__.py").write_text("from envpool import *  # noqa: F403\n")
        env["PYTHONPATH"] = os.pathsep.join([str(shim.parent), env.get("PYTHONPATH", "")])
    start = time.time()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.time() - start
    result: dict[str, Any] = {"run": spec, "engine": engine, "seed": seed, "wall_s": wall,
                              "returncode": proc.returncode, "reference": reference}
    if proc.returncode != 0:
        result["error"] = proc.stderr[-2000:]
        return result
    run_dir = max((workdir / "runs").glob(f"*__{name}__*"), key=lambda p: p.stat().st_mtime)
    # Cleanba's scripts log only a running average of recent returns.
    returns = (scalars(run_dir, "charts/episodic_return")
               or scalars(run_dir, "charts/avg_episodic_return"))
    sps = scalars(run_dir, "charts/SPS")
    tail = [v for _, v in returns[-max(1, len(returns) // 10):]]
    result.update(returns=returns, sps=sps, episodes=len(returns),
                  final_return=statistics.mean(tail) if tail else None,
                  mean_sps=statistics.mean(v for _, v in sps) if sps else None)
    return result


def markdown(results: list[dict[str, Any]]) -> str:
    """One row per run: budget, engine, SPS, wall time, final return.

    SPS is the script's last logged value, global steps / elapsed time at the end of the run
    (a mean of its running values would overweight the slow start of jitted scripts)."""
    lines = ["| script | env | steps | engine | seed | SPS at the end | wall time | episodes | "
             "final return (mean of last 10% of episodes) |", "|---|---|---:|---|---:|---:|---:|"
             "---:|---:|"]
    for r in results:
        script, env_id, steps = r["run"].split(":")[:3]
        if r.get("reference"):
            script = f"{Path(script).stem} (reference)"
        if "error" in r:
            lines.append(f"| {script} | {env_id} | {int(steps):,} | {r['engine']} | {r['seed']} "
                         f"| failed | | | see JSON |")
            continue
        final = "n/a" if r["final_return"] is None else f"{r['final_return']:.1f}"
        lines.append(f"| {script} | {env_id} | {int(steps):,} | {r['engine']} | {r['seed']} | "
                     f"{r['sps'][-1][1]:,.0f} | {r['wall_s'] / 60:.1f} min | {r['episodes']} | "
                     f"{final} |")
    return "\n".join(lines)


def plot(results: list[dict[str, Any]], path: Path) -> None:
    """Return against env steps and wall time per env id, mean over seeds (benchmark/plots.py)."""
    runs = plots.runs_from_training(results)
    if runs:
        plots.learning_curves(runs, path)


def main() -> None:
    """Runs the requested trainings and writes the table, JSON and plot."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    runs = parser.add_mutually_exclusive_group(required=True)
    runs.add_argument("--runs", nargs="+", help="script:env_id:total_timesteps[:extra args]")
    runs.add_argument("--merge", nargs="+", type=Path,
                      help="no runs: combine earlier training JSON files into one table and plot")
    parser.add_argument("--engine", choices=("envpool_core", "envpool"), nargs="+",
                        default=["envpool_core"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--reference-python", default=sys.executable,
                        help="interpreter for reference scripts given as paths")
    parser.add_argument("--reference-engine", choices=("upstream", "envpool_core"),
                        default="upstream",
                        help="reference scripts on their own env stack, or on envpool_core "
                        "through their import line changed")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temp dir")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="output folder (default: benchmark/out/, git-ignored; "
                        "benchmark/results/ holds the committed figures)")
    parser.add_argument("--name", default="training", help="output file stem")
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for path in args.merge or []:
        results.extend(json.loads(path.read_text()))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="training_"))
    workdir.mkdir(parents=True, exist_ok=True)
    for spec in args.runs or []:
        for seed in args.seeds:
            # A reference script runs on its own env stack, so once.
            engines = args.engine[:1] if spec.split(":")[0].endswith(".py") else args.engine
            for engine in engines:
                results.append(run_one(spec, workdir, engine, seed, args.reference_python,
                                       args.reference_engine))
                print(markdown(results[-1:]).splitlines()[-1], flush=True)
    table = markdown(results)
    (args.out / f"{args.name}.json").write_text(json.dumps(results, indent=1))
    (args.out / f"{args.name}.md").write_text(table + "\n")
    plot(results, args.out / f"{args.name}.png")
    print(table)


if __name__ == "__main__":
    main()
