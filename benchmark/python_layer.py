"""What envpool_core's Python layer adds to one step, per task, in one process.

Round after round, a single-env pool is stepped three ways, in a shuffled order, for
about `--seconds` each:

- `cxx`: the extension's own `send` and `recv` (`pool._pool`), outputs dropped at once, so the
  engine writes every step into the same output block;
- `cxx_keep`: the same, but the last outputs are kept until the next step returns, as any
  caller that uses them does (the engine then writes into another block: zero-copy);
- `step`: `pool.step(action)`, the public call (action checks, env ids, the outputs arranged
  into gymnasium's tuple and info dict).

Figures are CPU µs per step of the calling thread (in sync mode it steps the env itself), the
median over rounds, and the per-round differences: `step - cxx_keep` is the Python code,
`cxx_keep - cxx` the cost of writing into a block that is not the one just read.

    python benchmark/python_layer.py --tasks CartPole-v1 Pong-v5 Breakout-v5 --rounds 15 \
        --out benchmark/results/python_layer
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from pathlib import Path

import numpy as np

import envpool_core

WAYS = ("cxx", "cxx_keep", "step")


def time_way(pool: envpool_core.EnvPool, way: str, steps: int) -> float:
    """CPU µs per step of `steps` steps done `way`."""
    action = np.zeros(1, dtype=pool._action_dtype)
    env_ids = np.zeros(1, dtype=np.int32)
    send, recv = pool._pool.send, pool._pool.recv
    kept = None
    start = time.thread_time()
    if way == "cxx":
        for _ in range(steps):
            send(action, env_ids)
            recv()
    elif way == "cxx_keep":
        for _ in range(steps):
            send(action, env_ids)
            kept = recv()
    else:
        for _ in range(steps):
            kept = pool.step(action)
    elapsed = time.thread_time() - start
    del kept
    return 1e6 * elapsed / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["CartPole-v1", "Pong-v5"])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.25,
                        help="about how long each way runs per round")
    parser.add_argument("--out", type=Path, default=None, help="write .json and .md here")
    args = parser.parse_args()
    rng = random.Random(0)
    results: dict[str, dict[str, list[float]]] = {}
    load = [os.getloadavg()[0]]
    for task in args.tasks:
        pool = envpool_core.make(task, env_type="gymnasium", num_envs=1, batch_size=1,
                                 num_threads=1, seed=0)
        pool.reset()
        for way in WAYS:  # warm-up, and the step count that takes about --seconds
            per_step = time_way(pool, way, 200)
        steps = max(200, int(args.seconds * 1e6 / per_step))
        runs: dict[str, list[float]] = {way: [] for way in WAYS}
        for _ in range(args.rounds):
            order = list(WAYS)
            rng.shuffle(order)
            for way in order:
                runs[way].append(time_way(pool, way, steps))
        pool.close()
        results[task] = runs
        load.append(os.getloadavg()[0])

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.1f}"

    rows = ["| task | cxx | cxx_keep | step | step - cxx_keep (Python code) | "
            "cxx_keep - cxx (another block) |", "|---|---:|---:|---:|---:|---:|"]
    for task, runs in results.items():
        python = [s - k for s, k in zip(runs["step"], runs["cxx_keep"], strict=True)]
        block = [k - c for k, c in zip(runs["cxx_keep"], runs["cxx"], strict=True)]
        rows.append(f"| {task} | {med(runs['cxx'])} | {med(runs['cxx_keep'])} | "
                    f"{med(runs['step'])} | {med(python)} | {med(block)} |")
    table = "\n".join(rows)
    print(table)
    if args.out:
        machine = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                   "python": platform.python_version(), "load_average_1min": load,
                   "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
        args.out.with_suffix(".json").write_text(
            json.dumps({"machine": machine, "rounds": args.rounds, "results": results},
                       indent=1) + "\n")
        args.out.with_suffix(".md").write_text(
            "# What the Python layer adds to one step (CPU µs per step, median of "
            f"{args.rounds} interleaved rounds)\n\nProduced by `benchmark/python_layer.py`; "
            f"machine: {machine}.\n\n{table}\n")


if __name__ == "__main__":
    main()
