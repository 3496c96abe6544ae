"""The one plotting style of the benchmark and training figures.

    python benchmark/plots.py            # redraws every figure in benchmark/results/

Learning curves: one row of panels per task and budget (runs whose budgets differ more than
`BUDGET_RATIO` times get rows of their own), return against env steps and against wall time.
Every seed is drawn thin and the mean of the seeds thick (the tables' final returns are means
over seeds); a seed with few logged returns is drawn as points, one per logged return, not as
a smoothed line. Each group's final return as the tables give it (the mean of the last 10% of
the logged returns, mean ± std over seeds) is a diamond with its error bar at the last step; a
reference's published figure (mean ± std) is a star with its error bar at the step it was
measured at; a random policy's score, where the repo cites one (`RANDOM_SCORES`), is a
labelled line. Time to score: every seed's curve thin and the median of the seeds thick, one
colour per system. Throughput: one panel per task, the median of the repeats as a bar with the
min-max over repeats as its error bar, the machine in the title. Every system has one colour
in every figure (`COLORS`); legends sit outside the panels.
`benchmark/training.py`, `paper_table.py` and `time_to_score.py` draw their figures here; run
as a script, this file redraws every figure in benchmark/results/ from its JSON file.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
# One colour per system, in every figure.
COLORS = {
    "envpool_core": "#2ca02c",
    "EnvPool": "#1f77b4",
    "CleanRL": "#000000",
    "Cleanba": "#7f7f7f",
    "rl_games": "#9467bd",
    "gymnasium": "#ff7f0e",
    "Sample-Factory": "#8c564b",
    "ale-py": "#e377c2",
}
# Published reference figures: (task, source) -> (mean, std, where it is published).
CLEANRL_ATARI = "https://github.com/vwxyzjn/cleanrl/blob/master/docs/benchmark/ppo_atari_envpool.md"
CLEANRL_MUJOCO = (
    "https://github.com/vwxyzjn/cleanrl/blob/master/docs/benchmark/ppo_continuous_action.md"
)
# The Control Suite through Shimmy: the ppo_continuous_action.py section of CleanRL's PPO page.
CLEANRL_DMC = "https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_continuous_actionpy"
REFERENCES: dict[str, tuple[float, float, int, str]] = {
    # task -> (mean, std, at env steps, source): CleanRL's average episodic return over seeds.
    "HalfCheetah-v4": (1442.64, 46.03, 1_000_000, CLEANRL_MUJOCO),
    "Hopper-v4": (2382.86, 271.74, 1_000_000, CLEANRL_MUJOCO),
    "Walker2d-v4": (2287.95, 571.78, 1_000_000, CLEANRL_MUJOCO),
    "Humanoid-v4": (716.11, 49.08, 1_000_000, CLEANRL_MUJOCO),
    "CheetahRun-v1": (432.56, 82.54, 1_000_000, CLEANRL_DMC),
    "WalkerWalk-v1": (392.51, 56.25, 1_000_000, CLEANRL_DMC),
    "Breakout-v5": (211.24, 151.84, 10_000_000, CLEANRL_ATARI),
    "Pong-v5": (20.45, 0.09, 10_000_000, CLEANRL_ATARI),
}
# Cleanba's Atari table (1 A100, 10 CPU, 200M frames): the JAX scripts' own references.
CLEANBA_ATARI = "https://github.com/vwxyzjn/cleanba/blob/main/static/cleanba/main_10CPU.csv"
SCRIPT_REFERENCES: dict[tuple[str, str], tuple[str, tuple[float, float, int, str]]] = {
    # (script, task) -> (publisher, as REFERENCES), where a script's reference is another's.
    ("impala_atari", "Breakout-v5"): ("Cleanba", (482.12, 9.36, 50_000_000, CLEANBA_ATARI)),
    ("ppo_distributed", "Breakout-v5"): ("Cleanba", (422.21, 6.83, 50_000_000, CLEANBA_ATARI)),
}
# A random policy's score, where the repo cites one: task -> (score, source). Breakout's is the
# "Random Play" column of the DQN paper's table (Mnih et al. 2015, Nature 518, Extended Data
# Table 2), the figure docs/ppo_distributed.md and docs/impala_atari.md cite.
RANDOM_SCORES: dict[str, tuple[float, str]] = {"Breakout-v5": (1.7, "the DQN paper's table")}
# Runs whose budgets differ more than this many times are drawn in rows of their own.
BUDGET_RATIO = 4
# A seed with fewer logged returns than this is drawn as points, not as a smoothed line.
POINTS_BELOW = 60


def reference_of(task: str, scripts: set[str]) -> tuple[str, tuple[float, float, int, str]] | None:
    """(publisher, figure) of the runs of `task` by `scripts`: their script's own reference
    when they are all of one script that has one, else the task's (CleanRL's)."""
    (script, *others) = sorted(scripts)
    if not others and (script, task) in SCRIPT_REFERENCES:
        return SCRIPT_REFERENCES[script, task]
    return ("CleanRL", REFERENCES[task]) if task in REFERENCES else None


def system_of(label: str) -> str:
    """The system a run or table row belongs to, the key of its colour."""
    low = label.lower()
    for key, system in (
        ("envpool_core", "envpool_core"),
        ("cleanba", "Cleanba"),
        ("cleanrl", "CleanRL"),
        ("rl_games_envpool_core", "envpool_core"),
        ("rl_games", "rl_games"),
        ("sample-factory", "Sample-Factory"),
        ("ale-py", "ale-py"),
        ("envpool", "EnvPool"),
    ):
        if key in low:
            return system
    return "gymnasium"  # the for-loop and subprocess rows, CleanRL's gymnasium scripts aside


def smooth(values: Sequence[float], window: int) -> np.ndarray:
    """Trailing mean over the last `window` values (fewer at the start)."""
    x = np.asarray(values, dtype=float)
    sums = np.cumsum(np.insert(x, 0, 0.0))
    lo = np.maximum(np.arange(1, len(x) + 1) - window, 0)
    return (sums[1:] - sums[lo]) / (np.arange(1, len(x) + 1) - lo)


def trailing_mean(
    x: Sequence[float], y: Sequence[float], window: int
) -> tuple[np.ndarray, np.ndarray]:
    """(x, mean of the last `window` values of y) from the first x where the window is full.

    A curve drawn from the first logged value on would start at one episode's return (Breakout's
    first game often scores 0, below a random policy): it starts at the `window`-th logged
    value (the last, for a seed with fewer values), the first mean of `window` values."""
    first = min(window, len(y)) - 1
    return np.asarray(x, dtype=float)[first:], smooth(y, window)[first:]


def final_return(returns: Sequence[float]) -> float:
    """The tables' final return (training.py): the mean of the last 10% of the logged returns."""
    return float(np.mean(returns[-max(1, len(returns) // 10) :]))


def aggregate(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]], window: int = 20, points: int = 200
) -> dict[str, np.ndarray]:
    """Seeds' (x, returns) curves -> their smoothed mean and min-max band on a common x grid.

    Each curve is smoothed (`trailing_mean`: from its `window`-th value on), then interpolated
    at `points` x values between the latest first x and the earliest last x of the smoothed
    curves, where every seed has data.
    """
    smoothed = [trailing_mean(x, y, window) for x, y in curves if len(x)]
    start = max(x[0] for x, _ in smoothed)
    end = min(x[-1] for x, _ in smoothed)
    grid = np.linspace(start, end, points)
    ys = np.array([np.interp(grid, x, y) for x, y in smoothed])
    return {
        "x": grid,
        "mean": ys.mean(axis=0),
        "min": ys.min(axis=0),
        "max": ys.max(axis=0),
        "std": ys.std(axis=0),
        "seeds": np.array(len(smoothed)),
    }


def wall_times(steps: Sequence[float], sps: Sequence[tuple[float, float]]) -> np.ndarray:
    """Seconds since the start at each of `steps`, from the logged (step, SPS) pairs.

    The scripts log SPS as steps so far / seconds so far, so step / SPS is the time then."""
    at, rate = (np.asarray(v, dtype=float) for v in zip(*sps, strict=True))
    return np.interp(steps, at, at / np.maximum(rate, 1e-9))


def runs_from_training(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`training.py` JSON entries -> runs of (task, system, script, seed, steps, returns, wall)."""
    runs = []
    for r in results:
        if not r.get("returns"):
            continue
        script, task = r["run"].split(":")[:2]
        steps, returns = (list(v) for v in zip(*r["returns"], strict=True))
        system = (
            system_of(script)
            if r.get("reference")
            else ("EnvPool" if r["engine"] == "envpool" else "envpool_core")
        )
        runs.append(
            {
                "task": task,
                "system": system,
                "script": Path(script).stem,
                "budget": int(r["run"].split(":")[2]),
                "variant": "",
                "seed": r["seed"],
                "steps": steps,
                "returns": returns,
                "wall": list(wall_times(steps, r["sps"])) if r.get("sps") else None,
                "final": final_return(returns),
                "mean_sps": r.get("mean_sps"),
                "wall_s": r.get("wall_s"),
            }
        )
    return runs


# time_to_score.py's systems -> (the engine, the colour's key; what trains on it).
TIME_TO_SCORE_SYSTEMS = {
    "xla_jax": ("envpool_core", "ppo_mujoco_envpool_xla_jax"),
    "ppo_mujoco": ("envpool_core", "ppo_mujoco_envpool"),
    "rl_games_envpool_core": ("envpool_core", "rl_games"),
    "rl_games_envpool": ("EnvPool", "rl_games"),
    "cleanrl": ("CleanRL", "ppo_continuous_action"),
}


# One colour per time_to_score.py system, in every time-to-score figure: the engine's colour
# for this repo's JAX script, rl_games' for rl_games on envpool_core, EnvPool's for rl_games on
# EnvPool, CleanRL's for CleanRL's script, and one of its own for ppo_mujoco_envpool.py.
TIME_TO_SCORE_COLORS = {
    "xla_jax": COLORS["envpool_core"],
    "ppo_mujoco": "#d62728",
    "rl_games_envpool_core": COLORS["rl_games"],
    "rl_games_envpool": COLORS["EnvPool"],
    "cleanrl": COLORS["CleanRL"],
}


def median_curve(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]], points: int = 200
) -> tuple[np.ndarray, np.ndarray]:
    """The median of the seeds' (x, y) curves on a common x grid, where every seed has data."""
    start = max(float(x[0]) for x, _ in curves)
    end = min(float(x[-1]) for x, _ in curves)
    grid = np.linspace(start, end, points)
    ys = np.array([np.interp(grid, np.asarray(x, float), np.asarray(y, float)) for x, y in curves])
    return grid, np.median(ys, axis=0)


def _save_with_legend_below(plt: Any, fig: Any, ax: Any, path: Path) -> None:
    """Writes a figure with the legend of `ax` below its panels, outside the data."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 + 0.035 * ((len(labels) + 1) // 2), 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def time_to_score_curves(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A `time_to_score.py` result: the last-100 mean return against env steps and against wall
    time, every seed's curve thin and the median of the seeds thick (where every seed has data),
    one colour per system (`TIME_TO_SCORE_COLORS`), the target dotted, the legend outside the
    panels. Returns the medians drawn, by system, so that tests can check the figure's numbers."""
    plt = _pyplot()
    from matplotlib.ticker import EngFormatter

    target, limit = data["target"], data["wall_limit"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.6))
    drawn: dict[str, Any] = {}
    systems = dict.fromkeys(r["system"] for r in data["runs"] if r["curve"])
    for system in systems:
        mine = [r for r in data["runs"] if r["system"] == system and r["curve"]]
        color = TIME_TO_SCORE_COLORS[system]
        reached = sum(
            r["summary"]["time_to_target_s"] is not None
            for r in data["runs"]
            if r["system"] == system
        )
        total = sum(r["system"] == system for r in data["runs"])
        engine, script = TIME_TO_SCORE_SYSTEMS[system]
        engine = "gymnasium" if engine == "CleanRL" else engine  # CleanRL's script, its envs
        label = (
            f"{system}: {script} on {engine}, {reached} of {total} seeds reached "
            f"{target:,.0f} within {limit:.0f} s"
        )
        for ax, column in zip(axes, (1, 0), strict=True):
            curves = [([p[column] for p in r["curve"]], [p[2] for p in r["curve"]]) for r in mine]
            for x, y in curves:
                ax.plot(x, y, color=color, linewidth=0.7, alpha=0.45)
            x, median = median_curve(curves)
            ax.plot(x, median, color=color, linewidth=2.4, label=label if column == 1 else None)
            drawn.setdefault(system, {})["steps" if column == 1 else "wall"] = (x, median)
    for ax in axes:
        ax.axhline(target, color="gray", linestyle=":", linewidth=1.2)
    axes[0].plot([], [], color="gray", linestyle=":", label=f"target {target:,.0f}")
    axes[0].plot([], [], color="gray", linewidth=0.7, label="each seed (thin), median (thick)")
    task = data["env_id"]
    axes[0].set(
        title=f"{task}: against env steps",
        xlabel="env steps",
        ylabel="return, mean of the last 100 episodes",
    )
    axes[0].xaxis.set_major_formatter(EngFormatter(sep=""))
    axes[1].set(title=f"{task}: against wall time", xlabel="wall time (s)")
    axes[1].axvline(limit, color="gray", linewidth=0.8)
    _save_with_legend_below(plt, fig, axes[0], path)
    return drawn


# Tuning records drawn in one figure: figure name -> (results file stem, legend label), in the
# order the settings were tried. Each file holds runs of one setting (`"what"` says which).
TUNING_FIGURES: dict[str, list[tuple[str, str]]] = {
    "ppo_mujoco_xla_jax_ant_tuning_num_envs": [
        ("ppo_mujoco_xla_jax_ant_tuning_1m_defaults", "64 envs x 64 steps (the defaults before)"),
        ("ppo_mujoco_xla_jax_ant_tuning_1m_num_envs_128", "128 envs x 32 steps (the defaults)"),
    ],
    "ppo_mujoco_xla_jax_ant_tuning": [
        ("ppo_mujoco_xla_jax_ant_tuning_defaults", "previous defaults (KL to the rollout)"),
        (
            "ppo_mujoco_xla_jax_ant_tuning_rl_games_setting",
            "rl_games' setting, KL to the previous pass",
        ),
        ("ppo_mujoco_xla_jax_ant_tuning_smooth_clamp", "the same with the smooth clamp (defaults)"),
    ],
}
TUNING_COLORS = ("#7f7f7f", "#1f77b4", "#2ca02c", "#d62728", "#9467bd")


def tuning_curves(sets: list[tuple[dict[str, Any], str]], path: Path) -> dict[str, Any]:
    """Tuning runs, one colour per setting: the last-100 mean return and the learning rate (or,
    for runs that did not log it, the policy's entropy) against env steps (not seconds: tuning
    runs may share a machine), every seed thin and the median of the seeds thick. Returns the
    medians drawn, by label, for tests."""
    plt = _pyplot()
    from matplotlib.ticker import EngFormatter

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.6))
    drawn: dict[str, Any] = {}
    second = (
        "learning_rate"
        if any(r.get("learning_rate") for data, _ in sets for r in data["runs"])
        else "entropy"
    )
    for (data, label), color in zip(sets, TUNING_COLORS, strict=False):
        runs = [r for r in data["runs"] if r["curve"]]
        for ax, key in zip(axes, ("curve", second), strict=True):
            curves = [
                ([p[-2] for p in r[key]], [p[-1] for p in r[key]]) for r in runs if r.get(key)
            ]
            for x, y in curves:
                ax.plot(x, y, color=color, linewidth=0.7, alpha=0.45)
            if curves:
                x, median = median_curve(curves)
                ax.plot(
                    x, median, color=color, linewidth=2.4, label=f"{label}, {len(curves)} seeds"
                )
                drawn.setdefault(label, {})[key] = (x, median)
    target = sets[0][0].get("target_return", sets[0][0].get("target"))
    axes[0].axhline(target, color="gray", linestyle=":", linewidth=1.2, label=f"{target:,.0f}")
    task = sets[0][0]["env_id"]
    axes[0].set(
        title=f"{task}: return against env steps",
        xlabel="env steps",
        ylabel="return, mean of the last 100 episodes",
    )
    if second == "learning_rate":
        axes[1].set(
            title=f"{task}: the adaptive learning rate",
            xlabel="env steps",
            ylabel="learning rate (log scale)",
            yscale="log",
        )
    else:
        axes[1].set(
            title=f"{task}: the policy's entropy", xlabel="env steps", ylabel="entropy, as logged"
        )
    for ax in axes:
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    _save_with_legend_below(plt, fig, axes[0], path)
    return drawn


