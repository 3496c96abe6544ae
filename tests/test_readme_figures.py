"""The README's speed and score tables show what their results files hold.

Each table of figures in the README cites the results file(s) it comes from, as
`benchmark/results/NAME.json` in the paragraph just above it. Every number in the table's
cells is looked up in those files: a speed table (a `paper_table.py` JSON) must show, for its
row's system and its column's task, the best setting's median steps/s times the frame skip (or
that setting's min or max, for a range); a score table (a `training.py` JSON) must show a figure
of the runs of its row's task: a run's final return, SPS at the end or wall time, or the mean or
standard deviation of the final returns over the cited runs; a time-to-score table (a
`time_to_score.py` JSON) a figure of the runs of the task and the system its row names (the
system in backticks): a run's seed, time to the target, best return, steps or return at given
steps, the median of the best returns, steps or returns over the system's runs, the median time
to the target over all of its runs (one that missed counted as more than the limit, so a lower
bound where it is in the middle), how many runs there are and how many reached the target, the
time limit, or the mean load average. Columns that quote a
reference's published figure (CleanRL's, Cleanba's, the paper's), which no results file here
holds, are not looked up.
Numbers are compared at the precision the README prints them.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CITATION = re.compile(r"benchmark/results/([\w.{},-]+?)\.json")
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w.])")
# A header that marks a table as one of figures: it must cite its results file.
FIGURE_HEADER = re.compile(r"FPS|SPS|steps/s|return|score", re.IGNORECASE)
REFERENCE_COLUMN = re.compile(r"reference|CleanRL|Cleanba|paper", re.IGNORECASE)
# The frame skip of each task of the paper's table (FPS = steps/s x frame skip).
FRAME_SKIP = {"Pong": 4, "Ant": 5}


def expand_braces(name: str) -> list[str]:
    """`a{,_b}` -> [`a`, `a_b`], as the shell expands the citations' brace lists."""
    parts = re.split(r"\{([^}]*)\}", name)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def tables(markdown: str) -> list[tuple[str, list[list[str]]]]:
    """(text of the paragraph above, rows of cells) of each table outside code blocks."""
    found: list[tuple[str, list[list[str]]]] = []
    paragraph: list[str] = []  # the current paragraph, or the last one before blank lines
    ended, rows, in_code = False, [], False
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
            continue
        if rows:
            found.append((" ".join(paragraph), rows))
            rows, paragraph = [], []
        if not line.strip():
            ended = True
        elif not in_code and not line.startswith("```"):
            paragraph = [line] if ended else [*paragraph, line]
            ended = False
    return found


def numbers(cell: str) -> list[str]:
    """The numbers a cell shows, as printed (bold, thousands separators and all)."""
    return NUMBER.findall(cell.replace("**", ""))


def matches(printed: str, value: float) -> bool:
    """Whether `value` prints as `printed` at the precision `printed` has."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return round(value, decimals) == round(float(printed.replace(",", "")), decimals)


def paper_table_row(label: str) -> str:
    """The row of a paper_table.py JSON that a README row label names."""
    text = label.replace("**", "").replace("`", "").lower()
    mode = "async" if "async" in text.split()[-1] else "sync"
    if "envpool_core" in text:
        return f"envpool_core ({mode})"
    if "sample-factory" in text:
        return "Sample-Factory 2.1.1 (sampler + policy)" if "2.1.1" in text else "Sample-Factory"
    if "atarivectorenv" in text:
        return "ale-py AtariVectorEnv"
    if "asyncvectorenv" in text or "subprocess" in text:
        return "Subprocess"
    if "for-loop" in text:
        return "For-loop"
    if "envpool" in text:
        return f"EnvPool ({mode})"
    raise AssertionError(f"README speed-table row {label!r} names no row of paper_table.py")


def speed_figures(data: dict[str, Any], label: str, task_header: str) -> list[float]:
    """Median, min and max FPS of the best setting of one row and task."""
    task = task_header.split("-")[0].strip("* ")
    per_setting = data["results"][task].get(paper_table_row(label), {})
    scored = [
        (statistics.median(v), min(v), max(v))
        for v in ([x for x in vals if isinstance(x, float)] for vals in per_setting.values())
        if v
    ]
    if not scored:
        return []
    return [x * FRAME_SKIP[task] for x in max(scored)]


def score_figures(runs: list[dict[str, Any]], row: list[str]) -> list[float]:
    """Figures of the cited runs of the row's task: per run and over the runs."""
    tasks = {r["run"].split(":")[1] for r in runs}
    named = [t for t in tasks if any(t in cell for cell in row)]
    mine = [r for r in runs if r["run"].split(":")[1] in named] if named else runs
    figures = []
    for r in mine:
        figures += [r["wall_s"] / 60, r["sps"][-1][1] if r["sps"] else 0.0, r["episodes"]]
        if r["final_return"] is not None:
            figures.append(r["final_return"])
    finals = [r["final_return"] for r in mine if r["final_return"] is not None]
    if finals:
        figures += [statistics.fmean(finals), statistics.pstdev(finals)]
        if len(finals) > 1:
            figures.append(statistics.stdev(finals))
    return figures


