"""CPU time per Atari step of one env: envpool_core (and its build variants), ale-py, EnvPool.

    python benchmark/atari_step.py                  # installed envpool_core, ale-py, EnvPool
    python benchmark/atari_step.py --variants base lto native lto_native pgo \
        --build-dir /tmp/envpool-core-variants --stages

Every system steps one Pong-v5 / Breakout-v5 env with the EnvPool paper's preprocessing
(frame skip 4, max-pool of the last two frames, 84x84 grayscale area resize, stack 4) and the
same uniformly random actions:

- envpool_core: the envpool_core found on the path (`make(..., num_envs=1)`, `step()`);
- variant:NAME: envpool_core built with one set of speed options (see VARIANTS) into
  BUILD_DIR/NAME (built on first use: cmake + ninja, MuJoCo off);
- ale_py: ale-py's wheel in a raw Python loop doing the same preprocessing with NumPy and
  OpenCV (`cv2.INTER_AREA`), the per-core ceiling of a Python env today;
- envpool: upstream EnvPool 1.2.5 with one env.

Each system lives in its own worker process for the whole run; every round (--repeats) asks
each (task, system) in a fresh shuffled order to step for --seconds while the others wait, so
a slow phase of the machine hits all of them alike. The figure is the process's CPU time
(user + system, all threads) per step: it does not depend on how busy the other cores are and
drifts far less than wall time on a shared VM. Each step is also timed on its own and the
median step reported: on a machine loaded by other jobs the median skips the steps that were
preempted or shared a core, which CPU time cannot. Ratios are taken within each round
(median, min-max). --stages also runs each variant's `atari_bench --stages` (a C++ driver timing
emulation, screen grayscale, max-pool, resize and stack). Writes
benchmark/out/atari_step.{json,md} (git-ignored; --out PREFIX elsewhere, e.g.
--out benchmark/results/atari_step for the committed figures) with the machine, versions and
load averages.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("Pong-v5", "Breakout-v5")
# CMake options of each build variant (the install's default is lto_native).
VARIANTS: dict[str, dict[str, str]] = {
    "O2": {"ENVPOOL_CORE_LTO": "OFF", "ENVPOOL_CORE_PORTABLE": "ON",
           "ENVPOOL_CORE_ATARI_FLAGS": "-O2"},
    "base": {"ENVPOOL_CORE_LTO": "OFF", "ENVPOOL_CORE_PORTABLE": "ON"},
    "lto": {"ENVPOOL_CORE_LTO": "ON", "ENVPOOL_CORE_PORTABLE": "ON"},
    "native": {"ENVPOOL_CORE_LTO": "OFF", "ENVPOOL_CORE_PORTABLE": "OFF"},
    "lto_native": {"ENVPOOL_CORE_LTO": "ON", "ENVPOOL_CORE_PORTABLE": "OFF"},
    "pgo": {"ENVPOOL_CORE_LTO": "ON", "ENVPOOL_CORE_PORTABLE": "OFF", "ENVPOOL_CORE_PGO": "ON"},
}
ACTION_SEED = 0


# --- worker side ---------------------------------------------------------------------------


def _envpool_stepper(module: Any, task: str) -> Any:
    env = module.make(task, env_type="gymnasium", num_envs=1, batch_size=1, num_threads=1, seed=0)
    env.reset()
    actions = np.random.default_rng(ACTION_SEED).integers(
        0, env.action_space.n, size=(1 << 16, 1)).astype(np.int32)

    def step(i: int) -> None:
        env.step(actions[i & 0xFFFF])
    return step


def _ale_py_stepper(task: str) -> Any:
    """ale-py's emulator with the paper's preprocessing, written as tightly as Python allows."""
    import ale_py
    import cv2
    from ale_py import roms
    from ale_py.registration import rom_id_to_name

    cv2.setNumThreads(1)
    rom = {rom_id_to_name(r): r for r in roms.get_all_rom_ids()}[task.removesuffix("-v5")]
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(roms.get_rom_path(rom))
    action_set = ale.getMinimalActionSet()
    fire = ale_py.Action.FIRE in action_set
    screens = [np.zeros((210, 160), np.uint8), np.zeros((210, 160), np.uint8)]
    stack = np.zeros((4, 84, 84), np.uint8)
    rng = np.random.default_rng(ACTION_SEED)
    actions = rng.integers(0, len(action_set), size=1 << 16)
    state = {"over": True}

    def reset() -> None:
        ale.reset_game()
        for _ in range(int(rng.integers(1, 31)) - fire):
            ale.act(ale_py.Action.NOOP)
        if fire:
            ale.act(ale_py.Action.FIRE)
        ale.getScreenGrayscale(screens[0])
        stack[:] = cv2.resize(screens[0], (84, 84), interpolation=cv2.INTER_AREA)

    def step(i: int) -> None:
        if state["over"]:
            reset()
            state["over"] = False
            return
        action = action_set[actions[i & 0xFFFF]]
        for frame in range(4):
            ale.act(action)
            if ale.game_over():
                state["over"] = True
                break
            if frame >= 2:
                ale.getScreenGrayscale(screens[3 - frame])
        np.maximum(screens[0], screens[1], out=screens[0])
        stack[:-1] = stack[1:]
        stack[-1] = cv2.resize(screens[0], (84, 84), interpolation=cv2.INTER_AREA)
        ale.lives()

    return step


def worker(system: str, task: str) -> None:
    """Serves `run SECONDS` requests on stdin with one JSON line each on stdout."""
    if system in ("envpool_core", "envpool") or system.startswith("variant:"):
        module = __import__("envpool" if system == "envpool" else "envpool_core")
        step = _envpool_stepper(module, task)
    elif system == "ale_py":
        step = _ale_py_stepper(task)
    else:
        raise SystemExit(f"unknown system {system!r}")
    i = 0
    for _ in range(200):  # warm-up: caches, branch predictors, first episode's reset
        step(i)
        i += 1
    print(json.dumps({"ready": True, "module": getattr(sys.modules.get("envpool_core"),
                                                       "__file__", None)}), flush=True)
    for line in sys.stdin:
        seconds = float(line.split()[1])
        steps, cpu0, t0 = 0, time.process_time(), time.perf_counter()
        durations = []
        clock = time.perf_counter_ns
        while True:
            for _ in range(16):
                start = clock()
                step(i)
                durations.append(clock() - start)
                i += 1
            steps += 16
            wall = time.perf_counter() - t0
            if wall >= seconds:
                break
        cpu = time.process_time() - cpu0
        print(json.dumps({"steps": steps, "cpu_us": 1e6 * cpu / steps,
                          "wall_us": 1e6 * wall / steps,
                          "median_us": statistics.median(durations) / 1e3}), flush=True)


# --- coordinator side ----------------------------------------------------------------------


def build_variant(name: str, build_dir: Path) -> dict[str, Any]:
    """Configures and builds one variant (MuJoCo off, atari_bench on); incremental when built.

    The record keeps the time of the first (full) build."""
    out = build_dir / name
    record = out / "variant.json"
    env = {k: v for k, v in os.environ.items()
           if k not in ("ENVPOOL_CORE_PORTABLE", "ENVPOOL_CORE_PGO")}
    flags = [f"-D{k}={v}" for k, v in VARIANTS[name].items()]
    t0 = time.perf_counter()
    subprocess.run(["cmake", "-S", str(ROOT / "envpool_core"), "-B", str(out), "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DENVPOOL_CORE_WITH_MUJOCO=OFF",
                    "-DENVPOOL_CORE_ATARI_BENCH=ON", *flags], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(out)], check=True, env=env, stdout=subprocess.DEVNULL)
    if record.exists():
        return json.loads(record.read_text())
    info = {"name": name, "cmake": VARIANTS[name], "build_seconds": time.perf_counter() - t0,
            "load_during_build": os.getloadavg()[0]}
    record.write_text(json.dumps(info))
    return info


class Worker:
    """One system and task in its own process."""

    def __init__(self, system: str, task: str, pythonpath: str | None) -> None:
        env = dict(os.environ)
        if pythonpath is not None:
            env["PYTHONPATH"] = pythonpath
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", system, "--task", task],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.module = json.loads(self._read())["module"]

    def _read(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.proc.args} died")
        return line

    def run(self, seconds: float) -> dict[str, float]:
        self.proc.stdin.write(f"run {seconds}\n")
        self.proc.stdin.flush()
        return json.loads(self._read())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def bench_steps(build_dir: Path, variant: str, task: str, steps: int) -> dict[str, float]:
    """CPU and median step time of a variant's C++ driver stepping one env (no Python)."""
    from ale_py import roms

    exe = build_dir / variant / "csrc" / "atari" / "atari_bench"
    proc = subprocess.run([str(exe), str(Path(roms.get_rom_path("pong")).parent), "--task", task,
                           "--steps", str(steps)], capture_output=True, text=True, check=True)
    out = json.loads(proc.stdout)
    return {"steps": steps, "cpu_us": out["cpu_us_per_step"], "wall_us": out["wall_us_per_step"],
            "median_us": out["median_step_us"]}


