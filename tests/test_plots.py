"""benchmark/plots.py: the aggregate a learning-curve figure draws, and that it is drawn."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmark"))
import plots


def test_smooth_is_a_trailing_mean() -> None:
    np.testing.assert_allclose(plots.smooth([0, 2, 4, 6, 8], 2), [0, 1, 3, 5, 7])
    np.testing.assert_allclose(plots.smooth([1, 2, 3], 10), [1, 1.5, 2])


def test_aggregate_mean_and_band_over_seeds() -> None:
    steps = np.arange(0, 1000, 10)
    seeds = [(steps, np.full(len(steps), v)) for v in (1.0, 2.0, 6.0)]
    agg = plots.aggregate(seeds, window=5, points=11)
    np.testing.assert_allclose(agg["x"], np.linspace(40, 990, 11))  # from the 5th value on
    np.testing.assert_allclose(agg["mean"], 3.0)
    np.testing.assert_allclose(agg["min"], 1.0)
    np.testing.assert_allclose(agg["max"], 6.0)
    np.testing.assert_allclose(agg["std"], np.std([1.0, 2.0, 6.0]))


def test_aggregate_only_where_every_seed_has_data() -> None:
    short = (np.array([100.0, 200.0, 300.0, 400.0]), np.array([0.0, 0.0, 3.0, 3.0]))
    long = (np.array([0.0, 100.0, 500.0]), np.array([10.0, 10.0, 10.0]))
    agg = plots.aggregate([short, long], window=2, points=3)
    # Smoothed over 2 from the second value on: short from 200, long from 100 to 500.
    np.testing.assert_allclose(agg["x"], [200, 300, 400])
    # short smoothed over 2: 0, 1.5, 3; long is 10 everywhere.
    np.testing.assert_allclose(agg["mean"], [5.0, 5.75, 6.5])
    np.testing.assert_allclose(agg["min"], [0.0, 1.5, 3.0])


def test_mean_curve_starts_where_its_window_is_full() -> None:
    """A first game that scored 0 is not the first point of a mean curve."""
    steps = np.arange(1000, 101000, 1000)
    returns = np.full(len(steps), 2.0)
    returns[0] = 0.0
    x, y = plots.trailing_mean(steps, returns, 20)
    assert x[0] == steps[19]
    np.testing.assert_allclose(y[0], 38 / 20)
    agg = plots.aggregate([(steps, returns)], window=20)
    assert agg["x"][0] == steps[19] and agg["mean"][0] > 0


def test_final_return_is_the_tables() -> None:
    assert plots.final_return([0.0] * 90 + [2.0] * 10) == 2.0
    assert plots.final_return([0.0, 1.0, 4.0]) == 4.0  # at least one value


def test_wall_times_from_logged_sps() -> None:
    np.testing.assert_allclose(plots.wall_times([100, 200], [(100, 50.0), (200, 40.0)]), [2.0, 5.0])


def synthetic_results() -> list[dict]:
    """training.py JSON entries: three seeds of one script, returns seed + step / 1000."""
    results = []
    for seed in (1, 2, 3):
        steps = list(range(1000, 101000, 1000))
        results.append(
            {
                "run": "ppo_mujoco_envpool:Hopper-v4:100000",
                "engine": "envpool_core",
                "seed": seed,
                "reference": False,
                "returns": [[s, seed + s / 1000] for s in steps],
                "sps": [[s, 1000.0] for s in steps],
            }
        )
    return results


def test_runs_from_training_wall_time() -> None:
    run = plots.runs_from_training(synthetic_results())[0]
    np.testing.assert_allclose(run["wall"], np.array(run["steps"]) / 1000)  # 1000 steps/s
    assert (run["task"], run["system"], run["budget"]) == ("Hopper-v4", "envpool_core", 100000)


def test_learning_curves_figure(tmp_path: Path) -> None:
    path = tmp_path / "curves.png"
    drawn = plots.learning_curves(plots.runs_from_training(synthetic_results()), path, window=1)
    assert path.stat().st_size > 10_000
    row = drawn["Hopper-v4, 100k steps"]
    steps = row["ppo_mujoco_envpool (envpool_core), 100k steps, 3 seeds"]
    np.testing.assert_allclose(steps["mean"], 2 + steps["x"] / 1000)
    np.testing.assert_allclose(steps["max"] - steps["min"], 2.0)
    assert steps["seed_ids"] == [1, 2, 3]
    assert not steps["points"]
    # The tables' final return: the last 10 of 100 values, seeds 1-3: mean 2 + 95.5, std 1.
    np.testing.assert_allclose(steps["final"], (97.5, 1.0))
    # CleanRL's Hopper figure is at 1M steps, off a 100k-step budget's scale: no marker.
    assert "reference" not in row


def axes_of(fig_path: Path, drawn_by) -> list:
    """The axes of the figure `drawn_by` draws, captured before it is closed."""
    import matplotlib.pyplot as plt

    figures = []
    close = plt.close
    plt.close = lambda fig=None: figures.append(fig)
    try:
        drawn_by(fig_path)
    finally:
        plt.close = close
    (fig,) = figures
    axes = fig.get_axes()
    close(fig)
    return axes


def test_reference_is_drawn_at_its_step(tmp_path: Path) -> None:
    """CleanRL's 1M-step figure is a marker with its ± std at 1M steps, not a band."""
    results = synthetic_results()
    for r in results:
        r["run"] = "ppo_mujoco_envpool:Hopper-v4:1000000"
        r["returns"] = [[s * 10, v] for s, v in r["returns"]]
        r["sps"] = [[s * 10, v] for s, v in r["sps"]]
    runs = plots.runs_from_training(results)
    drawn: dict = {}
    axes = axes_of(
        tmp_path / "ref.png", lambda p: drawn.update(plots.learning_curves(runs, p, window=1))
    )
    mean, std, at, _ = plots.REFERENCES["Hopper-v4"]
    assert drawn["Hopper-v4, 1M steps"]["reference"] == (mean, std, at)
    steps_ax = axes[0]
    assert not steps_ax.patches  # no axhspan band
    stars = [line for line in steps_ax.lines if line.get_marker() == "*"]
    assert len(stars) == 1
    np.testing.assert_allclose(stars[0].get_xydata(), [[at, mean]])
    for ax in axes:  # every panel has labelled axes
        assert ax.get_xlabel() and ax.get_ylabel()
    assert "load" in axes[1].get_title()  # wall time depends on the machine's load


