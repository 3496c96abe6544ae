"""Reproduces the EnvPool paper's throughput table on this machine.

    python benchmark/paper_table.py            # full grid, a few minutes per task
    python benchmark/paper_table.py --tiny     # seconds: a smoke run (CI)

For Pong-v5 and Ant-v4 it measures every system of the paper that runs here —
a for-loop over single gymnasium envs, gymnasium's AsyncVectorEnv (the
subprocess row), Sample-Factory (Pong: 1.123.0's DUMMY_SAMPLER, the paper's,
and 2.1.1's sampler, each in a virtual environment of its own, see
sample_factory_bench.py), upstream EnvPool sync and async,
envpool_core sync and async, ale-py's AtariVectorEnv (Pong) and, on machines with
several NUMA nodes, the numa+async rows (one process per node under numactl) —
searches a small grid of
num_envs / batch_size / num_threads for each, and reports the highest
throughput, as the paper does. FPS = env steps x frame skip (4 Pong, 5 Ant).
Systems are interleaved within every repeat; each figure is the median of the
repeats, with min and max.

Writes paper_table.{json,md} and PNG plots to benchmark/out/ (git-ignored; `--out
benchmark/results` replaces the committed figures), and a separate
table of a scaling model (see `scaling_model`) that extrapolates envpool_core to
the paper's thread counts. `--from-json` remakes the Markdown and plots from a
saved JSON without measuring. `--tasks` and `--rows` measure a subset (with
`--stem`, under another file name).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plots as plot_style
from sample_factory_bench import SampleFactoryUnavailable, ensure_venv, measure_sample_factory
from throughput import machine, measure

# Reproducing a figure must not overwrite the committed one it is compared with.
OUT = Path(__file__).resolve().parent / "out"
PAPER_MACHINES = ("Laptop", "Workstation", "TPU-VM", "DGX-A100")
PAPER_CORES = {"Laptop": 12, "Workstation": 32, "TPU-VM": 96, "DGX-A100": 256}
# FPS from the EnvPool paper (Table 1), per machine in PAPER_MACHINES order.
PAPER_FPS = {
    "Pong": {
        "For-loop": (4893, 7914, 3993, 4640),
        "Subprocess": (15863, 47699, 46910, 71943),
        "Sample-Factory": (28216, 138847, 222327, 707494),
        "EnvPool (sync)": (37396, 133824, 170380, 427851),
        "EnvPool (async)": (49439, 200428, 359559, 891286),
        "EnvPool (numa+async)": (None, None, 373169, 1069922),
    },
    "Ant": {
        "For-loop": (12861, 20298, 10474, 11569),
        "Subprocess": (36586, 105432, 87403, 163656),
        "Sample-Factory": (62510, 309264, 461515, 1573262),
        "EnvPool (sync)": (66622, 380950, 296681, 949787),
        "EnvPool (async)": (105126, 582446, 887540, 2363864),
        "EnvPool (numa+async)": (None, None, 896830, 3134287),
    },
}
TASKS = {"Pong": ("Pong-v5", 4), "Ant": ("Ant-v4", 5)}
# Table row -> (system in throughput.py, sync or async grid).
ROWS = {
    "For-loop": ("for_loop", "single"),
    "Subprocess": ("gymnasium_async", "vector"),
    "EnvPool (sync)": ("envpool", "sync"),
    "EnvPool (async)": ("envpool", "async"),
    "envpool_core (sync)": ("envpool_core", "sync"),
    "envpool_core (async)": ("envpool_core", "async"),
    "ale-py AtariVectorEnv": ("ale_vector", "sync"),
}
# Sample-Factory rows (Pong) -> version in sample_factory_bench.py.
SF_ROWS = {"Sample-Factory": "1", "Sample-Factory 2.1.1 (sampler + policy)": "2"}
SF_ROW = "Sample-Factory"


def grid(kind: str, cores: int, tiny: bool) -> list[tuple[int, int, int]]:
    """Settings (num_envs, batch_size, num_threads) searched for one kind of system."""
    if kind == "single":
        return [(1, 1, 1)]
    if kind.startswith("sf"):
        # (num_envs, envs per worker, worker processes). The paper ran DUMMY_SAMPLER with one
        # env per worker and 1.5 workers per thread; 2.1.1's inference worker wants batches.
        if tiny:
            pairs = [(cores, 1)]
        elif kind == "sf1":
            pairs = [(cores, 1), (cores + cores // 2, 1), (2 * cores, 1)]
        else:
            pairs = [(cores, 1), (cores, 4), (2 * cores, 2)]
        return [(w * e, e, w) for w, e in pairs]
    if tiny:
        return {"vector": [(2, 2, 0)], "sync": [(2, 2, 2)], "async": [(3, 1, 2)]}[kind]
    if kind == "vector":
        return [(n, n, 0) for n in sorted({cores, 2 * cores, 4 * cores})]
    if kind == "sync":
        return [(n, n, cores) for n in sorted({cores, 2 * cores, 4 * cores})]
    # The paper's async runs used num_envs of about 2.5-3x batch_size.
    return [(3 * b, b, cores) for b in sorted({max(1, cores // 2), cores, 2 * cores})]


def numa_nodes() -> int:
    """Number of NUMA nodes (1 when unknown)."""
    nodes = Path("/sys/devices/system/node")
    return max(1, len(list(nodes.glob("node[0-9]*")))) if nodes.exists() else 1


def measure_numa(module: str, task: str, cores: int, seconds: float) -> float | None:
    """One async process per NUMA node under numactl, summed; None on a single node."""
    nodes = numa_nodes()
    if nodes < 2 or shutil.which("numactl") is None:
        return None
    per_node = max(1, cores // nodes)
    setting = f"{3 * per_node},{per_node},{per_node}"
    procs = []
    OUT.mkdir(parents=True, exist_ok=True)
    for n in range(nodes):
        out = OUT / f".numa_{n}.json"
        cmd = ["numactl", f"--cpunodebind={n}", f"--membind={n}", sys.executable,
               str(Path(__file__).with_name("throughput.py")), "--task", task, "--systems",
               module, "--settings", setting, "--seconds", str(seconds), "--repeats", "1",
               "--json", str(out)]
        procs.append((subprocess.Popen(cmd, stdout=subprocess.DEVNULL), out))
    total = 0.0
    for proc, out in procs:
        proc.wait()
        total += json.loads(out.read_text())["results"][setting][module][0]
        out.unlink()
    return total


def measure_row(system: str, task: str, setting: tuple[int, int, int], seconds: float,
                sf: dict[str, Any]) -> float:
    """Steps/s of one row at one setting; Sample-Factory's runs also go to sf["runs"]."""
    if not system.startswith("sample_factory"):
        return measure(system, task, setting, seconds, {})
    version = system[-1]
    # Its figures come in chunks (a report per second; 2.1.1: whole trajectories of 128 steps,
    # a few per second), so it needs a longer window than the others.
    window = max((2 if version == "1" else 3) * seconds, 3.0)
    result = measure_sample_factory(version, sf[version], setting[2], setting[1], window,
                                    warmup=min(5.0, window))
    sf["runs"].append({"version": version, "setting": ",".join(map(str, setting)), **result})
    return result["steps_per_s"]


