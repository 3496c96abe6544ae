"""Time-to-score: wall time until the mean training return of the last 100 episodes reaches a
target, compile time and start-up included, for several training systems and seeds.

    python benchmark/time_to_score.py --seeds 1 2 3                      # this repo's JAX script
    python benchmark/time_to_score.py --systems xla_jax rl_games_envpool_core rl_games_envpool \
        ppo_mujoco --seeds 1 2 3 --wall-limit 900 --out benchmark/results/time_to_score_ant
    python benchmark/time_to_score.py --systems cleanrl \
        --cleanrl ~/cleanrl/cleanrl/ppo_continuous_action.py

Systems (each run alone, one after the other, seed by seed, as a subprocess in its own folder,
stopped at `--wall-limit` seconds after it was started):
  - `xla_jax`: ppo_mujoco_envpool_xla_jax.py with its defaults;
  - `ppo_mujoco`: ppo_mujoco_envpool.py (PyTorch, CleanRL's hyperparameters) with its defaults;
  - `rl_games_envpool_core` / `rl_games_envpool`: rl_games' own `mujoco/<task>_envpool.yaml`
    on the CPU, with envpool_core handed to it as `envpool` / on EnvPool itself;
  - `cleanrl`: CleanRL's ppo_continuous_action.py from `--cleanrl` (on gymnasium's MuJoCo).
Curves come from the runs' TensorBoard logs, against the wall clock of the event: CleanRL-style
scripts log every episode's return (`charts/episodic_return`: averaged here over the last 100),
rl_games the mean of its last 100 (`rewards/step`). The machine's load average is sampled during
every run and recorded with it: other work on the machine slows every system down.
Writes OUT.json (every curve), OUT.md (the table) and OUT.png (every seed's curve and the
median of the seeds, against env steps and wall time); OUT defaults to
benchmark/out/time_to_score_<task> (git-ignored). The table gives, per system, how many seeds
reached the target within the limit, the median time over all seeds (one that did not reach it
counts as more than the limit, so the median is a lower bound "> N s" where such a seed is in
the middle), the best return's median and min–max, and every seed's figures.
`--remake OUT.json` rewrites OUT.md and OUT.png from a results file without running anything.
`--script-args "--ent-coef 0.001"` passes options to this repo's scripts (xla_jax, ppo_mujoco):
the table names the system with them, so that settings can be compared run against run. The
policy's entropy (`losses/entropy`, where a script logs it) is kept with each run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plots

ROOT = Path(__file__).resolve().parents[1]
RL_GAMES = r"""
import os, sys, yaml
if sys.argv[3] == "envpool_core":
    import envpool_core
    sys.modules["envpool"] = envpool_core  # the user's one change: rl_games imports envpool
import rl_games
from rl_games.torch_runner import Runner
with open(os.path.join(os.path.dirname(rl_games.__file__), "configs", sys.argv[1])) as f:
    config = yaml.safe_load(f)
seed = int(sys.argv[2])
config["params"]["seed"] = seed
config["params"]["config"]["env_config"]["seed"] = seed
config["params"]["config"].update(device="cpu", device_name="cpu", train_dir=os.getcwd())
runner = Runner()
runner.load(config)
runner.run({"train": True, "play": False})
"""
SYSTEMS = ("xla_jax", "ppo_mujoco", "rl_games_envpool_core", "rl_games_envpool", "cleanrl")


def command(system: str, env_id: str, seed: int, cleanrl: str | None,
            script_args: str = "") -> list[str]:
    if system in ("xla_jax", "ppo_mujoco"):
        script = "ppo_mujoco_envpool_xla_jax.py" if system == "xla_jax" else "ppo_mujoco_envpool.py"
        return [sys.executable, str(ROOT / script), "--env-id", env_id, "--seed", str(seed),
                *shlex.split(script_args)]
    if script_args:
        sys.exit(f"error: --script-args is for this repo's scripts, not {system}")
    if system == "cleanrl":
        if cleanrl is None:
            sys.exit("error: --systems cleanrl needs --cleanrl PATH/ppo_continuous_action.py")
        return [sys.executable, cleanrl, "--env-id", env_id, "--seed", str(seed)]
    config = f"mujoco/{env_id.split('-')[0].lower()}_envpool.yaml"
    return [sys.executable, "-c", RL_GAMES, config, str(seed), system.split("_", 2)[2]]


def scalar(workdir: Path, tag: str) -> list[tuple[int, float]]:
    """(env steps, value) of a scalar a run logged, [] if it logged none."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    points = []
    for events in workdir.rglob("events.out.tfevents*"):
        acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
        acc.Reload()
        if tag in acc.Tags()["scalars"]:
            points += [(e.step, e.value) for e in acc.Scalars(tag)]
    return sorted(points)