def test_few_returns_are_points_and_random_policy_is_a_line(tmp_path: Path) -> None:
    """Ten logged returns per seed are points, their mean at each step is points too, and
    Breakout's random-policy score is a labelled line."""
    results = [
        {
            "run": "ppo_distributed:Breakout-v5:20480",
            "engine": "envpool_core",
            "seed": seed,
            "reference": False,
            "returns": [[s, seed + s / 20480] for s in range(2048, 20481, 2048)],
            "sps": [[s, 17.0] for s in range(2048, 20481, 2048)],
        }
        for seed in (1, 2, 3)
    ]
    runs = plots.runs_from_training(results)
    drawn: dict = {}
    axes = axes_of(tmp_path / "few.png", lambda p: drawn.update(plots.learning_curves(runs, p)))
    row = drawn["Breakout-v5, 20.48k steps"]
    group = row["ppo_distributed (envpool_core), 20.48k steps, 3 seeds"]
    assert group["points"]
    np.testing.assert_allclose(group["mean"], 2 + group["x"] / 20480)
    assert row["random"] == plots.RANDOM_SCORES["Breakout-v5"][0]
    # No line through the points: every line with data against env steps is markers only,
    # but for the random policy's level.
    for line in axes[0].lines:
        if len(line.get_xdata()) > 2:
            assert line.get_linestyle() == "None"
    labels = [t.get_text() for t in axes[0].figure.legends[0].get_texts()]
    assert any(label.startswith("random policy: 1.7") for label in labels)


def test_budgets_far_apart_do_not_share_an_axis() -> None:
    runs = [
        {"task": "Breakout-v5", "budget": b, "steps": [b], "returns": [0.0]}
        for b in (4800, 8192, 300_000, 200_000, 1_000_000)
    ]
    rows = [
        (task, budget, [r["budget"] for r in mine])
        for task, budget, mine in plots.budget_rows(runs)
    ]
    assert rows == [
        ("Breakout-v5", "4.8k–8.192k steps", [4800, 8192]),
        ("Breakout-v5", "200k–300k steps", [300_000, 200_000]),
        ("Breakout-v5", "1M steps", [1_000_000]),
    ]


