"""Steps/s of a `jax.lax.scan` rollout through `xla()` against the Python `step()` loop.

The policy is trivial (a constant action), so the figures are those of stepping itself:
  - `step`: `env.step(action)` in a Python loop, the action a NumPy array;
  - `step+jit`: the same loop, the action computed by a jitted JAX function of the
    observation each step (what a JAX script does without `xla()`: a dispatch and two
    host-device transfers per step);
  - `xla_scan`: `jax.jit(lax.scan(step))` over `xla()`'s step, the action computed from the
    observation inside the scan; compilation is done before timing.
Each measurement runs in a fresh process, the modes alternate in a shuffled order per round;
the load average is recorded with the figures.

    python benchmark/xla_step.py --tasks Ant-v4 CartPole-v1 --num-envs 1 16 64 --rounds 3 \
        --out benchmark/results/xla_step
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
import os, time
os.environ["JAX_PLATFORMS"] = "cpu"
import jax, jax.numpy as jnp, numpy as np, envpool_core as ep
env = ep.make({task!r}, env_type="gymnasium", num_envs={num_envs}, seed=0)
space = env.action_space
shape, dtype = (({num_envs},) + space.shape, space.dtype) if hasattr(space, "low") else \\
    (({num_envs},), np.int32)
dtype = np.float32 if dtype == np.float64 else dtype
def policy(xp, obs):  # a constant action that still depends on the observation
    return xp.zeros(shape, dtype) + 0 * obs[:, :1].sum().astype(dtype)
mode, steps = {mode!r}, {steps}
if mode == "xla_scan":
    handle, _, _, step = env.xla()
    obs = jnp.asarray(env.reset()[0])
    def body(carry, _):
        handle, obs = carry
        handle, out = step(handle, policy(jnp, obs))
        return (handle, out[0]), out[1]
    run = jax.jit(lambda h, o: jax.lax.scan(body, (h, o), None, length=steps))
    (handle, obs), rewards = run(handle, obs)  # compiles, and warms up
    jax.block_until_ready(rewards)
    start = time.perf_counter()
    (handle, obs), rewards = run(handle, obs)
    jax.block_until_ready(rewards)
else:
    act = jax.jit(lambda obs: policy(jnp, obs)) if mode == "step+jit" else \\
        (lambda obs: policy(np, obs))
    obs = env.reset()[0]
    for _ in range(min(steps, 1000)):
        obs = env.step(np.asarray(act(obs)))[0]
    start = time.perf_counter()
    for _ in range(steps):
        obs = env.step(np.asarray(act(obs)))[0]
print(steps * {num_envs} / (time.perf_counter() - start))
"""
MODES = ("step", "step+jit", "xla_scan")


def measure(task: str, num_envs: int, mode: str, steps: int) -> float:
    code = SNIPPET.format(task=task, num_envs=num_envs, mode=mode, steps=steps)
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                         text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["Ant-v4", "CartPole-v1"])
    parser.add_argument("--num-envs", nargs="+", type=int, default=[1, 16, 64])
    parser.add_argument("--env-steps", type=int, default=200000,
                        help="env steps per measurement (divided by num_envs per batch)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="write OUT.json and OUT.md")
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {}
    loads = []
    rng = random.Random(0)
    for _ in range(args.rounds):
        for task in args.tasks:
            for num_envs in args.num_envs:
                key = f"{task} x{num_envs}"
                for mode in rng.sample(MODES, len(MODES)):
                    steps = max(args.env_steps // num_envs, 10)
                    results.setdefault(key, {}).setdefault(mode, []).append(
                        measure(task, num_envs, mode, steps))
                loads.append(os.getloadavg()[0])
    lines = ["| task x envs | " + " | ".join(f"{m} steps/s" for m in MODES)
             + " | xla_scan / step |", "|-" * (len(MODES) + 2) + "|"]
    for key, by_mode in results.items():
        med = {m: statistics.median(v) for m, v in by_mode.items()}
        lines.append(f"| {key} | " + " | ".join(f"{med[m]:,.0f}" for m in MODES)
                     + f" | {med['xla_scan'] / med['step']:.2f} |")
    lines.append(f"\nmedian of {args.rounds} rounds; 1-minute load average during the rounds: "
                 f"{min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores")
    table = "\n".join(lines)
    print(table)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(json.dumps(
            {"results": results, "load_average": loads, "cpus": os.cpu_count(),
             "env_steps": args.env_steps}, indent=1))
        args.out.with_suffix(".md").write_text(table + "\n")


if __name__ == "__main__":
    main()
