"""`replcheck ablate`: each rule switched back alone, and the smallest rule sets that make an
invariant hold, checked against what single searches of those rule sets say and against
Kafka's history (KAFKA-1211, fixed by KIP-101's truncation alone)."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import pytest

from checker.jobs.ablation import switched_one_at_a_time
from conftest import run_cli, without_compile_notices
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
        ("truncation", "kip279", "kip101"), ("epoch-cache", "become-leader", "first-append"),
        ("fetch-fencing", "on", "off"), ("bounce", "failed-first", "missed"),
        ("preferred-replica", "left-out", "rebalanced"), ("isr-expansion", "alter-partition", "in-fetch"), ("broker-epochs", "on", "off"), ("leader-epoch-bump", "leader-change", "isr-shrink"),
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
    assert found["base"] == "hw"
    assert found["rules"] == ["truncation", "epoch-cache", "fetch-fencing", "bounce", "preferred-replica",
                              "isr-expansion"]
    # KIP-101's truncation alone keeps committed records at these bounds, and so does a bounced
    # broker failed first alone (HW truncation loses the record only when a bounce the controller
    # missed leaves the follower in the ISR, and a new controller has it truncate)
    assert found["sets"] == [["truncation"], ["bounce"]]
    decided = {tuple(row["switched"]): row for row in found["decided"]}
    assert len(decided) == 64  # every subset of the six rules
    for subset, row in decided.items():  # every verdict the lattice gives is what a search gives
        if row["how"] == "superset":
            assert ("truncation" in subset or "bounce" in subset) and row["verdict"] is None
        else:
            status, length = _verdict(row["variant"], "committed-survives")
            assert row["verdict"] == status
            if row["how"] == "searched":
                assert row["trace_length"] == length
            else:  # a replayed trace is a behaviour, not necessarily the shortest
                assert row["how"] == "replayed" and row["trace_length"] >= length
    assert found["searches"] < 64


def test_a_step_property_is_ablated_as_an_invariant_is():
    """A step property (a follower joins the ISR only caught up) asks the same question of the
    rules as an invariant: it fails under the hw variant, KIP-101's truncation alone, a bounce
    failed first alone or no preferred replica alone makes it hold, and a trace found under one
    rule set replays, step by step, under another. Every
    verdict is what `check` says of that rule set. And an ablation of the other step property
    ends with its table (the progress line's projection once spun forever after the last level
    of a step property's search: checker/forecast.py)."""
    result = run_cli("ablate", "--model", "fetch", "--variant", "kip320", "--invariant", "isr-join-caught-up",
                     "--minimal", "--engine", "local", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["minimal"]
    assert found["rules"] == ["truncation", "epoch-cache", "fetch-fencing", "bounce", "preferred-replica",
                              "isr-expansion"]
    assert found["sets"] == [["truncation"], ["bounce"], ["preferred-replica"]]
    decided = [row for row in found["decided"] if row["how"] != "superset"]
    assert "replayed" in {row["how"] for row in decided}
    for row in decided:
        status, length = _verdict(row["variant"], "isr-join-caught-up")
        assert row["verdict"] == status, row
        assert row["trace_length"] == length if row["how"] == "searched" else row["trace_length"] >= length
    rows = json.loads(run_cli("ablate", "--model", "fetch", "--variant", "kip279", "--invariant", "isr-join-caught-up",
                              "--engine", "local", "--json").stdout)["switches"]
    assert [(r["rule"], r["to"], r["verdict"], r["needed"]) for r in rows] == [
        (None, None, "holds", None), ("truncation", "kip101", "holds", "not needed here")]
    monotonic = run_cli("ablate", "--model", "fetch", "--invariant", "leader-hw-monotonic", "--replicas", "2",
                        "--max-records", "1", "--max-crashes", "0", "--engine", "local", "--json")
    assert monotonic.exit_code == 0, monotonic.output
    assert {row["verdict"] for row in json.loads(monotonic.stdout)["switches"]} == {"holds"}


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
    (["--model", "kraft", "--variant", "kip595", "--invariant", "no-illegal-state", "--minimal", "--base", "tla"],
     "variant tla of model kraft has no rules to switch"),
    (["--model", "kraft", "--variant", "tla", "--invariant", "no-illegal-state"], "variant tla of model kraft has no rules"),
    (["--invariant", "acked-with-1-down"], "is a witness"),
    (["--invariant", "committed-survives", "--rule", "elr=maybe"], "rule elr has no choice 'maybe'"),
    (["--invariant", "committed-survives", "--quorum", "majority"], "needs --quorum isr"),
])
def test_bad_ablations_are_one_line_errors(args, words):
    """One line each (a rule that another quorum refuses is found once the variant's kernel is
    ready: on a cold kernel cache its compile notice comes first)."""
    result = run_cli("ablate", *args, "--engine", "local")
    assert result.exit_code == 2, result.output
    lines = without_compile_notices(result.stderr)
    assert len(lines) == 1 and words in lines[0], result.stderr


