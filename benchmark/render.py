"""MuJoCo rendering speed: envpool_core's render() beside gymnasium's, frames per second.

    python benchmark/render.py                      # Hopper-v5; 480x480 and 84x84; 1 and 8 envs
    python benchmark/render.py --task Ant-v5 --seconds 2 --repeats 5

envpool_core renders a batch with one call, `render(env_ids)`, on its worker
threads (num_threads = min(batch, cores), one OpenGL context each).
gymnasium renders env by env: `render()` of `batch` envs made with
`render_mode="rgb_array"` and the same size, in one thread, on MUJOCO_GL=egl.
Both draw with MuJoCo's own renderer on the same EGL driver (Mesa's llvmpipe
without a GPU). Only rendering is timed, from a state a few steps after reset.

Rounds are interleaved: every round (--repeats) measures each (size, batch,
system) once, in a shuffled order, so drift in machine speed affects all alike;
each figure is the median over rounds, with the min and max. Writes
benchmark/out/mujoco_render.{json,md} (git-ignored; --out PREFIX elsewhere, e.g.
--out benchmark/results/mujoco_render for the committed figures).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from throughput import machine  # the same machine record as the other tables

SYSTEMS = ("envpool_core", "gymnasium")


def _envpool_core(task: str, size: int, batch: int) -> tuple[Callable[[], int], Callable[[], None]]:
    import envpool_core

    env = envpool_core.make(task, num_envs=batch, seed=0, render_width=size, render_height=size)
    env.reset()
    env.step(np.zeros((batch, *env.action_space.shape)))
    ids = np.arange(batch, dtype=np.int32)

    def render() -> int:
        return len(env.render(ids))
    return render, env.close


def _gymnasium(task: str, size: int, batch: int) -> tuple[Callable[[], int], Callable[[], None]]:
    import gymnasium

    envs = [gymnasium.make(task, render_mode="rgb_array", width=size, height=size)
            for _ in range(batch)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
        env.step(np.zeros(env.action_space.shape))

    def render() -> int:
        for env in envs:
            env.render()
        return batch

    def close() -> None:
        for env in envs:
            env.close()
    return render, close


def measure(system: str, task: str, size: int, batch: int, seconds: float) -> float:
    """Frames per second of one system over about `seconds` (after one untimed call, which
    makes the OpenGL contexts)."""
    render, close = (_envpool_core if system == "envpool_core" else _gymnasium)(task, size, batch)
    try:
        render()
        frames, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            frames += render()
        return frames / (time.perf_counter() - start)
    finally:
        close()


def gl_renderer() -> str:
    """The OpenGL renderer string (e.g. llvmpipe) of an EGL context like the ones measured."""
    try:
        import gymnasium
        from OpenGL import GL

        env = gymnasium.make("InvertedPendulum-v5", render_mode="rgb_array", width=8, height=8)
        env.reset(seed=0)
        env.render()
        name = GL.glGetString(GL.GL_RENDERER).decode()
        env.close()
        return name
    except Exception as error:  # recorded, not fatal: the figures stand without it
        return f"unknown ({error})"


def table(task: str, results: dict[str, dict[str, list[float]]], info: dict[str, Any]) -> str:
    lines = [
        f"# MuJoCo rendering: {task}, frames/s",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores; OpenGL: {info['gl_renderer']}; "
        f"{info['repeats']} interleaved rounds of {info['seconds']} s, median (min-max).",
        "",
        "| size | envs | envpool_core | gymnasium | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for key, per_system in results.items():
        size, batch = key.split("/")
        cells = []
        for system in SYSTEMS:
            values = per_system[system]
            median = statistics.median(values)
            cells.append(f"{median:,.1f} ({min(values):,.1f}-{max(values):,.1f})")
        ratio = statistics.median(per_system["envpool_core"]) / statistics.median(
            per_system["gymnasium"])
        lines.append(f"| {size}x{size} | {batch} | {cells[0]} | {cells[1]} | {ratio:.2f}x |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="Hopper-v5")
    parser.add_argument("--sizes", type=int, nargs="+", default=[480, 84])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "out"
                                            / "mujoco_render"),
                        help="writes OUT.json and OUT.md (default: benchmark/out/, git-ignored)")
    args = parser.parse_args()
    os.environ.setdefault("MUJOCO_GL", "egl")

    keys = [f"{size}/{batch}" for size in args.sizes for batch in args.batches]
    results: dict[str, dict[str, list[float]]] = {k: {s: [] for s in SYSTEMS} for k in keys}
    order = [(k, s) for k in keys for s in SYSTEMS]
    rng = random.Random(0)
    for round_index in range(args.repeats):
        rng.shuffle(order)
        for key, system in order:
            size, batch = map(int, key.split("/"))
            fps = measure(system, args.task, size, batch, args.seconds)
            results[key][system].append(fps)
            print(f"round {round_index + 1}: {size}x{size} x{batch} {system}: {fps:,.1f} frames/s",
                  flush=True)
    info = {**machine(), "gl_renderer": gl_renderer(), "seconds": args.seconds,
            "repeats": args.repeats}
    text = table(args.task, results, info)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(f"{args.out}.json").write_text(json.dumps(
        {"task": args.task, "machine": info, "frames_per_second": results}, indent=1) + "\n")
    Path(f"{args.out}.md").write_text(text)


if __name__ == "__main__":
    main()
