"""How many short conv-net runs of impala_atari.py and ppo_distributed.py complete, per split.

    python benchmark/multi_device_runs.py --runs 3 --out benchmark/results/multi_device_runs

Each configuration (script x actor threads x learner devices, on virtual CPU devices through
XLA_FLAGS) runs `--runs` times, one process at a time, each with a time limit; a run completes
when it exits with status 0. Writes OUT.json (every run's status and seconds) and OUT.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A ResNet of 4-8-8 channels on Pong; 6 envs per actor thread, 6 gradient shards (1, 2 or 3
# per learner device), 2 updates: PPO dispatches 16 minibatches of steps per update.
COMMON = [
    "--env-id",
    "Pong-v5",
    "--local-num-envs",
    "6",
    "--num-steps",
    "32",
    "--num-grad-shards",
    "6",
    "--seed",
    "3",
    "--channels",
    "4",
    "8",
    "8",
    "--hiddens",
    "64",
]
EXTRA = {"impala_atari": ["--num-minibatches", "1"], "ppo_distributed": []}


def run_once(script: str, threads: int, learners: int, limit: float) -> tuple[int, float]:
    """(exit status, seconds) of one run; status 124 when it ran past `limit`."""
    argv = [
        sys.executable,
        str(ROOT / f"{script}.py"),
        *COMMON,
        *EXTRA[script],
        "--num-actor-threads",
        str(threads),
        "--total-timesteps",
        str(2 * 6 * 32 * threads),
        "--learner-device-ids",
        *map(str, range(learners)),
    ]
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={learners}"}
    start = time.time()
    with tempfile.TemporaryDirectory() as cwd:
        try:
            code = subprocess.run(
                argv,
                cwd=cwd,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=limit,
            ).returncode
        except subprocess.TimeoutExpired:
            code = 124
    return code, time.time() - start


def main() -> None:
    """Runs every configuration and writes the tally."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scripts", nargs="+", default=list(EXTRA))
    parser.add_argument("--learners", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--out", default="benchmark/results/multi_device_runs")
    args = parser.parse_args()
    rows = []
    for script in args.scripts:
        for learners in args.learners:
            for threads in args.threads:
                runs = [run_once(script, threads, learners, args.limit) for _ in range(args.runs)]
                rows.append(
                    dict(
                        script=script,
                        actor_threads=threads,
                        learner_devices=learners,
                        status=[code for code, _ in runs],
                        seconds=[round(s, 1) for _, s in runs],
                    )
                )
                print(rows[-1], flush=True)
    Path(f"{args.out}.json").write_text(
        json.dumps(
            {
                "command_common": COMMON,
                "extra": EXTRA,
                "runs_per_configuration": args.runs,
                "rows": rows,
            },
            indent=1,
        )
    )
    lines = [
        "| script | actor threads | learner devices | completed | exit statuses |",
        "|-|-|-|-|-|",
    ]
    lines += [
        f"| {r['script']} | {r['actor_threads']} | {r['learner_devices']} | "
        f"{r['status'].count(0)} of {len(r['status'])} | {r['status']} |"
        for r in rows
    ]
    Path(f"{args.out}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
