"""The `fetch` model's retrying producer (`--retries`, `--max-in-flight`, `--idempotence`; KIP-98)
against what the Kafka producer documentation and KIP-98 say: retries reorder a partition's
records unless max.in.flight.requests.per.connection is 1, a retry after a lost answer
duplicates a record, and the idempotent producer (producer id and per-partition sequence
numbers: the leader refuses a sequence gap and drops a duplicate) keeps both order and
uniqueness. Without --retries the model is exactly what it was (tests/test_fetch_model.py
keeps its figures).

The outcomes are checked under kip320 with 2 replicas, acks=all, min.insync.replicas 2, 2
records, log size 3, epochs 0..2 and 2 crashes (`PRODUCER`), with symmetry reduction:

    retries, max-in-flight 2            in-order violated in 7 steps, no-duplicates in 6
    retries, max-in-flight 1            in-order holds (535,803 orbits); no-duplicates violated in 6
    retries, idempotence, max-in-flight 1   both hold (67,148 orbits)
    retries, idempotence, max-in-flight 2   both hold (320,407 orbits)

(The orbit counts fell when kip320's controller began to fail a bounced broker first and to
take it back only then, sending it nothing in between, and to write nothing for a failure notice
that changes nothing; they grew again when a shrink began to mark the dropped follower's LEO,
which then counts for no ISR expansion until its next FETCH; the verdicts and traces did not
change.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.spark.java import EngineUnavailable, find_java_home
from checker.local import explore
from conftest import run_cli, run_json
from invariants.fetch import STATE_INVARIANTS
from invariants.registry import select
from kernel_walks import assert_renaming_commutes, random_walk
from model.fetch.state import ACKED, APPENDED, FAILED, SENT, UNSENT, ProduceRequest, ProducerRecord
from model.params import ModelError
from model.registry import build_model
from test_fetch_kernel import assert_decoded_view_agrees, reachable_rows
from traces.replay import verify_trace, walk

ROOT = Path(__file__).resolve().parents[1]

PRODUCER = dict(replicas=2, log_size=3, max_records=2, max_epoch=2, max_crashes=2)
"""The bounds of the outcomes in the module docstring (the defaults, with room in a log for a
duplicate besides the two records)."""

ORDER = ["in-order", "no-duplicates"]


def retrying(**config):
    return build_model("fetch", "kip320", ghost=True, retries=True, **config)


def enabled(model, state, kind):
    return {action for action, _ in model.successors(state) if action[0] == kind}


def after(model, steps):
    """The state the steps lead to, each checked to be enabled."""
    return walk(model, steps)[-1]


LEADS = [("BecomeLeader", 0, 0), ("BecomeFollower", 1, 0, 0)]
"""r1 leads epoch 0 and r2 follows it."""


# ----- configuration ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("config, given_text", [(dict(max_in_flight=2), "--max-in-flight 2"),
                                                (dict(idempotence=True), "--idempotence")])
def test_producer_settings_apply_only_with_retries(config, given_text):
    with pytest.raises(ModelError, match=f"^{given_text}: --max-in-flight and --idempotence apply only with --retries"):
        build_model("fetch", "kip320", **config)


def test_the_cli_refuses_them_in_one_line():
    result = run_cli("check", "--model", "fetch", "--idempotence")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "Error: --idempotence: --max-in-flight and --idempotence apply only with --retries (without it each write "
        "is one atomic step)"]


def test_without_retries_the_row_and_the_producer_are_as_before():
    plain, ghost = build_model("fetch", "kip320"), build_model("fetch", "kip320", ghost=True)
    assert (plain.kernel.layout.width, ghost.kernel.layout.width) == (88, 104)  # the widths before --retries
    for model in (plain, ghost):
        lay = model.kernel.layout
        assert lay.producer_base == lay.requests_at == lay.replica_base  # no producer slots
        state = after(model, LEADS)
        assert state.producer == state.requests == ()
        assert {a[0] for a, _ in model.successors(state)} >= {"ProducerWrite"}
        assert not {a[0] for a, _ in model.successors(state)} & {"ProducerSend", "LeaderHandleProduce"}


# ----- the rules, step by step -----------------------------------------------------------------------------

def test_retries_replace_the_atomic_write_and_send_only_to_a_believed_leader():
    model = retrying()
    initial = model.initial_states()[0]
    assert initial.producer == (ProducerRecord(UNSENT),) * 2 and initial.requests == ()
    assert enabled(model, initial, "ProducerSend") == set()  # nobody believes it leads yet
    state = after(model, LEADS)
    assert enabled(model, state, "ProducerWrite") == set()
    assert enabled(model, state, "ProducerSend") == {("ProducerSend", 0, 0)}
    sent = after(model, LEADS + [("ProducerSend", 0, 0)])
    assert sent.producer[0] == ProducerRecord(SENT) and sent.requests == (ProduceRequest(0, 0),)
    assert sent.next_record_id == 1


@pytest.mark.parametrize("max_in_flight", [1, 2])
def test_a_new_record_waits_for_room_in_the_window_and_a_failed_one_keeps_its_place(max_in_flight):
    model = retrying(max_in_flight=max_in_flight)
    sent = after(model, LEADS + [("ProducerSend", 0, 0)])
    failed = after(model, LEADS + [("ProducerSend", 0, 0), ("ProducerTimeout", 0)])
    assert failed.producer[0] == ProducerRecord(FAILED) and failed.requests == ()
    for state, first in ((sent, set()), (failed, {("ProducerSend", 0, 0)})):  # a failed record may be retried
        second = {("ProducerSend", 1, 0)} if max_in_flight == 2 else set()
        assert enabled(model, state, "ProducerSend") == first | second


def test_a_broker_handles_its_connection_in_send_order():
    model = retrying(max_in_flight=2)
    state = after(model, LEADS + [("ProducerSend", 0, 0), ("ProducerSend", 1, 0)])
    assert state.requests == (ProduceRequest(0, 0), ProduceRequest(1, 0))
    assert enabled(model, state, "LeaderHandleProduce") == {("LeaderHandleProduce", 0, 0)}


def test_a_crash_loses_the_requests_to_the_broker_and_the_producer_times_out():
    model = retrying()
    state = after(model, LEADS + [("ProducerSend", 0, 0), ("Crash", 0)])
    assert state.requests == () and state.producer[0].status == SENT
    assert enabled(model, state, "ProducerTimeout") == {("ProducerTimeout", 0)}


def test_an_append_is_answered_and_its_lost_answer_makes_the_retry_a_duplicate():
    model = retrying()
    steps = LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0)]
    appended = after(model, steps)
    assert appended.brokers[0].log == ((0, 0),)
    assert appended.producer[0] == ProducerRecord(APPENDED, 0, 0, 0, 0)
    states = walk(model, steps + [("ProducerTimeout", 0), ("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0)])
    assert states[-1].brokers[0].log == ((0, 0), (0, 0))
    retry = model.describe_step(("ProducerSend", 0, 0), states[-3], states[-2])
    assert retry == "producer retries a (sequence 0) to r1"


def test_the_pictures_have_a_producer_lane_that_says_where_each_record_stands():
    model = retrying(max_in_flight=2)
    states = walk(model, LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0), ("ProducerSend", 1, 0),
                                  ("ProducerTimeout", 0)])
    captions = [model.lanes(s)["producer"].caption for s in states]
    assert captions[3:] == ["a sent → r1", "a appended r1@0, waiting", "a appended r1@0, waiting\nb sent → r1",
                            "a failed\nb sent → r1"]
    assert list(model.lanes(states[-1])) == ["r1", "r2", "producer"]
    assert "producer" not in build_model("fetch", "kip320").lanes(states[0]._replace(producer=(), requests=()))


def test_the_idempotent_leader_drops_a_duplicate_and_refuses_a_gap():
    model = retrying(idempotence=True, max_in_flight=2)
    steps = LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0), ("ProducerTimeout", 0),
                     ("ProducerSend", 0, 0)]
    states = walk(model, steps + [("LeaderHandleProduce", 0, 0)])
    assert states[-1].brokers[0].log == ((0, 0),)
    assert states[-1].producer[0] == ProducerRecord(APPENDED, 0, 0, 0, 0)  # answered with the original offset
    assert model.describe_step(("LeaderHandleProduce", 0, 0), states[-2], states[-1]) == \
        "r1 drops duplicate a (sequence 0) and answers with its offset 0"
    gap = LEADS + [("ProducerSend", 0, 0), ("ProducerSend", 1, 0), ("ProducerTimeout", 0)]
    states = walk(model, gap + [("LeaderHandleProduce", 0, 1)])
    assert states[-1].brokers[0].log == () and states[-1].producer[1].status == FAILED
    assert model.describe_step(("LeaderHandleProduce", 0, 1), states[-2], states[-1]) == \
        "r1 refuses b (sequence 1): out of order, its log expects sequence 0 (OUT_OF_ORDER_SEQUENCE_NUMBER)"


def test_not_enough_replicas_and_not_leader_are_errors_the_producer_sees():
    model = retrying(max_in_flight=2)
    steps = LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0), ("LeaderShrinkIsr", 0, 1),
                     ("ProducerSend", 1, 0), ("LeaderHandleProduce", 0, 1)]
    states = walk(model, steps)
    assert states[-1].producer[1].status == FAILED and len(states[-1].brokers[0].log) == 1
    assert model.describe_step(steps[-1], states[-2], states[-1]) == \
        "r1 refuses b (sequence 1): its ISR {r1} is below min.insync.replicas (NOT_ENOUGH_REPLICAS)"
    # Under a majority quorum r2 wins an election with r1's vote, and r1 follows it at once.
    majority = retrying(quorum="majority")
    steps = [("BecomeLeader", 0, 0), ("ProducerSend", 0, 0), ("WinElection", 1, 0, 15), ("LeaderHandleProduce", 0, 0)]
    states = walk(majority, steps)
    assert states[-1].producer[0].status == FAILED
    assert majority.describe_step(steps[-1], states[-2], states[-1]) == \
        "r1 refuses a (sequence 0): it does not lead (NOT_LEADER_OR_FOLLOWER)"


def test_acks_all_answers_once_the_record_is_committed():
    model = retrying()
    appended = LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0)]
    state = after(model, appended)
    assert enabled(model, state, "ProducerReceiveAck") == set()  # HW 0
    fetched = appended + [("FollowerFetch", 1), ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1),
                          ("FollowerFetch", 1), ("LeaderServeFetch", 0, 1)]
    states = walk(model, fetched + [("ProducerReceiveAck", 0)])
    assert states[-2].brokers[0].hw == 1
    assert states[-1].producer[0] == ProducerRecord(ACKED) and states[-1].acked == ((0, (0, 0)),)
    assert model.describe_step(("ProducerReceiveAck", 0), states[-2], states[-1]) == \
        "producer receives r1's acknowledgement of a (sequence 0) at offset 0"


def test_acks_1_answers_at_the_append_and_acks_0_never():
    model = retrying(acks="1")
    state = after(model, LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0), ("ProducerReceiveAck", 0)])
    assert state.acked == ((0, (0, 0)),)
    model = retrying(acks="0")
    sent = after(model, LEADS + [("ProducerSend", 0, 0)])
    assert sent.producer[0].status == ACKED and sent.requests  # done at once, the request still in flight
    assert enabled(model, sent, "ProducerSend") == {("ProducerSend", 1, 0)}  # no window to wait for
    handled = after(model, LEADS + [("ProducerSend", 0, 0), ("LeaderHandleProduce", 0, 0)])
    assert handled.producer[0].status == ACKED and handled.acked == () and handled.brokers[0].leo == 1


# ----- what the search finds ---------------------------------------------------------------------------------

def shortest(config, invariants=ORDER):
    model = build_model("fetch", "kip320", retries=True, **PRODUCER, **config)
    result = explore(model, select("fetch", invariants), stop_at_first=False, symmetry=True)
    for trace in result.violations.values():
        verify_trace(trace, model)
    return result


def test_retries_with_two_in_flight_reorder_records():
    result = shortest(dict(max_in_flight=2))
    assert {k: len(t) for k, t in result.violations.items()} == {"in-order": 7, "no-duplicates": 6}
    last = result.violations["in-order"].states()[-1]
    leader = last.brokers[last.controller.leader]
    assert [x.id for x in leader.log] == [1, 0]  # b, sent after a, is appended first


def test_retries_with_one_in_flight_keep_order_but_duplicate():
    result = shortest({})
    assert result.complete and result.verdict("in-order") == "holds"
    assert result.distinct_states == 535_803
    trace = result.violations["no-duplicates"]
    assert len(trace) == 6
    assert [s.action[0] for s in trace.steps][-4:] == ["LeaderHandleProduce", "ProducerTimeout", "ProducerSend",
                                                       "LeaderHandleProduce"]


@pytest.mark.parametrize("max_in_flight, orbits", [(1, 67_148), (2, 320_407)])
def test_the_idempotent_producer_keeps_order_and_uniqueness(max_in_flight, orbits):
    result = shortest(dict(idempotence=True, max_in_flight=max_in_flight))
    assert result.complete and result.ok
    assert result.distinct_states == orbits


def test_both_engines_give_the_same_verdicts_and_trace_lengths():
    try:
        find_java_home()
    except EngineUnavailable as exc:
        pytest.skip(f"no Java for Spark here: {exc}")
    args = ["check", "--model", "fetch", "--retries", "--max-in-flight", "2", "--log-size", "3", "--invariant",
            "in-order", "--invariant", "no-duplicates", "--continue"]
    spark = subprocess.run([sys.executable, "-m", "cli", *args, "--engine", "spark", "--master", "local[1]", "--json"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert spark.returncode == 1, spark.stderr
    local = run_json(*args, "--engine", "local")

    def verdicts(out):
        return ({name: (p["status"], p["trace_length"]) for name, p in out["invariants"].items()},
                out["distinct_states"], out["depth"])

    assert verdicts(json.loads(spark.stdout)) == verdicts(local) == (
        {"in-order": ("violated", 7), "no-duplicates": ("violated", 6)}, 845, 7)


# ----- the kernel: bijection, the readable view, symmetry ------------------------------------------------------

SMALL = [dict(max_in_flight=2, max_epoch=1, max_crashes=0),
         dict(max_in_flight=2, idempotence=True, acks="1", max_epoch=1, max_crashes=0),
         dict(max_in_flight=2, acks="0", quorum="majority", flush="async", max_epoch=1, max_crashes=0)]
"""Bounds with 5,000 to 11,000 states (no symmetry reduction), in which every status a record can
have under their acks occurs."""


@pytest.mark.parametrize("config", SMALL, ids=[str(c) for c in SMALL])
def test_codec_is_a_bijection_on_every_reachable_state(config):
    model = retrying(**config)
    kernel = model.kernel
    rows = reachable_rows(model)
    assert len(rows) > 1000
    states = set()
    for row in rows:
        state = kernel.decode(row)
        assert np.array_equal(kernel.encode(state), row)
        assert model.state_from_json(json.loads(json.dumps(model.state_to_json(state)))) == state
        assert len(kernel.successor_rows(row)) <= kernel.max_successors
        states.add(state)
    assert len(states) == len(rows)
    assert any(s.requests for s in states)
    statuses = {UNSENT, ACKED} if config.get("acks") == "0" else {UNSENT, SENT, APPENDED, ACKED, FAILED}
    assert {p.status for s in states for p in s.producer} == statuses


def test_a_trace_file_without_a_producer_still_loads():
    model = build_model("fetch", "kip320")
    data = model.state_to_json(after(model, LEADS + [("ProducerWrite", 0)]))
    assert "producer" not in data and "requests" not in data
    assert model.state_from_json(data).producer == ()
    with pytest.raises(ValueError, match="unknown producer status 'lost'"):
        retrying().state_from_json({**data, "producer": [{"status": "lost"}]})


def test_decoded_view_agrees_with_the_compiled_search():
    # idempotence adds the duplicate and out-of-sequence answers to append and not-leader, in
    # 5,056 states, a third of the plain producer's 15,079 (the Python search is the slow side)
    assert_decoded_view_agrees(retrying(max_in_flight=2, max_epoch=1, max_crashes=0, acks="1", idempotence=True))


SYMMETRY_MODELS = [retrying(replicas=3, max_records=3, log_size=3, max_in_flight=3, max_epoch=3, max_crashes=3,
                            idempotence=idempotence, acks=acks, quorum=quorum)
                   for idempotence, acks, quorum in ((False, "all", "isr"), (True, "1", "isr"),
                                                     (True, "all", "majority"))]
EVERY_INVARIANT = (1 << len(STATE_INVARIANTS)) - 1


@settings(max_examples=60, deadline=None)
@given(which=st.integers(0, len(SYMMETRY_MODELS) - 1), choices=st.lists(st.integers(0, 1000), max_size=40))
def test_renaming_commutes_with_every_producer_rule(which, choices):
    model = SYMMETRY_MODELS[which]
    row = random_walk(model, choices)
    assert np.array_equal(model.kernel.encode(model.kernel.decode(row)), row)
    assert_renaming_commutes(model, row, EVERY_INVARIANT, step_mask=7)
