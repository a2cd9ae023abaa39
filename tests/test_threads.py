"""The local engine's threads (`--threads`, `checker.kernel.expansion`): a level expanded on several
threads gives the one-thread search's result exactly, counts, coverage, verdicts and traces.

`SPLIT_AT` is lowered so that the small levels of these bound sets are split too."""

from __future__ import annotations

import json

import pytest

from checker.invariant import applies
from checker.kernel import expansion
from checker.kernel.reduction import NO_REDUCTION
from checker.local import explore
from conftest import run_cli
from invariants.registry import invariants_for, select
from model.registry import build_model
from results_match import same_results
from test_footprints import fetch_model


@pytest.fixture
def threads(monkeypatch):
    """Run a search on `count` threads (splitting every level of 64 states or more)."""
    monkeypatch.setattr(expansion, "SPLIT_AT", 64)

    before = expansion.threads_asked()

    def search(count, *args, **options):
        expansion.use_threads(count)
        try:
            return explore(*args, **options)
        finally:
            expansion.use_threads(before)
    return search


CASES = [
    ("spec", "hw", dict(replicas=3, log_size=1, max_records=1, max_epoch=2), False),
    ("spec", "kip101", dict(replicas=2, log_size=2, max_records=2, max_epoch=2), True),
    ("fetch", "kip101", dict(replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=1), True),
    ("fetch", "kafka37", dict(replicas=3, min_insync_replicas=2, flush="async", log_size=1, max_records=1,
                              max_crashes=1, max_epoch=3), False),
]


@pytest.mark.parametrize("name, variant, bounds, symmetry", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_every_thread_count_gives_the_one_thread_result(threads, name, variant, bounds, symmetry):
    model = build_model(name, variant, ghost=name == "fetch", **bounds)
    properties = [p for p in invariants_for(name).values() if applies(p, model)]
    one = threads(1, model, properties, stop_at_first=False, symmetry=symmetry)
    assert one.violations, "some property fails here: the trace comparison must not be vacuous"
    assert max(level.new_states for level in one.levels) > 3 * 64, "levels big enough to be split"
    for count in (2, 3):
        same_results(threads(count, model, properties, stop_at_first=False, symmetry=symmetry), one)


def test_threads_and_the_reduction_give_the_same_reduced_graph(threads):
    model = fetch_model("kip320", replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=1)
    properties = select("fetch", ["committed-survives"])
    model.kernel.reduction = model.reduction(["committed-survives"])
    try:
        one, three = (threads(count, model, properties, stop_at_first=False, symmetry=True) for count in (1, 3))
    finally:
        model.kernel.reduction = NO_REDUCTION
    same_results(three, one)


def test_the_threads_option_keeps_the_answer(threads):
    """--threads sets the process's thread count (reset here: the option's setting outlives the command)."""
    before = expansion.threads_asked()
    try:
        answers = [run_cli("check", "--engine", "local", "--threads", str(count), "--variant", "hw", "--replicas",
                           "3", "--log-size", "1", "--max-records", "1", "--invariant", "strong-isr", "--json")
                   for count in (1, 2)]
    finally:
        expansion.use_threads(before)
    assert answers[0].exit_code == answers[1].exit_code == 1
    first, second = (r.stdout for r in answers)
    assert _without_times(first) == _without_times(second)
    assert run_cli("check", "--engine", "local", "--threads", "0").exit_code == 2


def _without_times(output: str) -> dict:
    """A check's JSON answer without its timings (seconds and rates), which differ run to run."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("seconds", "states_per_second")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(json.loads(output))