def curve(workdir: Path, start: float) -> list[tuple[float, int, float]]:
    """(seconds since start, env steps, mean return of the last 100 episodes) of a run."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    points = []
    for events in workdir.rglob("events.out.tfevents*"):
        acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
        acc.Reload()
        tags = acc.Tags()["scalars"]
        if "charts/episodic_return" in tags:
            last = deque(maxlen=100)
            for e in acc.Scalars("charts/episodic_return"):
                last.append(e.value)
                points.append((e.wall_time - start, e.step, sum(last) / len(last)))
        elif "rewards/step" in tags:
            points += [(e.wall_time - start, e.step, e.value) for e in acc.Scalars("rewards/step")]
    return sorted(points)


def run_one(system: str, env_id: str, seed: int, wall_limit: float,
            cleanrl: str | None, script_args: str = "") -> dict:
    workdir = Path(tempfile.mkdtemp(prefix=f"tts-{system}-{seed}-"))
    cmd = command(system, env_id, seed, cleanrl, script_args)
    env = dict(os.environ)
    if system == "cleanrl":  # gymnasium 1.x's TransformObservation signature, as training.py
        env["REFERENCE_COMPAT"] = "1"
        env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent /
                                                 "reference_compat"), env.get("PYTHONPATH", "")])
    loads = [os.getloadavg()[0]]
    start = time.time()
    with open(workdir / "log.txt", "w") as log:
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        while proc.poll() is None and time.time() - start < wall_limit:
            time.sleep(min(10.0, max(0.1, wall_limit - (time.time() - start))))
            loads.append(os.getloadavg()[0])
        if proc.poll() is None:  # its own process group: the run and whatever it started
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
    wall = time.time() - start
    points = curve(workdir, start)
    best = max((p[2] for p in points), default=float("nan"))
    print(f"{system} seed {seed}: {wall:.0f} s, {len(points)} points, best {best:.0f}, load "
          f"{statistics.mean(loads):.1f}, log {workdir / 'log.txt'}", flush=True)
    return {"system": system, "script_args": script_args, "env_id": env_id, "seed": seed,
            "command": cmd, "wall_s": wall, "returncode": proc.returncode,
            "load_average": loads, "curve": points, "entropy": scalar(workdir, "losses/entropy")}


def thin(points: list, most: int = 1000) -> list:
    """At most about `most` points of a curve, evenly spaced, the last one kept."""
    every = max(1, len(points) // most)
    return points[::every] + ([points[-1]] if points and (len(points) - 1) % every else [])


def time_to(points: list, target: float) -> float | None:
    return next((t for t, _, value in points if value >= target), None)


def steps_to(points: list, target: float) -> int | None:
    """Env steps at the first point at or above `target`: what the machine's load does not
    change, where the time does."""
    return next((s for _, s, value in points if value >= target), None)


def value_at(points: list, step: int) -> float | None:
    """The last-100 mean at the first point at or after `step` env steps."""
    return next((value for _, s, value in points if s >= step), None)


def run_summary(points: list, target: float, at_steps: list[int]) -> dict:
    """A run's figures, from its whole curve (the JSON keeps a thinned one)."""
    return {"time_to_target_s": time_to(points, target),
            "steps_to_target": steps_to(points, target),
            "best": max((p[2] for p in points), default=None),
            "steps": max((p[1] for p in points), default=0),
            "return_at_steps": {str(s): value_at(points, s) for s in at_steps}}


