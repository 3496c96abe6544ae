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
    np.testing.assert_allclose(agg["x"], np.linspace(0, 990, 11))
    np.testing.assert_allclose(agg["mean"], 3.0)
    np.testing.assert_allclose(agg["min"], 1.0)
    np.testing.assert_allclose(agg["max"], 6.0)
    np.testing.assert_allclose(agg["std"], np.std([1.0, 2.0, 6.0]))


def test_aggregate_only_where_every_seed_has_data() -> None:
    short = (np.array([100.0, 200.0, 300.0]), np.array([0.0, 0.0, 3.0]))
    long = (np.array([0.0, 500.0]), np.array([10.0, 10.0]))
    agg = plots.aggregate([short, long], window=2, points=3)
    np.testing.assert_allclose(agg["x"], [100, 200, 300])
    # short smoothed over 2: 0, 0, 1.5; long is 10 everywhere.
    np.testing.assert_allclose(agg["mean"], [5.0, 5.0, 5.75])
    np.testing.assert_allclose(agg["min"], [0.0, 0.0, 1.5])


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
    steps = drawn["Hopper-v4"]["ppo_mujoco_envpool (envpool_core), 100k steps, 3 seeds"]
    np.testing.assert_allclose(steps["mean"], 2 + steps["x"] / 1000)
    np.testing.assert_allclose(steps["max"] - steps["min"], 2.0)
    assert steps["seed_ids"] == [1, 2, 3]


def test_throughput_figure(tmp_path: Path) -> None:
    path = tmp_path / "fps.png"
    plots.throughput(
        {"Pong": {"envpool_core (sync)": [3.0, 4.0, 5.0], "EnvPool (sync)": [2.0, 2.5, 3.0]}}, path
    )
    assert path.stat().st_size > 5_000


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
        sources = plots.AGGREGATES.get(name, [name])
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
