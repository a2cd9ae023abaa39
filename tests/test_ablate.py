"""`replcheck ablate`: each rule switched back alone, and the smallest rule sets that make an
invariant hold, checked against what single searches of those rule sets say and against
Kafka's history (KAFKA-1211, fixed by KIP-101's truncation alone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.jobs.ablation import switched_one_at_a_time
from conftest import run_cli
from model.fetch.rules import RULE_BOOK
from traces.store import load_trace


def _verdict(variant: str, invariant: str, *bounds: str) -> tuple[str, int | None]:
    """The invariant's verdict and shortest trace under one rule set, by `check`."""
    data = json.loads(run_cli("check", "--model", "fetch", "--variant", variant, "--invariant", invariant,
                              *bounds, "--engine", "local", "--json").stdout)
    found = data["invariants"][invariant]
    return found["status"], found["trace_length"]


def test_each_switch_goes_back_one_step_in_kafkas_history():
    kip966 = RULE_BOOK.resolve("kip966")
    assert switched_one_at_a_time(RULE_BOOK, kip966) == [
        ("truncation", "kip279", "kip101"), ("fetch-fencing", "on", "off"), ("bounce", "failed-first", "taken-back"),
        ("broker-epochs", "on", "off"), ("leader-epoch-bump", "leader-change", "isr-shrink"),
        ("hw-advance", "strict-min-isr", "plain"), ("elr", "on", "off")]
    alternatives = switched_one_at_a_time(RULE_BOOK, RULE_BOOK.resolve("hw"), alternatives=True)
    assert ("truncation", "hw", "kip279") in alternatives and ("leader-epoch-bump", "controller-change",
                                                                "leader-change") in alternatives
    assert switched_one_at_a_time(RULE_BOOK, RULE_BOOK.resolve("hw")) == []  # every rule at its oldest choice


def test_kip101s_truncation_is_needed_for_committed_records_and_its_row_replays(tmp_path):
    """KAFKA-1211: a committed record lost by truncating to a lagging HW, which KIP-101 fixed."""
    result = run_cli("ablate", "--model", "fetch", "--variant", "kip101", "--invariant", "committed-survives",
                     "--engine", "local", "--trace-dir", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["switches"]
    assert [(r["rule"], r["to"], r["verdict"], r["needed"]) for r in rows] == [
        (None, None, "holds", None), ("truncation", "hw", "violated", "needed")]
    assert rows[1]["variant"] == "kip101+truncation=hw"
    assert (rows[1]["verdict"], rows[1]["trace_length"]) == _verdict("kip101+truncation=hw", "committed-survives")
    trace, model = load_trace(Path(rows[1]["trace_file"]))
    assert model.rules["truncation"] == "hw" and len(trace) == rows[1]["trace_length"]


def test_minimal_finds_kip101s_truncation_alone_on_top_of_hw():
    result = run_cli("ablate", "--model", "fetch", "--variant", "kip320", "--invariant", "committed-survives",
                     "--minimal", "--engine", "local", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["minimal"]
    assert found["base"] == "hw" and found["rules"] == ["truncation", "fetch-fencing", "bounce"]
    assert found["sets"] == [["truncation"]]
    decided = {tuple(row["switched"]): row for row in found["decided"]}
    assert len(decided) == 8  # every subset of the three rules
    for subset, row in decided.items():  # every verdict the lattice gives is what a search gives
        if row["how"] == "superset":
            assert "truncation" in subset and row["verdict"] is None
        else:
            status, length = _verdict(row["variant"], "committed-survives")
            assert row["verdict"] == status
            if row["how"] == "searched":
                assert row["trace_length"] == length
            else:  # a replayed trace is a behaviour, not necessarily the shortest
                assert row["how"] == "replayed" and row["trace_length"] >= length
    assert found["searches"] < 8


def test_minimal_gives_the_same_answer_on_spark():
    args = ("ablate", "--model", "fetch", "--variant", "kip320", "--invariant", "committed-survives", "--minimal",
            "--max-crashes", "1", "--json")
    local = json.loads(run_cli(*args, "--engine", "local").stdout)
    spark = json.loads(run_cli(*args, "--engine", "spark", "--master", "local[2]").stdout)
    assert spark["minimal"] == local["minimal"]


def test_a_search_that_outgrows_its_task_is_searched_on_every_task_with_the_same_answer():
    """Jobs past the one-task limit (here 2,000 states) are searched again by the distributed
    engine: the verdicts, counts, depths and shortest traces are those of the local engine."""
    from checker.jobs.search_jobs import Job, job_session

    bounds = {"replicas": 2}
    jobs = [Job("fetch", variant, bounds, "committed-survives", True) for variant in ("kip101", "kip101+truncation=hw")]
    with job_session("local") as run:
        here = run(jobs)
    with job_session("spark", master="local[2]", one_task=2_000) as run:
        spread = run(jobs)
    assert [o.distinct_states for o in here] == [o.distinct_states for o in spread]
    assert min(o.distinct_states for o in here) > 2_000  # both outgrew their task
    assert [(o.variant, o.violated, o.depth, o.trace) for o in here] == [
        (o.variant, o.violated, o.depth, o.trace) for o in spread]
    assert [o.violated for o in here] == [False, True]


@pytest.mark.parametrize("args, words", [
    (["--model", "spec", "--invariant", "strong-isr"], "model spec has no rules to ablate"),
    (["--invariant", "committed-survives", "--base", "kip101"], "--base applies to --minimal"),
    (["--invariant", "committed-survives", "--minimal", "--base", "kip999"], "unknown variant 'kip999'"),
    (["--invariant", "committed-survives", "--minimal", "--alternatives"], "--alternatives applies to the one-rule"),
    (["--invariant", "acked-with-1-down"], "is a witness"),
    (["--invariant", "committed-survives", "--rule", "elr=maybe"], "rule elr has no choice 'maybe'"),
    (["--invariant", "committed-survives", "--quorum", "majority"], "needs --quorum isr"),
])
def test_bad_ablations_are_one_line_errors(args, words):
    result = run_cli("ablate", *args, "--engine", "local")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr


def test_ctrl_c_ends_an_ablation_on_spark_at_once_and_leaves_no_worker():
    """Each search runs whole inside a Python worker, which cancelling the Spark job does not
    stop: the interrupted run ends its workers itself instead of waiting for the search. The
    signal goes once a worker of this run is up (the searches running: the variant's own takes
    about a minute)."""
    import signal

    from interrupting import PATIENCE, until, wait_for
    from spark_processes import spark_processes, tagged_run, workers

    proc, tag = tagged_run("ablate", "--model", "fetch", "--variant", "kip966", "--invariant", "committed-survives",
                           "--replicas", "3", "--min-insync-replicas", "2", "--flush", "async", "--log-size", "2",
                           "--max-records", "2", "--max-crashes", "1", "--max-epoch", "3", "--master", "local[2]")
    wait_for(lambda: workers(tag), proc, "a Spark worker running a search")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "Error: interrupted by the user; no result or trace was written"
    until(lambda: not spark_processes(tag), "the run's JVM and workers going")


def test_a_memory_budget_no_task_can_keep_is_refused_before_spark_starts():
    result = run_cli("ablate", "--invariant", "committed-survives", "--memory-budget", "1K")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "below the least" in result.stderr, result.stderr