def median_time(times: list[float | None], wall_limit: float) -> tuple[float, bool]:
    """The median time to the target over all seeds, a seed that did not reach it (None)
    counted as more than `wall_limit`: (the median, False), or (a lower bound of it, True)
    where a middle seed did not reach the target."""
    ordered = sorted(times, key=lambda t: float("inf") if t is None else t)
    middle = ordered[(len(ordered) - 1) // 2 : len(ordered) // 2 + 1]
    if None not in middle:
        return statistics.fmean(middle), False
    return statistics.fmean([wall_limit if t is None else t for t in middle]), True


def system_summary(summaries: list[dict], wall_limit: float) -> dict:
    """One system's figures over its seeds: how many reached the target, the median time over
    all of them, and the best return's median and spread."""
    times = [m["time_to_target_s"] for m in summaries]
    bests = [m["best"] for m in summaries if m["best"] is not None]
    median, bound = median_time(times, wall_limit)
    return {"seeds": len(summaries), "reached": sum(t is not None for t in times),
            "median_time_s": median, "median_time_is_lower_bound": bound,
            "best_median": statistics.median(bests) if bests else None,
            "best_min": min(bests, default=None), "best_max": max(bests, default=None)}


def label(run: dict) -> str:
    """A run's system, with the options it passed to the script."""
    return f"{run['system']} {run.get('script_args', '')}".strip()


def summarize(runs: list[dict], target: float, at_steps: list[int], wall_limit: float,
              cpus: int | None = None) -> str:
    """The table: per system, how many seeds reached the target, the median time over all of
    them, the best return's median and spread, and each seed's figures."""
    limit = f"{wall_limit:.0f} s"
    lines = [f"| system | seeds | reached {target:,.0f} within {limit} | time to {target:,.0f}: "
             f"median of all seeds (per seed) | best within {limit}: median, min–max (per seed) "
             f"| steps in {limit} (median) | "
             + " | ".join(f"return at {s / 1e6:g}M steps (median)" for s in at_steps)
             + f" | env steps to {target:,.0f} (per seed) | load average |",
             "|-" * (8 + len(at_steps)) + "|"]
    for system in dict.fromkeys(label(r) for r in runs):
        mine = [r for r in runs if label(r) == system]
        summaries = [r["summary"] for r in mine]
        figures = system_summary(summaries, wall_limit)
        times = [m["time_to_target_s"] for m in summaries]
        per_seed = ", ".join(f"> {wall_limit:.0f}" if t is None else f"{t:.0f}" for t in times)
        shown = ("> " if figures["median_time_is_lower_bound"] else "") + \
            f"{figures['median_time_s']:.0f} s"
        bests = [m["best"] if m["best"] is not None else float("nan") for m in summaries]
        best = "-" if figures["best_median"] is None else (
            f"{figures['best_median']:,.0f}, {figures['best_min']:,.0f}–{figures['best_max']:,.0f}"
            f" ({', '.join(f'{b:,.0f}' for b in bests)})")
        steps = statistics.median([m["steps"] for m in summaries])
        at = []
        for s in at_steps:
            values = [v for m in summaries if (v := m["return_at_steps"][str(s)]) is not None]
            at.append(f"{statistics.median(values):,.0f} ({len(values)} seeds)" if values else "-")
        to_target = ", ".join("-" if (n := m.get("steps_to_target")) is None else f"{n / 1e6:.2f}M"
                              for m in summaries)
        load = statistics.mean(x for r in mine for x in r["load_average"])
        seeds = ", ".join(str(r["seed"]) for r in mine)
        lines.append(f"| {system} | {seeds} | {figures['reached']} of {figures['seeds']} | "
                     f"{shown} ({per_seed}) | {best} | {steps:,.0f} | " + " | ".join(at)
                     + f" | {to_target} | {load:.1f} |")
    return "\n".join(lines) + (
        f"\n\n{cpus or os.cpu_count()} cores; a seed that did not reach the target within the "
        f"limit (its run stopped at the limit, or ended earlier) counts as > {limit} in the "
        "median; load average: the 1-minute figure, sampled every 10 s of each system's runs")


def plot(data: dict, path: Path) -> None:
    """Last-100 mean return against env steps and wall time: every seed thin, the median of the
    seeds thick, one colour per system, the target a dotted line (benchmark/plots.py)."""
    if any(r["curve"] for r in data["runs"]):
        plots.time_to_score_curves(data, path)


def remake(path: Path) -> None:
    """Rewrites OUT.md and OUT.png from OUT.json, as written by a run."""
    data = json.loads(path.read_text())
    table = summarize(data["runs"], data["target"],
                      [int(s) for s in data["runs"][0]["summary"]["return_at_steps"]],
                      data["wall_limit"], data.get("cpus"))
    path.with_suffix(".md").write_text(table + "\n")
    plot(data, path.with_suffix(".png"))


def with_ending(out: Path, ending: str) -> Path:
    """OUT with an ending added: `--out results/ant_kl_0.02` gives `ant_kl_0.02.json`, where
    Path.with_suffix would replace the `.02`."""
    return out.with_name(out.name + ending)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", choices=SYSTEMS, default=["xla_jax"])
    parser.add_argument("--env-id", default="Ant-v4")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--target", type=float, default=3000.0)
    parser.add_argument("--wall-limit", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--at-steps", nargs="+", type=int, default=[500000, 1000000])
    parser.add_argument("--cleanrl", default=None,
                        help="path of CleanRL's ppo_continuous_action.py")
    parser.add_argument("--script-args", default="",
                        help="options for this repo's scripts, e.g. \"--ent-coef 0.001\"")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--remake", type=Path, nargs="+", default=None, metavar="OUT.json",
                        help="no runs: rewrite the tables and plots of these results files")
    args = parser.parse_args()
    if args.remake:
        for path in args.remake:
            remake(path)
        return
    out = args.out or ROOT / "benchmark" / "out" / \
        f"time_to_score_{args.env_id.split('-')[0].lower()}"
    out.parent.mkdir(parents=True, exist_ok=True)
    # Seed by seed, each seed's systems back to back: a drift in the machine's speed over the
    # hours falls on every system alike. The results are rewritten after each run, so an
    # interrupted benchmark keeps the runs that finished.
    runs = []
    for seed in args.seeds:
        for system in args.systems:
            run = run_one(system, args.env_id, seed, args.wall_limit, args.cleanrl,
                          args.script_args)
            runs.append(run | {"summary": run_summary(run["curve"], args.target, args.at_steps)})
            ordered = sorted(runs, key=lambda r: args.systems.index(r["system"]))
            table = summarize(ordered, args.target, args.at_steps, args.wall_limit,
                              os.cpu_count())
            kept = [{**r, "curve": thin(r["curve"]), "entropy": thin(r["entropy"], 200)}
                    for r in ordered]
            data = {"env_id": args.env_id, "target": args.target, "wall_limit": args.wall_limit,
                    "cpus": os.cpu_count(), "runs": kept}
            with_ending(out, ".json").write_text(json.dumps(data, indent=1))
            with_ending(out, ".md").write_text(table + "\n")
    print(table)
    plot(data, with_ending(out, ".png"))


if __name__ == "__main__":
    main()