def run(tiny: bool, seconds: float, repeats: int, tasks: list[str], only: list[str] | None,
        sf: dict[str, Any]) -> dict[str, Any]:
    """Measures every row and setting, interleaved; returns raw results.

    `sf` maps each Sample-Factory version that runs here to its venv's Python; its runs are
    appended to sf["runs"].
    """
    cores = os.cpu_count() or 1
    raw: dict[str, Any] = {}
    for name in tasks:
        task = TASKS[name][0]
        rows = {r: v for r, v in ROWS.items() if name == "Pong" or v[0] != "ale_vector"}
        if name == "Pong":
            rows = {"For-loop": rows.pop("For-loop"), "Subprocess": rows.pop("Subprocess"),
                    **{row: (f"sample_factory{v}", f"sf{v}") for row, v in SF_ROWS.items()
                       if v in sf}, **rows}
        rows = {r: v for r, v in rows.items() if only is None or r in only}
        raw[name] = {row: {",".join(map(str, s)): [] for s in grid(kind, cores, tiny)}
                     for row, (_, kind) in rows.items()}
        for _ in range(repeats):
            for row, (system, kind) in rows.items():
                for s in grid(kind, cores, tiny):
                    key = ",".join(map(str, s))
                    try:
                        raw[name][row][key].append(measure_row(system, task, s, seconds, sf))
                    except Exception as e:
                        raw[name][row][key].append(f"error: {type(e).__name__}: {e}")
        for row, module in (("EnvPool (numa+async)", "envpool"),
                            ("envpool_core (numa+async)", "envpool_core")):
            if only is None or row in only:
                value = measure_numa(module, task, cores, seconds)
                raw[name][row] = {"numa": [value]} if value is not None else {}
    return raw


