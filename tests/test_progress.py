"""Live progress: the projection of a search's end, and the JSON lines of --progress FILE."""

from __future__ import annotations

import json
import math

import pytest

from checker.forecast import MIN_LEVELS, forecast
from checker.result import LevelStats
from conftest import run_cli


def _levels(frontiers, seconds_per_state=1e-6):
    """LevelStats for a search whose frontier at depth d is frontiers[d]."""
    levels, total, clock = [], 0, 0.0
    for depth, size in enumerate(frontiers):
        total += size
        clock += seconds_per_state * (frontiers[depth - 1] if depth else 0)
        levels.append(LevelStats(depth, size, 0, total, clock))
    return levels


BELL = [max(1, round(math.exp(1.0 + 1.2 * d - 0.05 * d * d))) for d in range(0, 60)]
"""A frontier whose log is a parabola in depth (it grows, peaks near depth 12, dies out): the
shape the projection assumes, so it must find the end almost exactly."""
BELL = BELL[:next(d for d in range(13, 60) if BELL[d] <= 1)]


def test_a_bell_shaped_frontier_is_projected_to_its_end():
    whole = _levels(BELL)
    for seen in (8, 12, 16):
        ahead = forecast(whole[:seen])
        assert ahead is not None
        assert ahead.total_states == pytest.approx(whole[-1].distinct_total, rel=0.04)  # small levels are rounded
        assert abs(ahead.final_depth - whole[-1].depth) <= 1
        remaining = whole[-1].seconds_total - whole[seen - 1].seconds_total
        assert ahead.remaining_seconds == pytest.approx(remaining, rel=0.05)


def test_no_projection_too_early_or_while_growth_does_not_slow():
    assert forecast(_levels(BELL)[:MIN_LEVELS - 1]) is None
    assert forecast(_levels([3 ** d for d in range(10)])) is None  # steady growth: no end in view
    accelerating = [round(2 ** (d * d / 4)) for d in range(10)]
    assert forecast(_levels(accelerating)) is None


def test_a_steadily_shrinking_frontier_ends_where_it_reaches_one_state():
    shrinking = [1, 100, 1000, 500, 250, 125, 62]
    ahead = forecast(_levels(shrinking))
    assert ahead is not None
    assert ahead.final_depth == len(shrinking) - 1 + 5  # 31, 15, 7, 3, 1: five more levels
    assert ahead.total_states == sum(shrinking) + 31 + 15 + 7 + 3 + 1 + 1  # the halvings, rounded as projected


def test_ratios_that_cancel_out_give_no_projection_rather_than_an_endless_one():
    """Frontiers 9, 8, 9, 9, 9 (a real fetch run's last levels) fit a shrink of about 1e-17 a
    level: the projection would take forever to reach one state, and once did, hanging a search
    whose properties kept it from stopping sooner (issue 44)."""
    flat = [1, 2, 3, 4, 5, 6, 8, 9, 8, 9, 9, 9]
    assert forecast(_levels(flat)) is None
    slow = [1, 1000] + [round(1000 * 0.999 ** d) for d in range(1, 12)]  # dies out some 7,000 levels on
    assert forecast(_levels(slow)) is None


def test_peak_memory_grows_with_the_projected_states():
    levels = _levels(BELL)[:12]
    rss = [100_000_000 + 50 * lv.distinct_total for lv in levels]  # 50 bytes a state on top of a base
    ahead = forecast(levels, rss)
    assert ahead.peak_bytes == pytest.approx(100_000_000 + 50 * ahead.total_states, rel=0.01)


def test_the_progress_file_has_one_json_line_per_level_and_a_resumed_run_goes_on(tmp_path):
    progress, checkpoint = tmp_path / "progress.jsonl", tmp_path / "checkpoint"
    args = ["check", "--engine", "local", "--model", "spec", "--variant", "kip101", "--continue", "--json",
            "--progress", str(progress), "--checkpoint-dir", str(checkpoint)]
    first = run_cli(*args, "--max-depth", "12")
    records = [json.loads(line) for line in progress.read_text().splitlines()]
    levels = json.loads(first.stdout)["levels"]
    assert [r["depth"] for r in records] == [lv["depth"] for lv in levels] == list(range(13))
    assert all(r["event"] == "level" and r["rss_bytes"] > 0 for r in records)
    assert records[-1]["distinct_states"] == json.loads(first.stdout)["distinct_states"]
    verdicts = json.loads(first.stdout)["invariants"]
    assert records[-1]["violated"] == sorted(n for n, v in verdicts.items() if v["status"] == "violated")
    assert records[-1]["forecast"]["total_states"] > records[-1]["distinct_states"]

    second = run_cli(*args)
    records = [json.loads(line) for line in progress.read_text().splitlines()]
    done = json.loads(second.stdout)
    assert [r["depth"] for r in records] == list(range(13)) + list(range(12, done["depth"] + 1))
    assert records[-1]["distinct_states"] == done["distinct_states"]
    assert records[-1]["forecast"]["total_states"] == pytest.approx(done["distinct_states"], rel=0.01)


def test_an_unwritable_progress_file_is_a_one_line_error(tmp_path):
    result = run_cli("check", "--engine", "local", "--progress", str(tmp_path / "missing" / "p.jsonl"))
    assert result.exit_code == 2
    assert result.stderr == f"Error: --progress {tmp_path / 'missing' / 'p.jsonl'}: cannot write a progress log " \
                            "there (No such file or directory)\n"


def test_debug_shows_the_traceback_behind_an_error():
    plain = run_cli("check", "--engine", "local", "--max-records", "99")
    debug = run_cli("--debug", "check", "--engine", "local", "--max-records", "99")
    assert plain.exit_code == debug.exit_code == 2
    assert plain.stderr == "Error: --max-records must be between 1 and 15, got 99\n"
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert debug.stderr.endswith(plain.stderr) and "ModelError" in debug.stderr