def time_to_score_figures(data: dict[str, Any], row: list[str]) -> list[float]:
    """Figures of the runs of the system that the row's label names as `system`."""
    named = [r for r in data["runs"] if f"`{r['system']}`" in row[0]]
    mine = named or data["runs"]
    summaries = [r["summary"] for r in mine]
    per_run = [[s["best"], s["steps"], *s["return_at_steps"].values()] for s in summaries]
    times = [s["time_to_target_s"] for s in summaries]
    figures = [f for run in per_run for f in run if f is not None]
    figures += [t for t in times if t is not None] + [r["seed"] for r in mine if "seed" in r]
    for column in zip(*per_run, strict=True):
        values = [f for f in column if f is not None]
        if values:
            figures.append(statistics.median(values))
    # The median time over every run: a run that missed the target counts as more than the
    # limit (sorted last); where one is in the middle, the table shows a lower bound "> N s".
    ordered = sorted(times, key=lambda t: math.inf if t is None else t)
    middle = ordered[(len(ordered) - 1) // 2 : len(ordered) // 2 + 1]
    limit = data.get("wall_limit", math.inf)
    figures.append(statistics.fmean(limit if t is None else t for t in middle))
    figures += [len(mine), sum(t is not None for t in times), limit]
    figures.append(statistics.fmean(x for r in mine for x in r["load_average"]))
    return figures


def summary_figures(data: dict[str, Any], row: list[str]) -> list[float]:
    """Figures of a `plots.py` comparison summary: of the groups whose variant the row names
    in backticks, or else of the script as it is (no variant): seeds, each seed's return at each
    step, their mean and std, each seed's steps/s and wall time."""
    named = [g for g in data["groups"] if g["variant"] and f"`{g['variant']}`" in row[0]]
    figures: list[float] = []
    for group in named or [g for g in data["groups"] if not g["variant"]]:
        figures += group["seeds"] + group["mean_sps_per_seed"] + group["wall_min_per_seed"]
        for at in next(v for k, v in group.items() if k.startswith("last")).values():
            figures += [f for f in (*at["per_seed"], at["mean"], at["std"]) if f is not None]
    return figures


def reached_of(data: dict[str, Any], row: list[str]) -> tuple[int, int]:
    """(runs that reached the target, runs) of the system that the row names."""
    mine = [r for r in data["runs"] if f"`{r['system']}`" in row[0]] or data["runs"]
    return sum(r["summary"]["time_to_target_s"] is not None for r in mine), len(mine)


def mismatches(markdown: str, results: Path) -> list[str]:
    """Each number of a cited table that its results files do not hold, and each table of
    figures that cites no results file."""
    problems = []
    for paragraph, rows in tables(markdown):
        header, body = rows[0], rows[1:]
        cited = [
            results / f"{n}.json" for m in CITATION.findall(paragraph) for n in expand_braces(m)
        ]
        if not cited:
            if any(FIGURE_HEADER.search(h) for h in header):
                problems.append(f"table {header} cites no benchmark/results/*.json above it")
            continue
        missing = [str(p) for p in cited if not p.exists()]
        if missing:
            problems.append(f"table {header} cites missing files {missing}")
            continue
        loaded = [json.loads(p.read_text()) for p in cited]
        for row in body:
            for column, cell in list(enumerate(row))[1:]:
                if column >= len(header) or REFERENCE_COLUMN.search(header[column]):
                    continue
                if isinstance(loaded[0], dict) and "runs" in loaded[0]:  # time_to_score.py
                    tasks = [d for d in loaded if d["env_id"] in row[0]] or loaded
                    figures = [f for data in tasks for f in time_to_score_figures(data, row)]
                    # "N of M": N runs of the M of the row's system reached the target.
                    counts = {reached_of(data, row) for data in tasks}
                    for shown in re.findall(r"(\d+) of (\d+)", cell.replace("**", "")):
                        if tuple(map(int, shown)) not in counts:
                            problems.append(
                                f"{row[0]!r}: {' of '.join(shown)} seeds reached the target, "
                                f"but {sorted(counts)} (reached, runs) in the cited files"
                            )
                elif isinstance(loaded[0], dict) and "groups" in loaded[0]:  # plots.comparison
                    figures = [f for data in loaded for f in summary_figures(data, row)]
                elif isinstance(loaded[0], dict):  # paper_table.py
                    figures = [
                        f for data in loaded for f in speed_figures(data, row[0], header[column])
                    ]
                else:  # training.py: a list of runs
                    figures = score_figures([run for runs in loaded for run in runs], row)
                for printed in numbers(cell):
                    if not any(matches(printed, f) for f in figures):
                        problems.append(
                            f"{row[0]!r} / {header[column]!r}: {printed} is not in "
                            f"{[p.name for p in cited]}"
                        )
    return problems


def test_readme_tables_show_their_results_files() -> None:
    readme = README.read_text()
    cited = [(p, rows) for p, rows in tables(readme) if CITATION.search(p)]
    assert any("FPS" in " ".join(rows[0]) for _, rows in cited), "no cited speed table"
    assert not mismatches(readme, ROOT / "benchmark" / "results"), "\n".join(
        mismatches(readme, ROOT / "benchmark" / "results")
    )


def _speed_readme(figure: str) -> str:
    return (
        "Measured (raw data in `benchmark/results/paper_table.json`):\n\n"
        "| FPS | Pong-v5 | Ant-v4 |\n|---|---:|---:|\n"
        f"| **envpool_core, async** | **{figure}** | / |\n"
    )


def test_a_changed_speed_figure_is_found() -> None:
    results = ROOT / "benchmark" / "results"
    data = json.loads((results / "paper_table.json").read_text())
    (fps, *_) = speed_figures(data, "envpool_core, async", "Pong-v5")
    assert not mismatches(_speed_readme(f"{fps:,.0f}"), results)
    assert mismatches(_speed_readme(f"{fps + 1:,.0f}"), results)
    assert mismatches(_speed_readme(f"{fps:,.0f}").replace("benchmark/results/", ""), results)


@pytest.mark.parametrize("change", [0, 1])
def test_a_changed_score_is_found(tmp_path: Path, change: int) -> None:
    runs = [
        {
            "run": "ppo_mujoco_envpool:Hopper-v4:1000000",
            "wall_s": 600.0,
            "sps": [[1000, 2000.0]],
            "episodes": 10,
            "final_return": ret,
        }
        for ret in (2000.0, 3000.0)
    ]
    (tmp_path / "hopper.json").write_text(json.dumps(runs))
    readme = (
        "Final return over two seeds (`benchmark/results/hopper.json`):\n\n"
        "| env | mean ± std | CleanRL reference |\n|---|---:|---:|\n"
        f"| Hopper-v4 | {2500 + change:,} ± 500 | 2,382.86 |\n"
    )
    assert bool(mismatches(readme, tmp_path)) == bool(change)


@pytest.mark.parametrize(
    "page",
    [
        "ppo_atari_envpool",
        "ppo_atari_envpool_async",
        "ppo_mujoco_envpool",
        "impala_atari",
        "ppo_distributed",
    ],
)
def test_script_pages_results_show_their_results_files(page: str) -> None:
    """Each script page's results tables cite their files, and every figure is in them."""
    text = (ROOT / "docs" / f"{page}.md").read_text()
    cited = [(p, rows) for p, rows in tables(text) if CITATION.search(p)]
    assert any("final return" in " ".join(rows[0]) for _, rows in cited), "no cited score table"
    problems = mismatches(text, ROOT / "benchmark" / "results")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("change", [0, 1])
def test_a_changed_time_to_score_is_found(tmp_path: Path, change: int) -> None:
    runs = [
        {
            "system": system,
            "load_average": [2.0, 3.0],
            "summary": {
                "time_to_target_s": time,
                "best": best,
                "steps": 1_000_000,
                "return_at_steps": {"500000": 100.0},
            },
        }
        for system, time, best in (("xla_jax", 200.0, 3500.0), ("ppo_mujoco", None, 1500.0))
    ]
    data = {"env_id": "Ant-v4", "target": 3000.0, "runs": runs}
    (tmp_path / "tts.json").write_text(json.dumps(data))
    readme = (
        "Time to score (`benchmark/results/tts.json`):\n\n"
        "| system | time to 3,000 | best return |\n|---|---|---|\n"
        f"| `xla_jax` | 200 s | {3500 + change:,} |\n"
        "| `ppo_mujoco` | not reached | 1,500 |\n"
    )
    assert bool(mismatches(readme, tmp_path)) == bool(change)
    # a figure of another system's runs does not count for this row
    assert mismatches(readme.replace("1,500", "3,500"), tmp_path)


@pytest.mark.parametrize(
    ("reached", "median", "found"),
    [
        ("2 of 3", "217 s", True),
        ("3 of 3", "217 s", False),  # one seed missed
        ("2 of 3", "214.5 s", False),  # the median of the seeds that reached it only
    ],
)
def test_time_to_score_counts_every_seed(
    tmp_path: Path, reached: str, median: str, found: bool
) -> None:
    runs = [
        {
            "system": "xla_jax",
            "seed": seed,
            "load_average": [2.0],
            "summary": {"time_to_target_s": t, "best": b, "steps": 10, "return_at_steps": {}},
        }
        for seed, t, b in ((1, None, 674.0), (2, 212.0, 4146.0), (3, 217.0, 4080.0))
    ]
    data = {"env_id": "Ant-v4", "target": 3000.0, "wall_limit": 300.0, "runs": runs}
    (tmp_path / "tts.json").write_text(json.dumps(data))
    readme = (
        "Time to score (`benchmark/results/tts.json`):\n\n"
        "| system | seeds | reached | time to 3,000 | best return |\n|---|---|---|---|---|\n"
        f"| `xla_jax` | 1, 2, 3 | {reached} | {median} (> 300, 212, 217) | 4,080 (674–4,146) |\n"
    )
    assert (not mismatches(readme, tmp_path)) == found


@pytest.mark.parametrize(("variant", "shown", "found"), [
    ("float32", "12.3", True),
    ("`--bf16`", "11.6", True),  # the mean over the --bf16 seeds
    ("float32", "11.6", False),  # a --bf16 figure on the float32 row
    ("`--bf16`", "11.7", False),
])
def test_a_comparison_summary_is_looked_up_by_variant(
    tmp_path: Path, variant: str, shown: str, found: bool
) -> None:
    def group(name: str, per_seed: list[float]) -> dict[str, Any]:
        mean = round(statistics.fmean(per_seed), 1)
        std = round(statistics.stdev(per_seed), 1) if len(per_seed) > 1 else None
        return {"variant": name, "seeds": list(range(1, len(per_seed) + 1)),
                "last100_at": {"1M": {"per_seed": per_seed, "mean": mean, "std": std}},
                "mean_sps_per_seed": [300] * len(per_seed), "wall_min_per_seed": [50.0]}

    data = {"groups": [group("", [12.3]), group("--bf16", [12.6, 10.6])]}
    (tmp_path / "summary.json").write_text(json.dumps(data))
    page = (
        "At 1M steps (`benchmark/results/summary.json`):\n\n"
        "| run | last 100 at 1M steps |\n|---|---:|\n"
        f"| {variant} | {shown} |\n"
    )
    assert (not mismatches(page, tmp_path)) == found


def test_xla_jax_page_time_to_score_shows_its_results_file() -> None:
    """The time-to-score tables of the compiled-rollout script's page cite their files, and
    every figure is in them."""
    text = (ROOT / "docs" / "ppo_mujoco_envpool_xla_jax.md").read_text()
    cited = [p for p, rows in tables(text) if "time_to_score" in " ".join(CITATION.findall(p))]
    assert cited, "no cited time-to-score table"
    problems = mismatches(text, ROOT / "benchmark" / "results")
    assert not problems, "\n".join(problems)