def runs_from_time_to_score(data: dict[str, Any]) -> list[dict[str, Any]]:
    """`time_to_score.py` JSON -> runs; their returns are already means of the last 100."""
    return [
        {
            "task": r["env_id"],
            "system": TIME_TO_SCORE_SYSTEMS[r["system"]][0],
            "script": TIME_TO_SCORE_SYSTEMS[r["system"]][1],
            "budget": f"{data['wall_limit']:.0f} s",
            "seed": r["seed"],
            "steps": [p[1] for p in r["curve"]],
            "returns": [p[2] for p in r["curve"]],
            "wall": [p[0] for p in r["curve"]],
        }
        for r in data["runs"]
        if r["curve"]
    ]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.grid": True, "grid.alpha": 0.3})
    return plt


def _steps(n: float) -> str:
    """200000 -> '200k', 1000000 -> '1M'."""
    return f"{n / 1e6:g}M" if n >= 1e6 else f"{n / 1e3:g}k"


def budget_rows(runs: list[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(task, budget title, runs) per row: the runs of a task, split where budgets (in steps)
    differ more than `BUDGET_RATIO` times, so that a 5k-step run and a 200k-step run do not
    share an x axis; budgets that are not step counts (a time limit) get a row each."""
    rows = []
    for task in dict.fromkeys(r["task"] for r in runs):
        mine = [r for r in runs if r["task"] == task]
        steps = sorted({r["budget"] for r in mine if isinstance(r["budget"], int)})
        classes: list[list[int]] = []
        for b in steps:
            if classes and b <= BUDGET_RATIO * classes[-1][0]:
                classes[-1].append(b)
            else:
                classes.append([b])
        for c in classes:
            budget = _steps(c[0]) + (f"–{_steps(c[-1])}" if len(c) > 1 else "") + " steps"
            rows.append((task, budget, [r for r in mine if r["budget"] in c]))
        for b in dict.fromkeys(r["budget"] for r in mine if not isinstance(r["budget"], int)):
            rows.append((task, str(b), [r for r in mine if r["budget"] == b]))
    return rows


def learning_curves(
    runs: list[dict[str, Any]],
    path: Path,
    window: int = 20,
    title: str | None = None,
    references: bool = True,
    target: float | None = None,
) -> dict[str, Any]:
    """One row per task and budget (`budget_rows`): return against env steps, and against wall
    time where the runs logged it.

    Runs of one (system, script, variant, budget) in a row are a group (a run's variant, such as
    a flag, is "" unless a caller sets it): each seed thin (a trailing mean over `window` logged
    returns from the `window`-th on, or, for a seed with fewer than `POINTS_BELOW` logged
    returns, a point per logged return) and the mean of the seeds thick.
    Each group's final return (`final_return`, mean ± std over seeds, as the tables give it) is a
    diamond at its last step. The reference of the task, if `reference_of` finds one, is a star
    with its ± std error bar at the step it was measured at (a note when that step is far off
    the budget's scale); a random policy's score (`RANDOM_SCORES`), a dash-dotted line; `target`,
    a dotted one. The wall-time panel shows each run on its own: wall time depends on the
    machine's load during the run. Returns the aggregates drawn against env steps, by row title
    ('task, budget') and label, so that callers and tests can check the figure's numbers."""
    plt = _pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.ticker import EngFormatter

    rows = budget_rows(runs)
    wall = any(r["wall"] for r in runs)
    cols = 2 if wall else 1
    fig = plt.figure(layout="constrained", figsize=(6.5 * cols, 5.4 * len(rows)))
    subfigs = np.atleast_1d(fig.subfigures(len(rows), 1))
    drawn: dict[str, Any] = {}
    for subfig, (task, budget, mine_row) in zip(subfigs, rows, strict=True):
        row = np.atleast_1d(subfig.subplots(1, cols))
        name = f"{task}, {budget}"
        groups: dict[tuple[str, str, str, Any], list] = {}
        for r in mine_row:
            key = (r["system"], r["script"], r.get("variant", ""), r["budget"])
            groups.setdefault(key, []).append(r)
        styles: dict[str, int] = {}
        smoothed = thin = points = means = False
        longest = max(r["steps"][-1] for r in mine_row)
        for (system, script, variant, group_budget), mine in groups.items():
            style = ("-", "--", ":", "-.")[styles.setdefault(system, 0) % 4]
            marker = ("o", "s", "^", "v")[styles[system] % 4]
            styles[system] += 1
            mine = sorted(mine, key=lambda r: r["seed"])
            seeds = [r["seed"] for r in mine]
            if isinstance(group_budget, int):
                group_budget = _steps(group_budget) + " steps"
            n = len(mine)
            name_of = f"{script} {variant}" if variant else script
            label = f"{name_of} ({system}), {group_budget}, {n} seed{'s' if n > 1 else ''}"
            color = COLORS[system]
            few = min(len(r["returns"]) for r in mine) < POINTS_BELOW
            entry: dict[str, Any] = {"seed_ids": seeds, "points": few}
            # Every seed: thin, or its logged returns as points (one seed's line is the thick one,
            # against env steps).
            for ax, column in zip(row, ("steps", "wall"), strict=False):
                for r in mine:
                    if not r[column] or (column == "steps" and n == 1 and not few):
                        continue
                    if few:
                        ax.plot(
                            r[column],
                            r["returns"],
                            marker,
                            color=color,
                            markersize=3.5,
                            alpha=0.55,
                            linestyle="none",
                        )
                    else:
                        thin |= column == "steps"
                        ax.plot(
                            *trailing_mean(r[column], r["returns"], window),
                            style,
                            color=color,
                            linewidth=0.7 if column == "steps" else 0.9,
                            alpha=0.5 if column == "steps" else 0.8,
                        )
            points |= few
            # The mean of the seeds: thick, where every seed has data.
            smoothed_here = False
            same_steps = all(r["steps"] == mine[0]["steps"] for r in mine)
            enough = min(len(r["returns"]) for r in mine) >= window
            if few and same_steps and n > 1:
                # Seeds logged at the same steps: their mean at each step, unsmoothed, as points:
                # a line through a few means would draw a trend that the points do not show.
                mean = np.mean([r["returns"] for r in mine], axis=0)
                x = np.asarray(mine[0]["steps"], dtype=float)
                entry.update(x=x, mean=mean)
                row[0].plot(
                    x,
                    mean,
                    marker,
                    color=color,
                    markersize=8,
                    markeredgecolor="black",
                    linestyle="none",
                    zorder=4,
                )
                means = True
            elif enough or not few:
                agg = aggregate([(r["steps"], r["returns"]) for r in mine], window)
                if agg["x"][0] <= agg["x"][-1]:
                    entry.update(agg)
                    row[0].plot(agg["x"], agg["mean"], style, color=color, linewidth=2.2)
                    smoothed = smoothed_here = True
            # The tables' final return: mean ± std over seeds, at the last step.
            finals = [r["final"] for r in mine]
            entry["final"] = (float(np.mean(finals)), float(np.std(finals, ddof=1)) if n > 1 else 0)
            row[0].errorbar(
                # Just right of the last step, not to hide the last points drawn there.
                [float(np.mean([r["steps"][-1] for r in mine])) + 0.015 * longest],
                [entry["final"][0]],
                yerr=[entry["final"][1]] if n > 1 else None,
                fmt="D",
                color=color,
                markeredgecolor="white",
                markersize=7,
                capsize=4,
                zorder=5,
            )
            row[0].plot(
                [],
                [],
                style if smoothed_here else "none",
                marker=marker if few else None,
                color=color,
                linewidth=2,
                label=label,
            )
            drawn.setdefault(name, {})[label] = entry
        scripts = {r["script"] for r in mine_row}
        publisher, ref = (reference_of(task, scripts) if references else None) or (None, None)
        if ref and longest < ref[2] / 2:
            # A marker at a 10M-step score would flatten curves of a short budget to nothing:
            # the figure is a line of the legend.
            row[0].plot(
                [],
                [],
                linestyle="none",
                label=f"{publisher}'s published figure: {ref[0]:,.2f} ± {ref[1]:,.2f}"
                f" at {_steps(ref[2])} steps (off this budget's scale)",
            )
        elif ref:
            mean, std, at, _ = ref
            row[0].errorbar(
                [at],
                [mean],
                yerr=[std],
                fmt="*",
                color=COLORS[publisher],
                markersize=12,
                capsize=5,
                zorder=6,
                label=f"{publisher}'s published mean ± std, measured at {_steps(at)} steps",
            )
            drawn.setdefault(name, {})["reference"] = (mean, std, at)
        if task in RANDOM_SCORES:
            score, source = RANDOM_SCORES[task]
            for ax in row:
                ax.axhline(score, color="#d62728", linestyle="-.", linewidth=1.1)
            row[0].plot(
                [],
                [],
                color="#d62728",
                linestyle="-.",
                label=f"random policy: {score:g} ({source})",
            )
            drawn.setdefault(name, {})["random"] = score
        if target is not None:
            for ax in row:
                ax.axhline(target, color="gray", linestyle=":", linewidth=1.2)
            row[0].plot([], [], color="gray", linestyle=":", label=f"target {target:,.0f}")
        ylabel = "return, as logged" + (
            f" (lines: mean of the last {window} logged)" if smoothed and window > 1 else ""
        )
        row[0].set(title=f"{name}: against env steps", xlabel="env steps", ylabel=ylabel)
        row[0].xaxis.set_major_formatter(EngFormatter(sep=""))
        if wall:
            row[1].set(
                title=f"{task}: against wall time, each run\n"
                "(wall time depends on the machine's load during the run)",
                xlabel="wall time (s)",
                ylabel=ylabel,
            )
        handles, labels = row[0].get_legend_handles_labels()
        handles.append(
            Line2D(
                [],
                [],
                color="gray",
                linestyle="none",
                marker="D",
                markeredgecolor="white",
                markersize=7,
            )
        )
        labels.append(
            "final return as in the tables: mean of the last 10% of logged returns, "
            "mean ± std over seeds"
        )
        if smoothed:
            handles.append(Line2D([], [], color="gray", linewidth=2))
            labels.append(
                f"thick line: mean over seeds of each seed's mean of the last {window} logged"
                + ("; thin: each seed" if thin else "")
            )
        if points:
            handles.append(
                Line2D(
                    [], [], color="gray", marker="o", markersize=3.5, linestyle="none", alpha=0.55
                )
            )
            labels.append("small points: each seed's logged returns")
        if means:
            handles.append(
                Line2D(
                    [],
                    [],
                    color="gray",
                    marker="o",
                    markersize=8,
                    markeredgecolor="black",
                    linestyle="none",
                )
            )
            labels.append("large points: mean over seeds at each logged step")
        subfig.legend(
            handles, labels, loc="outside lower center", ncol=2, fontsize=8, frameon=False
        )
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return drawn


def machine_title(info: dict[str, Any] | None) -> str:
    """The machine a result was measured on, for a title: its CPU, its cores (os.cpu_count(),
    vCPUs on a VM) and the 1-minute load average at the start and the end, where recorded."""
    if not info:
        return "machine not recorded"
    cpu = info.get("cpu", "CPU not recorded").replace("(R)", "").replace("(TM)", "")
    cpu = " ".join(cpu.split())
    text = f"{cpu}, {info['cores']} cores" if info.get("cores") else cpu
    load = info.get("load_average") or {}
    if "start" in load and "end" in load:
        start, end = load["start"][0], load["end"][0]
        text += f" (load average {start:.1f} at the start, {end:.1f} at the end)"
    return text


def throughput(
    tasks: dict[str, dict[str, list[float]]],
    path: Path,
    unit: str = "FPS (env steps × frame skip)",
    title: str | None = None,
) -> None:
    """One panel per task: each row's median as a bar, min-max over its repeats as the error."""
    plt = _pyplot()
    from matplotlib.ticker import EngFormatter

    fig, axes = plt.subplots(
        1,
        len(tasks),
        figsize=(6.5 * len(tasks), 0.45 * max(len(rows) for rows in tasks.values()) + 1.8),
        squeeze=False,
    )
    for ax, (task, rows) in zip(axes[0], tasks.items(), strict=True):
        labels = [label for label, values in rows.items() if values]
        med = [statistics.median(rows[label]) for label in labels]
        low = [m - min(rows[label]) for m, label in zip(med, labels, strict=True)]
        high = [max(rows[label]) - m for m, label in zip(med, labels, strict=True)]
        ax.barh(
            labels,
            med,
            xerr=[low, high],
            capsize=3,
            color=[COLORS[system_of(label)] for label in labels],
        )
        for y, (m, h) in enumerate(zip(med, high, strict=True)):
            ax.text(m + h, y, f" {m:,.0f}", va="center", fontsize=8)
        ax.invert_yaxis()
        ax.set(title=task, xlabel=f"{unit}:\nmedian, min-max over repeats", ylabel="system")
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.set_xlim(0, max(m + h for m, h in zip(med, high, strict=True)) * 1.18)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# Figures that aggregate the seeds of one script over several results files.
AGGREGATES = {
    "ppo_mujoco_envpool_seeds": [
        f"ppo_mujoco_envpool_{task}{part}"
        for task in ("halfcheetah", "hopper")
        for part in ("", "_seeds23", "_seeds45", "_seed6")
    ],
    "ppo_atari_envpool_breakout_seeds": [
        "ppo_atari_envpool_breakout_seed1_200k",
        *(f"ppo_atari_envpool_breakout_seed{s}" for s in (2, 3, 4, 5)),
    ],
    "ppo_atari_envpool_async_breakout_seeds": [
        *(f"ppo_atari_envpool_async_breakout_seed{s}" for s in (2, 3, 4, 5)),
    ],
    "ppo_mujoco_envpool_dm_control_seeds": [
        "ppo_mujoco_envpool_cheetah_run",
        *(f"ppo_mujoco_envpool_cheetah_run_seed{s}" for s in (2, 3)),
        "ppo_mujoco_envpool_walker_walk",
    ],
    "impala_atari_cartpole_seeds": [f"impala_atari_cartpole_seed{s}" for s in (1, 2, 3)],
    "ppo_distributed_no_concurrency_cartpole_seeds": [
        "ppo_distributed_no_concurrency_cartpole",
        *(f"ppo_distributed_no_concurrency_cartpole_seed{s}" for s in (2, 3)),
    ],
}


# Seed-by-seed comparisons of variants of a script (each run its own results file, added as it
# finishes): a figure of the files present and a summary of the last-`window` mean return at
# `at_steps`. Files: (results stem, variant label; "" for the script as it is).
COMPARISONS: dict[str, dict[str, Any]] = {
    "ppo_atari_envpool_breakout_1m": {
        "at_steps": (500_000, 1_000_000),
        "window": 100,
        "files": [
            *(
                (f"ppo_atari_envpool_breakout_1m_{kind}_seed{s}", variant)
                for kind, variant in (
                    ("fp32", ""),
                    ("bf16", "--bf16"),
                    ("cleanrl", "on envpool_core"),  # CleanRL's own script, its import changed
                )
                for s in (1, 2, 3)
            ),
            *((f"ppo_atari_envpool_async_breakout_1m_seed{s}", "") for s in (1, 2, 3)),
        ],
    },
}


def last_mean_at(
    steps: Sequence[float], returns: Sequence[float], at: float, window: int
) -> float | None:
    """The mean of the last `window` returns logged at or before step `at` (None: none yet)."""
    upto = [g for x, g in zip(steps, returns, strict=True) if x <= at][-window:]
    return float(np.mean(upto)) if upto else None


def summary_at_steps(
    runs: list[dict[str, Any]], at_steps: Sequence[int], window: int
) -> list[dict[str, Any]]:
    """Per (script, variant, system): each seed's last-`window` mean at `at_steps`, the mean ±
    std over seeds (std with ddof 1; None for one seed), and the mean of the logged steps/s and
    the wall time, which depend on what else the machine ran."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in runs:
        groups.setdefault((r["script"], r["variant"], r["system"]), []).append(r)
    out = []
    for (script, variant, system), mine in groups.items():
        mine = sorted(mine, key=lambda r: r["seed"])
        at = {}
        for step in at_steps:
            values = [last_mean_at(r["steps"], r["returns"], step, window) for r in mine]
            at[_steps(step)] = {
                "per_seed": [None if v is None else round(v, 1) for v in values],
                "mean": round(float(np.mean(values)), 1) if None not in values else None,
                "std": round(float(np.std(values, ddof=1)), 1)
                if len(values) > 1 and None not in values
                else None,
            }
        out.append(
            {
                "script": script,
                "variant": variant,
                "system": system,
                "seeds": [r["seed"] for r in mine],
                f"last{window}_at": at,
                "mean_sps_per_seed": [r["mean_sps"] and round(r["mean_sps"]) for r in mine],
                "wall_min_per_seed": [r["wall_s"] and round(r["wall_s"] / 60, 1) for r in mine],
            }
        )
    return out


def comparison(name: str, results: Path = RESULTS) -> list[Path]:
    """Draws `COMPARISONS[name]` from the files present and writes its summary beside it."""
    spec = COMPARISONS[name]
    runs = []
    for stem, variant in spec["files"]:
        if (results / f"{stem}.json").exists():
            for run in runs_from_training(_load(results / f"{stem}.json")):
                runs.append({**run, "variant": variant, "file": f"{stem}.json"})
    if not runs:
        return []
    learning_curves(runs, results / f"{name}.png", window=spec["window"])
    summary = {
        "what": f"the mean return of the last {spec['window']} episodes at "
        + ", ".join(_steps(s) for s in spec["at_steps"])
        + " steps per seed and over seeds (std with ddof 1), the mean logged steps/s and the"
        " wall time of each seed, computed by plots.py from the files",
        "files": [r["file"] for r in runs],
        "groups": summary_at_steps(runs, spec["at_steps"], spec["window"]),
    }
    (results / f"{name}_summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return [results / f"{name}.png", results / f"{name}_summary.json"]


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def remake(results: Path = RESULTS) -> list[Path]:
    """Draws every figure of `results` from its JSON file: learning curves of `training.py`
    and `time_to_score.py` files, throughput of `paper_table.py` files, and `AGGREGATES`."""
    import paper_table

    written = []
    for path in sorted(results.glob("*.json")):
        data, png = _load(path), path.with_suffix(".png")
        if isinstance(data, list) and any(r.get("returns") for r in data):
            learning_curves(runs_from_training(data), png)
        elif isinstance(data, dict) and "runs" in data and "target" in data:
            time_to_score_curves(data, png)
        elif isinstance(data, dict) and "scaling_model" in data:
            paper_table.plots(data["results"], results, path.stem, data.get("machine"))
        else:
            continue
        written.append(png)
    for name, parts in TUNING_FIGURES.items():
        files = [(results / f"{stem}.json", label) for stem, label in parts]
        if all(f.exists() for f, _ in files):
            tuning_curves([(_load(f), label) for f, label in files], results / f"{name}.png")
            written.append(results / f"{name}.png")
    for name, parts in AGGREGATES.items():
        files = [results / f"{part}.json" for part in parts]
        if all(f.exists() for f in files):
            runs = [run for f in files for run in runs_from_training(_load(f))]
            learning_curves(runs, results / f"{name}.png")
            written.append(results / f"{name}.png")
    for name in COMPARISONS:
        written += comparison(name, results)
    return written


if __name__ == "__main__":
    for png in remake():
        print(png)
