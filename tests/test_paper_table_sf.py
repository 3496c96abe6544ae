"""Sample-Factory's rows of benchmark/paper_table.py, without building its venvs."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmark"))

import paper_table
import sample_factory_bench as sfb

REPORT = ("\x1b[37m\x1b[1m[2026-11-30 23:59:{s:02d},{ms:03d}][4242] Sampling FPS: (1 sec: 1.0, "
          "10 sec: 1.0). Total frames collected: {frames}\x1b[0m")


def test_rate_after_warmup_skips_the_warmup_and_crosses_midnight() -> None:
    lines = [REPORT.format(s=57, ms=0, frames=1000),  # ramp-up, before the warm-up ends
             REPORT.format(s=58, ms=0, frames=2000),
             REPORT.format(s=59, ms=500, frames=5000),
             REPORT.format(s=0, ms=0, frames=6000).replace("23:59:", "00:00:").replace(
                 "2026-11-30", "2026-12-01")]
    fps, seconds = sfb.rate_after_warmup("\n".join(lines), warmup=1.0)
    assert seconds == pytest.approx(2.0)
    assert fps == pytest.approx(4000 / 2.0)


def test_rate_after_warmup_needs_two_reports_after_it() -> None:
    with pytest.raises(RuntimeError, match="too few"):
        sfb.rate_after_warmup(REPORT.format(s=1, ms=0, frames=10), warmup=0.5)


def test_ensure_venv_refuses_a_folder_that_is_not_a_venv(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(sfb.SampleFactoryUnavailable, match="not a virtual environment"):
        sfb.ensure_venv("2", tmp_path)
    assert (tmp_path / "precious.txt").read_text() == "keep me"
    with pytest.raises(ValueError, match="must be one of"):
        sfb.ensure_venv("3", tmp_path)


def test_table_shows_sample_factory_figures_ratios_and_reasons() -> None:
    raw = {"Pong": {
        "Sample-Factory": {"2,1,2": [500.0, 400.0], "4,1,4": [600.0, "error: boom"]},
        "envpool_core (async)": {"6,2,2": [3000.0, 3200.0]},
    }}
    info = {"cpu": "test CPU", "cores": 2, "versions": {}}
    not_run = {"Pong": {"Sample-Factory 2.1.1 (sampler + policy)": "could not run: no pip"}}
    table = paper_table.markdown(raw, info, {}, not_run)
    row = next(ln for ln in table.splitlines() if ln.startswith("| Sample-Factory |"))
    # best setting by median: 4,1,4 has one good figure (600) against 450 for 2,1,2
    assert "| 2,400 | 600 (600-600) | 4,1,4 |" in row
    assert "| Sample-Factory 2.1.1 (sampler + policy) |" in table
    assert "could not run: no pip" in table
    # within a repeat: round 1 only (round 2 of the best SF setting failed): 3000 / 600
    assert "envpool_core (async) ÷ Sample-Factory, best vs best within a repeat: 5.00×" in table
    assert "| For-loop |" in table and "not measured in this run" in table