def test_throughput_figure(tmp_path: Path) -> None:
    path = tmp_path / "fps.png"
    plots.throughput(
        {"Pong": {"envpool_core (sync)": [3.0, 4.0, 5.0], "EnvPool (sync)": [2.0, 2.5, 3.0]}}, path
    )
    assert path.stat().st_size > 5_000


def test_paper_table_titles_name_their_machine(tmp_path: Path) -> None:
    """Each paper-table figure's title names the machine its JSON says it was measured on."""
    import json

    import matplotlib.figure
    import paper_table

    titles = []
    suptitle = matplotlib.figure.Figure.suptitle

    def record(fig, text, **kwargs):
        titles.append(text)
        return suptitle(fig, text, **kwargs)

    matplotlib.figure.Figure.suptitle = record
    try:
        for stem in ("paper_table", "paper_table_epyc"):
            data = json.loads((plots.RESULTS / f"{stem}.json").read_text())
            paper_table.plots(data["results"], tmp_path, stem, data["machine"])
    finally:
        matplotlib.figure.Figure.suptitle = suptitle
    assert "Intel Xeon Processor, 2 cores" in titles[0]
    assert "AMD EPYC, 2 cores (load average 0.3 at the start, 2.8 at the end)" in titles[1]
    assert plots.machine_title(None) == "machine not recorded"


@pytest.mark.parametrize(
    ("label", "system"),
    [
        ("envpool_core (async)", "envpool_core"),
        ("EnvPool (sync)", "EnvPool"),
        ("For-loop", "gymnasium"),
        ("Sample-Factory 2.1.1 (sampler + policy)", "Sample-Factory"),
        ("rl_games_envpool_core", "envpool_core"),
        ("rl_games_envpool", "rl_games"),
        ("ale-py AtariVectorEnv", "ale-py"),
        ("cleanba_ppo", "Cleanba"),
    ],
)
def test_one_colour_per_system(label: str, system: str) -> None:
    assert plots.system_of(label) == system
    assert system in plots.COLORS


def test_every_embedded_figure_has_its_results_file() -> None:
    """Each figure README.md and docs/ show is drawn by plots.py from a JSON file beside it."""
    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    shown = {
        name
        for page in pages
        for name in re.findall(
            r"!\[[^\]]*\]\([./]*benchmark/results/([\w.-]+)\.png\)", page.read_text()
        )
    }
    assert "paper_table_epyc" in shown
    for name in shown:
        if name in plots.COMPARISONS:  # drawn from the files present, as runs arrive
            files = [stem for stem, _ in plots.COMPARISONS[name]["files"]]
            assert any((plots.RESULTS / f"{s}.json").exists() for s in files), name
            assert (plots.RESULTS / f"{name}_summary.json").exists(), name
            continue
        tuning = [stem for stem, _ in plots.TUNING_FIGURES.get(name, [])]
        sources = plots.AGGREGATES.get(name, tuning or [name])
        assert all((plots.RESULTS / f"{s}.json").exists() for s in sources), name
        assert (plots.RESULTS / f"{name}.png").exists(), name


def test_time_to_score_figure_draws_the_median_of_all_seeds(tmp_path: Path) -> None:
    """Every seed's curve is drawn and the thick line is their median, per system."""
    steps = list(range(0, 100_001, 1000))
    runs = [
        {
            "system": system,
            "env_id": "Ant-v4",
            "seed": seed,
            "curve": [[s / 1000 * speed, s, seed * 100.0 + s / 100] for s in steps],
            "summary": {"time_to_target_s": None if seed == 1 else 50.0},
        }
        for system, speed in (("xla_jax", 1.0), ("rl_games_envpool", 2.0))
        for seed in (1, 2, 5)
    ]
    data = {"env_id": "Ant-v4", "target": 1000.0, "wall_limit": 300.0, "runs": runs}
    path = tmp_path / "tts.png"
    drawn = plots.time_to_score_curves(data, path)
    assert path.stat().st_size > 10_000
    for system in ("xla_jax", "rl_games_envpool"):
        x, median = drawn[system]["steps"]
        np.testing.assert_allclose(median, 200.0 + x / 100)  # seeds 1, 2, 5: seed 2's curve
    x, median = drawn["rl_games_envpool"]["wall"]
    np.testing.assert_allclose(x[-1], 200.0)  # wall time: seconds, not steps
    colours = plots.TIME_TO_SCORE_COLORS
    assert set(colours) == set(plots.TIME_TO_SCORE_SYSTEMS)
    assert len(set(colours.values())) == len(colours)  # one colour per system


