"""The benchmark suite records what it measured: its results file and the performance page are
rewritten through the output rule (`checker.atomic_file`), each recognised as its own kind."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

import benchmarks.suite as suite
from benchmarks.common import PERFORMANCE_PAGE, RESULTS_FILE


def test_a_run_records_its_figures_and_rewrites_the_performance_table(tmp_path, monkeypatch):
    results, page = tmp_path / "latest.json", tmp_path / "performance.md"
    shutil.copy(suite.RESULTS, results)
    shutil.copy(suite.PERFORMANCE, page)
    recorded = json.loads(results.read_text())["results"]
    name, figures = next(iter(recorded.items()))
    monkeypatch.setattr(suite, "RESULTS", results)
    monkeypatch.setattr(suite, "PERFORMANCE", page)
    monkeypatch.setattr(suite, "run_suite", lambda cases, baseline: {name: {**figures, "distinct_states": 7}})
    outcome = CliRunner().invoke(suite.main, ["--only", name, "--readme"], catch_exceptions=False)
    assert outcome.exit_code == 0
    assert json.loads(results.read_text())["results"][name]["distinct_states"] == 7
    assert RESULTS_FILE.wrote(results.read_bytes()) and PERFORMANCE_PAGE.wrote(page.read_bytes())
    assert f"| {suite.label(figures)} | 7 |" in page.read_text()