def best(per_setting: dict[str, list]) -> tuple[str, float, float, float] | None:
    """(setting, median, min, max) of the setting with the highest median steps/s."""
    scored = []
    for key, values in per_setting.items():
        nums = [v for v in values if isinstance(v, float)]
        if nums:
            scored.append((key, statistics.median(nums), min(nums), max(nums)))
    return max(scored, key=lambda x: x[1]) if scored else None


def within_rounds(per_row: dict[str, dict[str, list]], ours: str,
                  other: str) -> tuple[float, float, float] | None:
    """Ratio of two rows' best settings within each repeat: (median, min, max).

    The two figures of a repeat are measured minutes apart at most, so the VM's drift
    cancels out far better than in the ratio of medians.
    """
    a, b = best(per_row.get(ours, {})), best(per_row.get(other, {}))
    if a is None or b is None:
        return None
    ratios = [x / y for x, y in zip(per_row[ours][a[0]], per_row[other][b[0]], strict=False)
              if isinstance(x, float) and isinstance(y, float)]
    return (statistics.median(ratios), min(ratios), max(ratios)) if ratios else None


def scaling_model(raw: dict[str, Any], name: str, frame_skip: int, cores: int) -> dict[str, Any]:
    """A model, not a measurement: envpool_core's async FPS at the paper's thread counts.

    It takes the best async rate measured here divided by this machine's cores (the rate one
    core sustains) and multiplies it by each paper machine's thread count: a linear
    extrapolation, so an upper bound. Its assumptions: (1) one env step costs the same CPU
    time there as here; (2) every added core adds that same rate (no Amdahl term: the caller
    thread does microseconds of work per batch, far below a Pong or Ant step; not true for
    CartPole); (3) no NUMA, memory-bandwidth or SMT effects (the paper counts hardware
    threads; the model counts them as cores).
    """
    core = best(raw[name].get("envpool_core (async)", {}))
    if core is None:
        return {}
    per_core = core[1] / cores
    return {
        "per_core_steps": per_core,
        "predicted_fps": {m: per_core * PAPER_CORES[m] * frame_skip for m in PAPER_MACHINES},
    }


def not_run_reason(row: str, measured: dict[str, Any], not_run: dict[str, str]) -> str:
    """Why a row has no figure, given the task's results and recorded reasons."""
    if row in not_run:
        return not_run[row]
    if row not in measured:
        return "not run (not measured in this run)"
    return "not run (1 NUMA node)" if "numa" in row else "failed, see JSON"


