"""Environment throughput of envpool_core and other systems, side by side.

    python benchmark/throughput.py --task CartPole-v1 --settings 8,8,2 1,1,1
    python benchmark/throughput.py --task Ant-v4 --settings 8,8,2 12,4,2 \
        --systems envpool_core envpool gymnasium_async

A setting is `num_envs,batch_size,num_threads` (batch_size < num_envs: async
mode; for gymnasium_async, for_loop and ceiling only num_envs is used). Atari tasks get
the EnvPool paper's preprocessing everywhere: gymnasium's AtariPreprocessing
(noop 30, frame skip 4, 84x84 grayscale, no episodic life, no reward clip) and a
4-frame stack; ale_vector is ale-py's own threaded AtariVectorEnv. ceiling is
no batching system but a bound on all of them: the same num_envs envs, each a
single-env envpool_core, shared out over one process per core, with nothing to
coordinate. Systems are
measured interleaved: every round (--repeats) measures each (setting, system)
pair once, in a shuffled order, so drift in machine speed affects all alike;
each figure is the median over rounds, with the min and max. A last table
compares each system's best setting with envpool_core's, also round by round.
Steps/s counts env steps (one per env per step call); the EnvPool paper's FPS
is steps/s x frame_skip.

To compare builds of envpool_core in one run, `--builds NAME=DIR` adds a system NAME: the
envpool_core found in DIR (a `pip install --target DIR` of another checkout, or the
site-packages of the installed one), measured like envpool_core but in a process of its own:

    python benchmark/throughput.py --task Ant-v4 --settings 16,8,1 \
        --builds main=$(python -c 'import site; print(site.getsitepackages()[0])') \
        branch=/tmp/site-branch --systems main branch ceiling
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

SYSTEMS = ("envpool_core", "envpool", "gymnasium_async", "for_loop", "ale_vector", "ceiling")


def _actions(space: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    if hasattr(space, "n"):
        return rng.integers(0, space.n, size=n).astype(np.int32)
    return rng.uniform(space.low, space.high, size=(n, *space.shape)).astype(space.dtype)


def _pool_runner(module: Any, task: str, num_envs: int, batch: int, threads: int,
                 extra: dict[str, Any]) -> tuple[Callable[[int], int], Callable[[], None]]:
    env = module.make(task, env_type="gymnasium", num_envs=num_envs, batch_size=batch,
                      num_threads=threads, seed=0, **extra)
    actions = _actions(env.action_space, batch, np.random.default_rng(0))
    if batch == num_envs:
        env.reset()

        def run(calls: int) -> int:
            for _ in range(calls):
                env.step(actions)
            return calls * batch
    else:
        env.async_reset()

        def run(calls: int) -> int:
            for _ in range(calls):
                info = env.recv()[-1]
                env.send(actions, info["env_id"])
            return calls * batch
    return run, env.close


def _gymnasium_runner(task: str, num_envs: int, vector: bool,
                      extra: dict[str, Any]) -> tuple[Callable[[int], int], Callable[[], None]]:
    import gymnasium

    atari = task not in gymnasium.registry  # Atari ids live under ALE/ in gymnasium

    def make_one() -> Any:
        if not atari:
            return gymnasium.make(task, **extra)
        import ale_py

        gymnasium.register_envs(ale_py)
        env = gymnasium.make(f"ALE/{task}", frameskip=1, repeat_action_probability=0.0, **extra)
        env = gymnasium.wrappers.AtariPreprocessing(env, noop_max=30, frame_skip=4,
                                                    screen_size=84, terminal_on_life_loss=False,
                                                    grayscale_obs=True)
        return gymnasium.wrappers.FrameStackObservation(env, 4)

    if vector:
        env = gymnasium.vector.AsyncVectorEnv([make_one] * num_envs)
        env.reset(seed=0)
        actions = _actions(env.single_action_space, num_envs, np.random.default_rng(0))

        def run(calls: int) -> int:
            for _ in range(calls):
                env.step(actions)
            return calls * num_envs
        return run, env.close

    envs = [make_one() for _ in range(num_envs)]
    for i, e in enumerate(envs):
        e.reset(seed=i)
    actions = _actions(envs[0].action_space, num_envs, np.random.default_rng(0))

    def run_loop(calls: int) -> int:
        for _ in range(calls):
            for e, a in zip(envs, actions, strict=False):
                _, _, term, trunc, _ = e.step(a)
                if term or trunc:
                    e.reset()
        return calls * num_envs

    def close() -> None:
        for e in envs:
            e.close()
    return run_loop, close


def _ale_vector_runner(task: str, num_envs: int, batch: int,
                       threads: int) -> tuple[Callable[[int], int], Callable[[], None]]:
    from ale_py.vector_env import AtariVectorEnv

    game = "".join("_" + c.lower() if c.isupper() else c for c in task.split("-")[0]).lstrip("_")
    env = AtariVectorEnv(game=game, num_envs=num_envs, batch_size=batch, num_threads=threads,
                         reward_clipping=False)
    env.reset(seed=0)
    actions = _actions(env.single_action_space, batch, np.random.default_rng(0))

    def run(calls: int) -> int:
        for _ in range(calls):
            env.send(actions)
            env.recv()
        return calls * batch
    return run, env.close


def make_runner(system: str, task: str, setting: tuple[int, int, int],
                extra: dict[str, Any]) -> tuple[Callable[[int], int], Callable[[], None]]:
    """Builds `run(calls) -> env steps` and `close()` for one system and setting."""
    num_envs, batch, threads = setting
    if system == "envpool_core":
        import envpool_core

        return _pool_runner(envpool_core, task, num_envs, batch, threads, extra)
    if system == "envpool":
        import envpool

        return _pool_runner(envpool, task, num_envs, batch, threads, extra)
    if system == "gymnasium_async":
        return _gymnasium_runner(task, num_envs, True, extra)
    if system == "for_loop":
        return _gymnasium_runner(task, num_envs, False, extra)
    if system == "ale_vector":
        return _ale_vector_runner(task, num_envs, batch, threads)
    raise ValueError(f"unknown system {system!r}; choose from {SYSTEMS}")


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and its live child processes, all threads.

    Child processes count because gymnasium's AsyncVectorEnv steps its envs in them."""
    tick = os.sysconf("SC_CLK_TCK")
    me = os.getpid()
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # Fields after the parenthesised command name: state ppid ... utime stime.
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == me or int(fields[1]) == me:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _ceiling_worker(task: str, num_envs: int, worker: int, workers: int,
                    extra: dict[str, Any], seconds: float, start: Any, out: Any) -> None:
    import envpool_core

    # Env j gets seed j and action row j, as in the pools' runs of this setting.
    ids = range(worker, num_envs, workers)
    envs = [envpool_core.make(task, env_type="gymnasium", num_envs=1, batch_size=1,
                              num_threads=1, seed=j, **extra) for j in ids]
    rows = _actions(envs[0].action_space, num_envs, np.random.default_rng(0))
    pairs = [(env, rows[j:j + 1]) for env, j in zip(envs, ids, strict=True)]
    for env, action in pairs:
        env.reset()
        for _ in range(5):
            env.step(action)
    start.wait()
    steps, cpu_start, t0 = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for env, action in pairs:
            env.step(action)
        steps += len(pairs)
    out.put((steps, time.perf_counter() - t0, time.process_time() - cpu_start))
    for env, _ in pairs:
        env.close()