def test_tuning_figure_draws_each_setting_by_env_steps(tmp_path: Path) -> None:
    def runs(scale: float, with_rate: bool) -> list[dict]:
        return [
            {
                "seed": seed,
                "curve": [[0.0, 0, 0.0], [9.0, 1000, 100.0 * scale], [20.0, 2000, 200.0 * scale]],
                "learning_rate": [[0, 3e-4], [2000, 1e-4 * scale]] if with_rate else [],
            }
            for seed in (1, 2)
        ]

    sets = [
        ({"env_id": "Ant-v4", "target_return": 3000.0, "runs": runs(1, True)}, "a"),
        ({"env_id": "Ant-v4", "target_return": 3000.0, "runs": runs(2, False)}, "b"),
    ]
    drawn = plots.tuning_curves(sets, tmp_path / "tuning.png")
    assert (tmp_path / "tuning.png").stat().st_size > 0
    steps, median = drawn["b"]["curve"]
    assert steps[-1] == 2000 and median[-1] == pytest.approx(400.0)  # steps, not seconds
    assert drawn["a"]["learning_rate"][1][-1] == pytest.approx(1e-4)
    assert "learning_rate" not in drawn["b"]  # a setting whose runs did not log the rate


def test_tuning_figure_without_learning_rates_draws_the_entropy(tmp_path: Path) -> None:
    """time_to_score.py's runs log the entropy, not the rate: the second panel is the entropy."""
    run = {
        "seed": 1,
        "curve": [[0.0, 0, 0.0], [9.0, 1000, 50.0]],
        "entropy": [[0, 11.0], [1000, 9.0]],
    }
    data = {"env_id": "Ant-v4", "target": 3000.0, "runs": [run, {**run, "seed": 2}]}
    drawn = plots.tuning_curves([(data, "a")], tmp_path / "tuning.png")
    assert drawn["a"]["entropy"][1][-1] == pytest.approx(9.0)
    assert "learning_rate" not in drawn["a"]


def test_the_tuning_figure_names_files_that_exist() -> None:
    for name, parts in plots.TUNING_FIGURES.items():
        assert parts and all((plots.RESULTS / f"{stem}.json").exists() for stem, _ in parts), name


def test_last_mean_at_a_step() -> None:
    steps, returns = [100, 200, 300, 400], [1.0, 2.0, 3.0, 10.0]
    assert plots.last_mean_at(steps, returns, 300, window=2) == 2.5  # 200 and 300, not 400
    assert plots.last_mean_at(steps, returns, 1000, window=10) == 4.0
    assert plots.last_mean_at(steps, returns, 50, window=2) is None


def test_variants_are_groups_of_their_own_with_a_summary(tmp_path: Path) -> None:
    """A script's flag variant (here `--bf16`) is drawn and summarised apart from the script."""
    runs = []
    for variant, offset in (("", 0.0), ("--bf16", 100.0)):
        for run in plots.runs_from_training(synthetic_results()):
            run["returns"] = [g + offset for g in run["returns"]]
            runs.append({**run, "variant": variant})
    drawn = plots.learning_curves(runs, tmp_path / "variants.png", window=1)
    row = drawn["Hopper-v4, 100k steps"]
    plain = row["ppo_mujoco_envpool (envpool_core), 100k steps, 3 seeds"]
    bf16 = row["ppo_mujoco_envpool --bf16 (envpool_core), 100k steps, 3 seeds"]
    np.testing.assert_allclose(bf16["mean"] - plain["mean"], 100.0)
    summary = plots.summary_at_steps(runs, [50_000], window=10)
    assert [(g["variant"], g["seeds"]) for g in summary] == [("", [1, 2, 3]), ("--bf16", [1, 2, 3])]
    # Seed s at 50k: the mean of s + 41..50 = s + 45.5; over seeds 47.5 ± 1.
    at = summary[0]["last10_at"]["50k"]
    assert at == {"per_seed": [46.5, 47.5, 48.5], "mean": 47.5, "std": 1.0}
    assert summary[1]["last10_at"]["50k"]["mean"] == 147.5
