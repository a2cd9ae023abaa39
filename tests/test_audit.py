"""`replcheck trace audit` and the rule table it reads: the traces of the findings that a reading
of Kafka's code made (saved by the model before each fix, in tests/data/findings) are each
named by the row they rest on; traces the model makes now are judged; the table in
docs/models/fetch.md is the data's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import run_cli
from model.fetch import rule_table_docs
from model.fetch.kinds import ACTION_KINDS
from model.fetch.rule_table import BY_KEY, ORDER, ROWS
from model.fetch.rules import RELEASES, VARIANTS
from model.fetch.step_rows import BY_ACTION
from model.registry import build_model
from traces.store import load_trace

FINDINGS = Path(__file__).parent / "data" / "findings"

BEFORE_FIXES = [
    # (file, the deviation rows its audit names, the rule set its steps replay under, the steps a fix removed)
    ("kafka-6361-kip101-answer-before-leading.json",
     {"cache-entry-at-become-leader", "answer-before-leading", "bounce-taken-back"},
     "kip101+epoch-cache=become-leader", [5, 10, 11]),
    ("kip966-fencing-last-leader-with-elr.json", {"last-known-leader-with-elr"}, "kip966", [14]),
]

CHANGED_BY_A_FIX = [
    # (file, the deviation rows its steps rest on, the step whose state a fix changed, its kind): the replay
    # check refuses them, since the model takes that step to another state now
    ("kip966-disk-loss-last-leader-with-elr.json", {"last-known-leader-with-elr"}, 9, "Crash"),
    # saved on the controller before issue 66's for Kafka 0.10 to 2.1: its states have no preferred replica
    ("kafka-6880-kip279-request-epoch.json",
     {"answer-before-leading", "cache-entry-at-become-leader", "request-epoch", "bounce-taken-back"}, 1, "Crash"),
    # a walk of the model before the fix (a step, not a violation): kip320 at three replicas, r2 reports its LEO
    # inside the ISR, is shrunk out, and joins again on that LEO
    ("kip320-expand-on-a-leo-reported-inside-the-isr.json", {"expand-outside-fetch", "expand-on-fetch-inside-isr"},
     11, "LeaderShrinkIsr"),
]


@pytest.mark.parametrize("name, rows, rule_set, removed", BEFORE_FIXES)
def test_a_finding_s_trace_names_the_deviation_it_rests_on(name, rows, rule_set, removed):
    result = run_cli("trace", "audit", "--json", str(FINDINGS / name))
    assert result.exit_code == 1, result.output
    audit = json.loads(result.stdout)
    assert audit["verdict"] == "deviation"
    assert {d["row"] for d in audit["deviations"]} == rows
    assert audit["conclusion"].startswith("rests on deviation ")
    assert audit["before_fix"]["rule_set"] == rule_set and audit["before_fix"]["removed_steps"] == removed
    first = audit["first_unreplayed_step"]
    assert any(first in d["steps"] for d in audit["deviations"]), "the first step the variant no longer takes"


@pytest.mark.parametrize("name, rows, step, kind", CHANGED_BY_A_FIX)
def test_a_finding_s_trace_whose_states_a_fix_changed_is_refused_yet_its_rows_are_read(name, rows, step, kind):
    result = run_cli("trace", "audit", str(FINDINGS / name))
    assert result.exit_code == 2
    assert f"step {step} is not a step it takes: its '{kind}' leads to another state there" in result.output
    trace, model = load_trace(FINDINGS / name, replay=False)
    assert set(model.audit(trace).deviations) == rows


def test_the_last_known_leader_step_is_the_one_named():
    audit = json.loads(run_cli("trace", "audit", "--json",
                               str(FINDINGS / "kip966-fencing-last-leader-with-elr.json")).stdout)
    step = audit["deviations"][0]["steps"][0]
    assert audit["steps"][step - 1]["action"][0] == "ControllerNoticeRestart"
    assert audit["steps"][step - 1]["replays"] is False, "the fixed model no longer takes this step"


@pytest.fixture(scope="module")
def kafka_14139(tmp_path_factory):
    """KAFKA-14139's story under kip320: a follower back on an empty disk joins the ISR on the
    position its previous incarnation fetched (an AlterPartition, so Kafka 2.7 to 3.4)."""
    where = tmp_path_factory.mktemp("kafka-14139")
    result = run_cli("check", "--model", "fetch", "--variant", "kip320", "--max-disk-losses", "1", "--invariant",
                     "isr-join-caught-up", "--trace-dir", str(where))
    assert result.exit_code == 1, result.output
    return next(where.glob("*.json"))


def test_a_trace_that_holds_in_some_releases_names_them_and_the_row_the_others_differ_on(kafka_14139):
    result = run_cli("trace", "audit", str(kafka_14139))
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("every step as Kafka 2.7 to 3.4 (in 2.1 to 2.6 it rests on deviation expand-outside-fetch")


def test_a_switched_rule_set_is_not_judged(tmp_path, kafka_14139):
    doc = json.loads(kafka_14139.read_text())
    doc["variant"] = "kip320+broker-epochs=on"
    doc["rules"]["broker-epochs"] = "on"
    path = tmp_path / "switched.json"
    path.write_text(json.dumps(doc))
    result = run_cli("trace", "audit", "--json", str(path))
    audit = json.loads(result.stdout)
    assert (result.exit_code, audit["verdict"]) == (1, "not-judged")
    assert "no Kafka release" in audit["conclusion"]


def test_a_trace_whose_steps_no_deviation_explains_is_bad_input(tmp_path, kafka_14139):
    doc = json.loads(kafka_14139.read_text())
    doc["steps"][4]["state"]["brokers"][0]["hw"] = 1  # a state the model never makes
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(doc))
    result = run_cli("trace", "audit", str(path))
    assert result.exit_code == 2
    assert "step 5 is not a step it takes" in result.output
    assert "Traceback" not in result.output


def test_a_file_that_is_no_trace_is_bad_input(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{}")
    result = run_cli("trace", "audit", str(path))
    assert result.exit_code == 2 and "not a replcheck trace" in result.output


def test_a_spec_trace_has_no_rule_table(tmp_path):
    result = run_cli("check", "--model", "spec", "--variant", "hw", "--trace-dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    trace = next(tmp_path.glob("*.json"))
    audited = run_cli("trace", "audit", str(trace))
    assert audited.exit_code == 2 and "no rule table" in audited.output


def test_a_trace_the_model_makes_now_replays_in_the_audit(tmp_path):
    result = run_cli("check", "--model", "fetch", "--variant", "kip966", "--max-disk-losses", "1",
                     "--invariant", "committed-survives", "--trace-dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    audit = json.loads(run_cli("trace", "audit", "--json", str(next(tmp_path.glob("*.json")))).stdout)
    assert audit["first_unreplayed_step"] is None
    assert "last-known-leader-with-elr" not in {d["row"] for d in audit["deviations"]}


def test_the_docs_table_and_deviation_list_are_the_data_s():
    text = rule_table_docs.DOC.read_text()
    assert rule_table_docs.rewritten(text) == text, "run: python -m model.fetch.rule_table_docs"
    for row in ROWS:
        assert f"`{row.key}`" in text


def test_every_row_has_a_status_for_every_release_and_a_cited_method_at_a_tag():
    assert ORDER == tuple(r for releases in RELEASES.values() for r in releases)
    for row in ROWS:
        assert {r for status in row.statuses for r in status.releases} == set(ORDER), row.key
        assert re.search(r"`\w+\.\w+`[^;]*@ (\d+\.\d+\.\d+|[0-9a-f]{7})", row.sources), row.key


def test_every_variant_s_releases_are_the_ones_it_lists():
    for name, variant in VARIANTS.items():
        first, last = RELEASES[name][0], RELEASES[name][-1]
        assert variant.releases.startswith(first) and variant.releases.split()[-1].rstrip(",") in (last, "earlier")


def test_every_action_a_kafka_partition_takes_rests_on_some_row():
    for kind in ACTION_KINDS:
        if kind != "WinElection":  # a majority quorum's election: Raft, not judged
            assert BY_ACTION[kind], kind
    assert set(BY_KEY) == {row.key for row in ROWS}


@pytest.mark.parametrize("name, variant, bounds", [
    ("fetch", "kip966", {"log_size": 1, "max_records": 1, "max_disk_losses": 1, "max_fencings": 1}),
    ("fetch", "kip320", {"log_size": 1, "max_records": 1, "retries": True, "controlled_shutdown": True}),
    ("fetch", "kip320", {"replicas": 3, "log_size": 1, "max_records": 1, "quorum": "majority"}),
    ("kraft", "kip853", {"spares": 1, "max_voter_changes": 1}),
    ("kraft", "tla", {}),
])
def test_every_step_a_model_takes_is_one_the_audit_reads_in_a_trace_saved_before_a_fix(name, variant, bounds):
    model = build_model(name, variant, **bounds)
    seen, todo = set(), list(model.initial_states())
    while todo and len(seen) < 2_000:
        state = todo.pop()
        if state not in seen:
            seen.add(state)
            for action, after in model.successors(state):
                assert model.is_step(action), action
                todo.append(after)


def test_traces_load_without_replay_only_when_asked():
    from traces.store import TraceFileError
    with pytest.raises(TraceFileError, match="not a counterexample"):
        load_trace(FINDINGS / "kip966-fencing-last-leader-with-elr.json")
    trace, _ = load_trace(FINDINGS / "kip966-fencing-last-leader-with-elr.json", replay=False)
    assert len(trace) == 15