def measure_ceiling(task: str, num_envs: int, seconds: float, extra: dict[str, Any],
                    cpu_out: list[float] | None = None) -> float:
    """Steps/s of `num_envs` single-env envpool_cores shared out over one process per core.

    Every env step costs its physics whatever the system, and the cost depends on the env's
    state, so these are the same envs (seeds, actions) as a pool's run of the setting. Here
    nothing else is paid (no batching, no waiting for the slowest env, no env moving between
    cores), so no system can step these envs much faster on this machine. Each step costs one
    Python call of a few µs, against MuJoCo's hundreds."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    workers = min(os.cpu_count() or 1, num_envs)
    start, out = ctx.Barrier(workers + 1), ctx.Queue()
    procs = [ctx.Process(target=_ceiling_worker,
                         args=(task, num_envs, w, workers, extra, seconds, start, out))
             for w in range(workers)]
    for p in procs:
        p.start()
    start.wait()
    done = [out.get() for _ in procs]
    for p in procs:
        p.join()
    steps = sum(d[0] for d in done)
    if cpu_out is not None:
        cpu_out.append(1e6 * sum(d[2] for d in done) / steps)
    return steps / max(d[1] for d in done)


def measure(system: str, task: str, setting: tuple[int, int, int], seconds: float,
            extra: dict[str, Any], cpu_out: list[float] | None = None) -> float:
    """Steps/s of one system for about `seconds`, after a warm-up.

    With `cpu_out`, also appends the CPU time spent per env step, in microseconds: unlike
    steps/s it does not depend on how many cores the system manages to keep busy, nor (much)
    on the VM's speed drifting, so it isolates the cost of one step."""
    if system == "ceiling":
        return measure_ceiling(task, setting[0], seconds, extra, cpu_out)
    run, close = make_runner(system, task, setting, extra)
    try:
        run(20)
        calls, steps = 1, 0
        cpu_start, start = cpu_seconds(), time.perf_counter()
        while True:
            steps += run(calls)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                if cpu_out is not None:
                    cpu_out.append(1e6 * (cpu_seconds() - cpu_start) / steps)
                return steps / elapsed
            calls = min(calls * 2, 1 << 14)
    finally:
        close()