def markdown(raw: dict[str, Any], info: dict[str, Any], models: dict[str, Any],
             not_run: dict[str, dict[str, str]]) -> str:
    """The paper's table with a column for the machine that ran it, per task measured."""
    here = f"{info['cpu']} ({info['cores']} cores)"
    lines = [f"Machine: {info['cpu']}, {info['cores']} cores, {numa_nodes()} NUMA node(s); "
             f"versions {info['versions']}.", ""]
    if "load_average" in info:
        load = info["load_average"]
        lines[-1:-1] = [f"Load average (1, 5, 15 min) at the start: "
                        f"{', '.join(f'{x:.2f}' for x in load['start'])}; at the end: "
                        f"{', '.join(f'{x:.2f}' for x in load['end'])}."]
    for name in raw:
        task, skip = TASKS[name]
        lines += [f"### {task} FPS (env steps x {skip})", "",
                  f"| system | {' | '.join(PAPER_MACHINES)} | {here} | steps/s here | "
                  "best setting (envs,batch,threads) |",
                  "|---|" + "---:|" * (len(PAPER_MACHINES) + 3)]
        extra = [*raw[name], *not_run.get(name, {})]
        rows = list(PAPER_FPS[name]) + [r for r in dict.fromkeys(extra) if r not in PAPER_FPS[name]]
        for row in rows:
            paper = PAPER_FPS[name].get(row, (None,) * 4)
            cells = [f"{v:,}" if v else "/" for v in paper]
            b = best(raw[name].get(row, {}))
            if b is None:
                cells += [not_run_reason(row, raw[name], not_run.get(name, {})), "", ""]
            else:
                fps = f"{b[1] * skip:,.0f}"
                cells += [f"**{fps}**" if "envpool_core" in row else fps,
                          f"{b[1]:,.0f} ({b[2]:,.0f}-{b[3]:,.0f})", b[0]]
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        lines.append("")
        if any(best(raw[name].get(row, {})) for row in SF_ROWS):
            lines += ["Sample-Factory's setting is num_envs, envs per worker, worker processes. "
                      "Its row is 1.123.0's DUMMY_SAMPLER (the paper's: random actions, no "
                      "policy); 2.1.1 has no such sampler, and its sampling API runs its policy "
                      "network (here on the CPU, in one more process) at every step.", ""]
            for ours in ("envpool_core (async)", "envpool_core (sync)"):
                for row in SF_ROWS:
                    ratio = within_rounds(raw[name], ours, row)
                    if ratio is not None:
                        lines += [f"{ours} ÷ {row}, best vs best within a repeat: "
                                  f"{ratio[0]:.2f}× ({ratio[1]:.2f}-{ratio[2]:.2f}).", ""]
        model = models.get(name)
        if model:
            pred = " | ".join(f"{v:,.0f}" for v in model["predicted_fps"].values())
            lines += [f"Scaling model, not measured ({task}): envpool_core's best async rate here, "
                      f"{model['per_core_steps']:,.0f} steps/s per core, times each machine's "
                      f"threads, times {skip}.", "",
                      f"| model | {' | '.join(PAPER_MACHINES)} |",
                      "|---|" + "---:|" * len(PAPER_MACHINES),
                      f"| envpool_core (async), predicted FPS | {pred} |", ""]
    return "\n".join(lines)


def plots(raw: dict[str, Any], out: Path, stem: str = "paper_table",
          machine: dict[str, Any] | None = None) -> list[str]:
    """Each system's FPS at its best setting per task, with the min-max over the repeats,
    in one figure (benchmark/plots.py's style), titled with the machine it was measured on
    (the JSON's "machine": CPU, cores, load average)."""
    tasks = {}
    for name, rows in raw.items():
        task, skip = TASKS[name]
        tasks[task] = {}
        for row, per_setting in rows.items():
            b = best(per_setting)
            if b:
                tasks[task][row] = [v * skip for v in per_setting[b[0]] if isinstance(v, float)]
    path = out / f"{stem}.png"
    plot_style.throughput(tasks, path, title="FPS at each system's best setting, measured on "
                          f"{plot_style.machine_title(machine)}")
    return [str(path)]