LRS = ("--replicas", "3", "--min-insync-replicas", "2", "--flush", "async", "--log-size", "2", "--max-records", "2",
       "--max-crashes", "1", "--max-epoch", "3")
"""The Last Replica Standing bounds: kip966's own search takes about a minute, so a signal sent
once its first level is done lands mid-ablation."""


@pytest.mark.parametrize("signum, code, message", [(signal.SIGINT, 130, "interrupted by the user"),
                                                   (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_ctrl_c_and_sigterm_end_a_local_ablation_with_one_line(tmp_path, signum, code, message):
    """A Ctrl-C or SIGTERM in the middle of an ablation's searches (the progress line on a
    terminal shows a level done) ends it as every command ends: one line, exit 130 or 143, no
    trace or report written."""
    from checker.progress import prepare_kernels
    from interrupting import Terminal, started, wait_for
    from model.registry import build_model

    prepare_kernels([build_model("fetch", "kip966", replicas=3)])  # compiled beforehand: the run below searches
    traces, junit, terminal = tmp_path / "traces", tmp_path / "report.xml", Terminal()
    proc = started("ablate", "--model", "fetch", "--variant", "kip966", "--invariant", "committed-survives", *LRS,
                   "--engine", "local", "--trace-dir", str(traces), "--junit", str(junit), stderr=terminal.stderr)
    wait_for(lambda: re.search(r"kip966 \(1 of \d+\).*depth \d", terminal.text()), proc, "the first search's first level")
    proc.send_signal(signum)
    out, lines = terminal.ended(proc)
    assert proc.returncode == code, lines[-5:]
    assert lines[-1] == f"Error: {message}; no result or trace was written"
    assert not any("Traceback" in line for line in lines) and out == ""
    assert not junit.exists() and not (traces.exists() and any(traces.iterdir()))


@pytest.mark.xdist_group("spark")
@pytest.mark.parametrize("signum, code, message", [(signal.SIGINT, 130, "interrupted by the user"),
                                                   (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_ctrl_c_ends_an_ablation_on_spark_at_once_and_leaves_no_worker(signum, code, message):
    """Each search runs whole inside a Python worker, which cancelling the Spark job does not
    stop: the interrupted run ends its workers itself instead of waiting for the search, and
    ends as every command does (one line, exit 130 or 143). The signal goes once a worker of
    this run is up (the searches running: the variant's own takes about a minute)."""
    from interrupting import PATIENCE, until, wait_for
    from spark_processes import spark_processes, tagged_run, workers

    proc, tag = tagged_run("ablate", "--model", "fetch", "--variant", "kip966", "--invariant", "committed-survives",
                           *LRS, "--master", "local[2]")
    wait_for(lambda: workers(tag), proc, "a Spark worker running a search")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == code, err
    assert err.strip().splitlines()[-1] == f"Error: {message}; no result or trace was written"
    until(lambda: not spark_processes(tag), "the run's JVM and workers going")


def test_a_memory_budget_no_task_can_keep_is_refused_before_spark_starts():
    result = run_cli("ablate", "--invariant", "committed-survives", "--memory-budget", "1K")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "below the least" in result.stderr, result.stderr