def _build_worker(site: str, system: str, task: str, setting: tuple[int, int, int],
                  seconds: float, extra: dict[str, Any], out: Any) -> None:
    import sys

    sys.path.insert(0, site)  # before any envpool_core on the parent's path
    cpu: list[float] = []
    out.put((measure(system, task, setting, seconds, extra, cpu), cpu[0]))


def measure_build(site: str, task: str, setting: tuple[int, int, int], seconds: float,
                  extra: dict[str, Any], cpu_out: list[float] | None = None) -> float:
    """`measure("envpool_core", ...)` with the envpool_core found in `site`, in a fresh process."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_build_worker,
                       args=(site, "envpool_core", task, setting, seconds, extra, out))
    proc.start()
    steps_per_s, cpu = out.get()
    proc.join()
    if cpu_out is not None:
        cpu_out.append(cpu)
    return steps_per_s


def parse_build(text: str) -> tuple[str, str]:
    """'NAME=DIR' -> (NAME, DIR), DIR holding an envpool_core package."""
    name, sep, site = text.partition("=")
    if not sep or not name or name in SYSTEMS:
        raise argparse.ArgumentTypeError(
            f"build {text!r} must be NAME=DIR with NAME not one of {SYSTEMS}")
    if not os.path.isdir(os.path.join(site, "envpool_core")):
        raise argparse.ArgumentTypeError(f"build {text!r}: no envpool_core package in {site!r}")
    return name, site


def machine() -> dict[str, Any]:
    """CPU model, core count and versions, for the record."""
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = {}
    for mod in ("envpool_core", "envpool", "gymnasium", "numpy"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            continue
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "versions": versions}


def parse_setting(text: str) -> tuple[int, int, int]:
    """'num_envs,batch_size,num_threads' -> tuple."""
    parts = [int(p) for p in text.split(",")]
    if len(parts) != 3 or parts[1] > parts[0] or min(parts[:2]) < 1 or parts[2] < 0:
        raise argparse.ArgumentTypeError(
            f"setting {text!r} must be num_envs,batch_size,num_threads with batch_size <= num_envs")
    return parts[0], parts[1], parts[2]


def best_vs_best(results: dict[str, dict[str, list[float]]], ours: str,
                 other: str) -> dict[str, Any]:
    """Compares each system's best setting (highest median steps/s).

    Besides the ratio of the two medians, gives the ratio within each round: both figures of
    a round were measured minutes apart at most, so drift in machine speed cancels out."""
    def best(system: str) -> str:
        return max(results, key=lambda key: statistics.median(results[key][system]))

    mine, theirs = best(ours), best(other)
    rounds = [a / b for a, b in zip(results[mine][ours], results[theirs][other], strict=True)]
    return {"ours": ours, "other": other, "ours_setting": mine, "other_setting": theirs,
            "ratio_of_medians": statistics.median(results[mine][ours])
            / statistics.median(results[theirs][other]),
            "per_round_ratios": rounds}


def main() -> None:
    """Runs the comparison and prints a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="CartPole-v1")
    parser.add_argument("--settings", nargs="+", type=parse_setting,
                        default=[(8, 8, 2), (1, 1, 1)])
    parser.add_argument("--builds", nargs="+", type=parse_build, default=[],
                        metavar="NAME=DIR", help="envpool_core builds to add as systems NAME")
    parser.add_argument("--systems", nargs="+", default=["envpool_core", "envpool"],
                        help=f"from {SYSTEMS} and the --builds names")
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="rounds over every measurement")
    parser.add_argument("--frame-skip", type=int, default=1, help="FPS = steps/s x this")
    parser.add_argument("--json", help="also write raw results here")
    args = parser.parse_args()
    builds = dict(args.builds)
    unknown = [s for s in args.systems if s not in SYSTEMS and s not in builds]
    if unknown:
        parser.error(f"unknown systems {unknown}; choose from {SYSTEMS} and the --builds names")

    keys = [",".join(map(str, setting)) for setting in args.settings]
    results = {key: {s: [] for s in args.systems} for key in keys}
    cpu = {key: {s: [] for s in args.systems} for key in keys}
    # Every round measures every (setting, system) pair once, in a fresh shuffled order, so
    # neither a slow phase of the machine nor a fixed position in the order favours anyone.
    order = [(key, setting, system) for key, setting in zip(keys, args.settings, strict=True)
             for system in args.systems]
    rng = random.Random(0)
    load_start = os.getloadavg()
    for _ in range(args.repeats):
        rng.shuffle(order)
        for key, setting, system in order:
            if system in builds:
                value = measure_build(builds[system], args.task, setting, args.seconds, {},
                                      cpu[key][system])
            else:
                value = measure(system, args.task, setting, args.seconds, {}, cpu[key][system])
            results[key][system].append(value)

    base = "envpool" if "envpool" in args.systems else args.systems[-1]
    print(f"\n{args.task}, steps/s (median of {args.repeats}, min-max), machine: "
          f"{machine()['cpu']}, {os.cpu_count()} cores\n")
    print(f"| num_envs,batch,threads | system | steps/s | FPS | vs {base} | CPU µs/step |")
    print("|---|---|---:|---:|---:|---:|")
    for key, per_system in results.items():
        for system, values in per_system.items():
            med = statistics.median(values)
            ref = statistics.median(per_system[base])
            print(f"| {key} | {system} | {med:,.0f} ({min(values):,.0f}-{max(values):,.0f}) | "
                  f"{med * args.frame_skip:,.0f} | {med / ref:.2f}x | "
                  f"{statistics.median(cpu[key][system]):,.0f} |")
    # Each envpool_core build against the ceiling and the builds before it, then envpool_core
    # and the ceiling against every other system.
    cores = [s for s in ("envpool_core", *builds) if s in args.systems]
    pairs = [(ours, other) for i, ours in enumerate(cores)
             for other in ("ceiling", *cores[:i]) if other in args.systems]
    pairs += [(ours, other) for ours in ("envpool_core", "ceiling") for other in args.systems
              if ours in args.systems and other not in (ours, "ceiling", *cores)]
    comparisons = [best_vs_best(results, ours, other) for ours, other in pairs]
    if comparisons:
        print("\nBest setting vs best setting:\n")
        print("| system (best) | vs system (best) | ratio of medians | "
              "ratio within a round: median (min-max) |")
        print("|---|---|---:|---:|")
        for c in comparisons:
            r = c["per_round_ratios"]
            print(f"| {c['ours']} ({c['ours_setting']}) | {c['other']} ({c['other_setting']}) | "
                  f"{c['ratio_of_medians']:.2f}x | {statistics.median(r):.2f}x "
                  f"({min(r):.2f}-{max(r):.2f}) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"task": args.task, "machine": machine(), "seconds": args.seconds,
                       "builds": builds, "load_average": {"start": load_start,
                                                          "end": os.getloadavg()},
                       "results": results, "cpu_us_per_step": cpu,
                       "best_vs_best": comparisons}, f, indent=2)


if __name__ == "__main__":
    main()
