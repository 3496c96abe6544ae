"""CartPole steps/s through envpool_core's Python layer, for two installs, interleaved.

CartPole steps in well under a microsecond, so its steps/s measure the per-call cost of
the Python layer (send, recv and arranging the outputs). Steps/s are per second of CPU time
of the calling thread (which runs the Python layer, and in sync mode steps one env itself),
so that other load on the machine matters less than with wall time. Each measurement runs
in a fresh process; rounds alternate the installs in a shuffled order.

    python benchmark/api_overhead.py --site before= --site after=/tmp/site-x --rounds 5

`--site NAME=DIR` puts DIR first on PYTHONPATH (empty: the installed envpool_core).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

SNIPPET = """
import time, numpy as np, envpool_core as ep
env = ep.make("CartPole-v1", env_type={env_type!r}, num_envs={num_envs}, seed=0)
env.reset()
action = np.zeros({num_envs}, dtype=np.int32)
for _ in range(2000):
    env.step(action)
start = time.thread_time()
for _ in range({steps}):
    env.step(action)
print({steps} * {num_envs} / (time.thread_time() - start))
"""
SETTINGS = [("gymnasium", 1, 40000), ("gymnasium", 8, 20000), ("gym", 1, 40000)]


def measure(site: str, env_type: str, num_envs: int, steps: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if site:
        env["PYTHONPATH"] = site + os.pathsep + env.get("PYTHONPATH", "")
    code = SNIPPET.format(env_type=env_type, num_envs=num_envs, steps=steps)
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env,
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", action="append", required=True, help="NAME=DIR")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="write a JSON + markdown here")
    args = parser.parse_args()
    sites = dict(s.split("=", 1) for s in args.site)
    runs: dict[str, dict[str, list[float]]] = {n: {} for n in sites}
    rng = random.Random(0)
    for _ in range(args.rounds):
        for env_type, num_envs, steps in SETTINGS:
            order = list(sites)
            rng.shuffle(order)
            for name in order:
                key = f"{env_type} num_envs={num_envs}"
                sps = measure(sites[name], env_type, num_envs, steps)
                runs[name].setdefault(key, []).append(sps)
    rows = ["| setting | " + " | ".join(f"{n} (median steps/s)" for n in sites) + " |",
            "|---|" + "---|" * len(sites)]
    for key in runs[next(iter(sites))]:
        cells = [f"{statistics.median(runs[n][key]):,.0f}" for n in sites]
        rows.append(f"| {key} | " + " | ".join(cells) + " |")
    table = "\n".join(rows)
    print(table)
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(runs, indent=2) + "\n")
        args.out.with_suffix(".md").write_text(
            f"# Python-layer cost: CartPole steps per CPU-second of the calling thread "
            f"({args.rounds} interleaved rounds)\n\n"
            f"Produced by `benchmark/api_overhead.py`; sites: {sites}.\n\n{table}\n")


if __name__ == "__main__":
    main()