def main() -> None:
    """Measures, writes JSON, Markdown and plots, and prints the table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="smoke run: one tiny setting each")
    parser.add_argument("--seconds", type=float, default=None, help="per measurement")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--out", type=Path, default=OUT,
                        help="output folder (default: benchmark/out/, git-ignored; "
                        "benchmark/results/ holds the committed figures)")
    parser.add_argument("--from-json", type=Path, default=None,
                        help="measure nothing: remake the Markdown and plots from this JSON")
    parser.add_argument("--sample-factory", action=argparse.BooleanOptionalAction, default=None,
                        help="measure Sample-Factory's rows (builds their venvs under "
                        "~/.cache/envpool_core on first use: minutes, ~3 GB); default: on, off "
                        "with --tiny")
    parser.add_argument("--tasks", nargs="+", choices=list(TASKS), default=list(TASKS))
    parser.add_argument("--rows", nargs="+", default=None,
                        help=f"measure only these rows, e.g. '{SF_ROW}' 'envpool_core (async)'")
    parser.add_argument("--stem", default="paper_table", help="output file names' stem")
    args = parser.parse_args()
    known = {*ROWS, *SF_ROWS, "EnvPool (numa+async)", "envpool_core (numa+async)"}
    if args.rows is not None and not set(args.rows) <= known:
        parser.error(f"unknown rows {sorted(set(args.rows) - known)}; known: {sorted(known)}")
    if args.from_json is not None:
        saved = json.loads(args.from_json.read_text())
        raw, info = saved["results"], saved["machine"]
        models = {name: scaling_model(raw, name, TASKS[name][1], info["cores"]) for name in raw}
        saved["scaling_model"] = models
        write(args.out, args.stem, saved, markdown(raw, info, models, saved.get("not_run", {})))
        return
    seconds = args.seconds or (0.2 if args.tiny else 3.0)
    repeats = args.repeats or (1 if args.tiny else 3)
    info = machine()
    info["load_average"] = {"start": os.getloadavg()}
    sf: dict[str, Any] = {"runs": []}
    not_run: dict[str, dict[str, str]] = {
        "Ant": {SF_ROW: "not run (Pong only: measured with Sample-Factory's Atari env)"},
        "Pong": {}}
    wanted = args.sample_factory if args.sample_factory is not None else not args.tiny
    for row, version in SF_ROWS.items():
        if "Pong" not in args.tasks or (args.rows is not None and row not in args.rows):
            continue
        if not wanted:
            not_run["Pong"][row] = "not run (skipped: pass --sample-factory)"
            continue
        try:
            sf[version] = ensure_venv(version)
        except SampleFactoryUnavailable as e:
            not_run["Pong"][row] = f"could not run: {e}"
    raw = run(args.tiny, seconds, repeats, args.tasks, args.rows, sf)
    for row, version in SF_ROWS.items():
        runs = [r for r in sf["runs"] if r["version"] == version]
        if runs:
            info["versions"][f"{row} venv"] = runs[0]["versions"]
        elif version in sf:
            errors = sorted({v for vals in raw["Pong"].get(row, {}).values() for v in vals})
            not_run["Pong"][row] = f"could not run: {errors[0] if errors else 'no result'}"
    info["load_average"]["end"] = os.getloadavg()
    models = {name: scaling_model(raw, name, TASKS[name][1], info["cores"]) for name in raw}
    table = markdown(raw, info, models, not_run)
    write(args.out, args.stem,
          {"machine": info, "numa_nodes": numa_nodes(), "seconds": seconds, "repeats": repeats,
           "tiny": args.tiny, "command": sys.argv,
           "results": raw, "not_run": not_run, "sample_factory_runs": sf["runs"],
           "scaling_model": models}, table)
    print(table)


def write(out: Path, stem: str, saved: dict[str, Any], table: str) -> None:
    """Writes <stem>.json, <stem>.md and the plots under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(saved, indent=2))
    (out / f"{stem}.md").write_text(table)
    plots(saved["results"], out, stem, saved.get("machine"))


if __name__ == "__main__":
    main()