def stages(build_dir: Path, variant: str, task: str, steps: int,
           ale_grayscale: bool) -> dict[str, Any]:
    """The C++ stage timer of one variant (its observations are checked against the env's).

    With `ale_grayscale` the timer's replica uses ALE's own grayscale conversion and a
    separate max-pool, the env's path before GrayscaleTable."""
    from ale_py import roms

    exe = build_dir / variant / "csrc" / "atari" / "atari_bench"
    proc = subprocess.run([str(exe), str(Path(roms.get_rom_path("pong")).parent), "--task", task,
                           "--steps", str(steps), "--stages"]
                          + (["--ale-grayscale"] if ale_grayscale else []),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):,.1f} ({min(values):,.1f}-{max(values):,.1f})"


def report(data: dict[str, Any]) -> str:
    """Markdown tables of a run."""
    lines = [f"Machine: {data['machine']['cpu']}, {data['machine']['cores']} cores; "
             f"versions {data['machine']['versions']}; {data['repeats']} rounds of "
             f"{data['seconds']} s per system; load average (1 min) during the rounds "
             f"{min(data['load']):.1f}-{max(data['load']):.1f}.", ""]
    systems = data["systems"]
    ref = "ale_py" if "ale_py" in systems else systems[0]
    for task in data["tasks"]:
        per = data["results"][task]
        lines += [f"**{task}**: per step, median of the rounds (min-max); ratios to {ref} "
                  "within each round: median (min-max)", "",
                  "| system | CPU µs/step | ÷ " + ref + " (CPU) | median step µs | ÷ " + ref
                  + " (median step) |", "|---|---:|---:|---:|---:|"]
        for system in systems:
            cells = []
            for key in ("cpu_us", "median_us"):
                values = [r[key] for r in per[system]]
                ratios = [a[key] / b[key] for a, b in zip(per[system], per[ref], strict=True)]
                cells += [_summary(values), f"{statistics.median(ratios):.3f}× "
                          f"({min(ratios):.3f}-{max(ratios):.3f})"]
            lines.append(f"| {system} | " + " | ".join(cells) + " |")
        lines.append("")
    if data.get("stages"):
        names = ["emulate", "screen_grayscale", "max_pool", "resize", "stack", "replica_total",
                 "env_step"]
        lines += ["**Stages** (atari_bench --stages, µs per step: median over the steps)", "",
                  "| variant | task | " + " | ".join(names) + " |",
                  "|---|---|" + "---:|" * len(names)]
        for key, result in data["stages"].items():
            variant, task = key.rsplit("/", 1)
            cells = [f"{result['stages'][n]['median_us']:.1f}" for n in names]
            lines.append(f"| {variant} | {task} | " + " | ".join(cells) + " |")
        lines.append("")
    if data.get("builds"):
        lines += ["**Builds** (cmake configure + ninja, MuJoCo off, on the machine above under the "
                  "load given; CPU s: user + system of the build, where recorded)", "",
                  "| variant | CMake options | build s | CPU s | load |",
                  "|---|---|---:|---:|---:|"]
        for b in data["builds"]:
            opts = " ".join(f"{k}={v}" for k, v in b["cmake"].items())
            cpu = f"{b['build_cpu_seconds']:.0f}" if "build_cpu_seconds" in b else ""
            lines.append(f"| {b['name']} | {opts} | {b['build_seconds']:.0f} | {cpu} | "
                         f"{b['load_during_build']:.1f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    """Builds the variants asked for, runs the interleaved rounds and writes the results."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--task", help=argparse.SUPPRESS)
    parser.add_argument("--systems", nargs="+", default=["envpool_core", "ale_py", "envpool"],
                        help="envpool_core, ale_py, envpool")
    parser.add_argument("--variants", nargs="*", default=[], choices=sorted(VARIANTS),
                        help="also measure these build variants of envpool_core")
    parser.add_argument("--build-dir", type=Path, default=Path("/tmp/envpool-core-variants"))
    parser.add_argument("--seconds", type=float, default=1.0, help="per system per round")
    parser.add_argument("--repeats", type=int, default=10, help="rounds")
    parser.add_argument("--stages", action="store_true",
                        help="also run each variant's C++ stage timer")
    parser.add_argument("--stage-steps", type=int, default=5000)
    parser.add_argument("--cxx-steps", type=int, default=1500,
                        help="steps of each variant's atari_bench per round (0: none)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmark" / "out" / "atari_step",
                        help="writes OUT.json and OUT.md (default: benchmark/out/, git-ignored)")
    parser.add_argument("--from-json", type=Path, help="only remake the Markdown of a saved run")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.task)
        return
    if args.from_json:
        text = report(json.loads(args.from_json.read_text()))
        args.from_json.with_suffix(".md").write_text(text + "\n")
        print(text)
        return

    from throughput import machine

    builds = [build_variant(v, args.build_dir) for v in args.variants]
    systems = list(args.systems) + [f"variant:{v}" for v in args.variants]
    workers: dict[tuple[str, str], Worker] = {}
    for task in args.tasks:
        for system in systems:
            path = None
            if system.startswith("variant:"):
                path = str(args.build_dir / system.split(":", 1)[1] / "python")
            workers[task, system] = Worker(system, task, path)
    results: dict[str, dict[str, list[dict[str, float]]]] = {
        t: {s: [] for s in systems} for t in args.tasks}
    load = []
    # atari_bench:NAME: the variant's C++ driver, without Python, one process per measurement.
    benches = [f"atari_bench:{v}" for v in args.variants if args.cxx_steps > 0]
    for task in args.tasks:
        results[task].update({b: [] for b in benches})
    order = list(workers) + [(t, b) for t in args.tasks for b in benches]
    rng = random.Random(0)
    for r in range(args.repeats):
        rng.shuffle(order)
        load.append(os.getloadavg()[0])
        for task, system in order:
            if system.startswith("atari_bench:"):
                results[task][system].append(
                    bench_steps(args.build_dir, system.split(":", 1)[1], task, args.cxx_steps))
            else:
                results[task][system].append(workers[task, system].run(args.seconds))
        print(f"round {r + 1}/{args.repeats} done, load {load[-1]:.1f}", file=sys.stderr)
    modules = {f"{t}/{s}": w.module for (t, s), w in workers.items()}
    for w in workers.values():
        w.close()
    data = {"machine": machine(), "tasks": args.tasks, "systems": systems + benches,
            "seconds": args.seconds, "repeats": args.repeats, "load": load,
            "results": results, "builds": builds, "modules": modules,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.stages:
        data["stages"] = {}
        for v in args.variants:
            for t in args.tasks:
                for ale_gray in (False, True):
                    name = f"{v} (ALE's grayscale)" if ale_gray else v
                    data["stages"][f"{name}/{t}"] = stages(args.build_dir, v, t, args.stage_steps,
                                                           ale_gray)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=2))
    text = report(data)
    args.out.with_suffix(".md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
