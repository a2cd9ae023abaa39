"""`replcheck trace audit` for `kraft` traces: each step is judged by the branch it takes through
Kafka's method (`model.kraft.step_rows`), read from the states, so a step Kafka cannot take is
caught in a trace saved before a fix or edited by hand (a FETCH answered with unflushed records
that Kafka would not have parked, a follower that has fetched granting a pre-vote), while the
model's own steps and the shipped stories are every step as Kafka."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from checker.ci import manifest
from checker.local import explore
from conftest import run_cli
from model.kraft import messages as msg
from model.kraft.kafka.kinds import ACTION_KINDS
from model.kraft.rule_table import BY_KEY, DEVIATION, FAITHFUL, ROWS
from model.kraft.state import FOLLOWER, ILLEGAL
from model.kraft.step_rows import BY_ACTION, step_rows
from model.registry import build_model
from traces.store import load_trace, save_trace
from traces.trace import Step, Trace

DATA = Path(__file__).resolve().parent / "data"
DISK_LOSS = DATA / "kraft" / "kip595-disk-loss.json"
"""kip595's lost-disk story as `check` saves it: n2 appends v1 (step 14), flushes (15), and only
then answers n3's FETCH from offset 0 with LC@e1 v1@e1 (16)."""
BEFORE_THE_FIX = DATA / "findings" / "kraft-kip595-fetch-answered-before-flush.json"
"""The same story as `check` saved it before the model parked only what Kafka parks: n3's FETCH
from offset 0, in flight when n2 appended v1, was marked parked (step 14) and answered with LC@e1
v1@e1 before the flush (15), which 3.8's `handleFetchRequest` never does: it answers a FETCH that
finds records at once, when it handles it."""
STORIES = Path(__file__).resolve().parents[1] / "examples" / "kraft-stories.toml"


def _replayed(model, actions) -> Trace:
    """The trace of `actions` from the model's initial state, each a step the model takes."""
    state, steps = model.initial_states()[0], []
    for action in actions:
        taken = dict(model.successors(state))
        assert action in taken, f"step {len(steps) + 1} {action} is not a step of the model"
        state = taken[action]
        steps.append(Step(action, state))
    return Trace("kraft", model.variant, model.parameters(), "leader-has-acked-values", model.initial_states()[0],
                 tuple(steps))


def _audit_cli(path: Path) -> tuple[int, dict | str]:
    """`trace audit --json FILE`: its exit status and its JSON (or, refused, its error line)."""
    result = run_cli("trace", "audit", "--json", str(path))
    return result.exit_code, json.loads(result.stdout) if result.exit_code in (0, 1) else result.stderr


def test_a_trace_saved_before_the_parking_fix_is_refused_and_read_as_the_deviation():
    """The fix changed the state of step 14 itself (the FETCH is no longer marked parked), a step
    the model still takes to another state: `trace audit` refuses the file at that step, in one
    line; the audit reads steps 14 and 15 as the deviation the fix removed."""
    code, error = _audit_cli(BEFORE_THE_FIX)
    assert code == 2 and error.count("\n") == 1 and "step 14 is not a step it takes" in error, error
    trace, model = load_trace(BEFORE_THE_FIX, replay=False)
    audit = model.audit(trace)
    assert audit.deviations == {"fetch-unparked-before-flush": (14, 15)}
    assert [trace.steps[13].action, trace.steps[14].action] == [("ClientAppend", 2, 1), ("HandleFetchRequest", 2, 3, 1)]
    assert audit.first_unreplayed == 14


def test_the_story_as_saved_now_answers_that_fetch_after_the_flush_every_step_as_kafka():
    trace, model = load_trace(DISK_LOSS)
    audit = model.audit(trace)
    assert audit.conclusion() == "every step as Kafka 3.3 to 3.8"
    kinds = [step.action[0] for step in trace.steps]
    assert kinds[13:16] == ["ClientAppend", "Flush", "HandleFetchRequest"]
    assert "fetch-records" in {row.row for row in audit.steps[15].rows}


def test_a_fetch_answered_with_unflushed_records_by_hand_is_named_at_its_step(tmp_path):
    """The story edited so that n2 answers n3's FETCH from offset 0 between its append of v1 and
    its flush (the states as the answer and the flush make them): the audit names step 15."""
    trace, model = load_trace(DISK_LOSS)
    steps = list(trace.steps)
    flush, answer = steps[14], steps[15]
    assert (flush.action[0], answer.action[0]) == ("Flush", "HandleFetchRequest")
    leader = flush.action[1] - 1
    unflushed = answer.state._replace(flushed=tuple(f if v != leader else steps[13].state.flushed[leader]
                                                    for v, f in enumerate(answer.state.flushed)))
    steps[14:16] = [Step(answer.action, unflushed), Step(flush.action, answer.state)]
    forged = tmp_path / "answered-before-flush.json"
    save_trace(Trace(trace.model, trace.variant, trace.bounds, trace.invariant, trace.initial, tuple(steps)), model,
               forged)
    code, audit = _audit_cli(forged)
    assert code == 1, audit
    assert audit["conclusion"] == "rests on deviation fetch-unparked-before-flush at step 15"
    assert audit["first_unreplayed_step"] == 15


def test_swapping_the_flush_and_the_answer_in_the_file_is_caught(tmp_path):
    """The two steps' entries swapped, states and all: the answer (step 15), taken inside
    `flushLeaderLog` with a FETCH Kafka does not park, is the deviation; the flush after it
    (step 16) goes from a flushed log to an unflushed one, which no step does, and `trace audit`
    refuses the file there."""
    doc = json.loads(DISK_LOSS.read_text())
    doc["steps"][14], doc["steps"][15] = doc["steps"][15], doc["steps"][14]
    swapped = tmp_path / "swapped.json"
    swapped.write_text(json.dumps(doc))
    code, error = _audit_cli(swapped)
    assert code == 2 and error.count("\n") == 1 and "step 16 ('Flush') is none it takes" in error, error
    trace, model = load_trace(swapped, replay=False)
    assert model.audit(trace).deviations == {"fetch-unparked-before-flush": (15,)}


PRE_VOTE_AFTER_FETCH = [
    # n1 wins its pre-vote and n2's vote, and leads epoch 1
    ("Timeout", 1), ("SendVoteRequests", 1), ("HandleVoteRequest", 2, 1, 0), ("HandleVoteResponse", 1, 2, 0),
    ("SendVoteRequests", 1), ("HandleVoteRequest", 2, 1, 1), ("HandleVoteResponse", 1, 2, 1),
    # n2 follows n1, and n1 answers its FETCH (hasFetchedFromLeader)
    ("SendBeginQuorumEpoch", 1), ("HandleBeginQuorumEpoch", 2, 1, 1), ("SendFetch", 2, 1),
    ("HandleFetchRequest", 1, 2, 1), ("HandleFetchResponse", 2, 1, 1),
    # n3 follows n1 too, times out and asks n2 for a pre-vote in epoch 1
    ("HandleVoteRequest", 3, 1, 0), ("SendBeginQuorumEpoch", 1), ("HandleBeginQuorumEpoch", 3, 1, 1), ("Timeout", 3),
    ("SendVoteRequests", 3), ("HandleVoteRequest", 2, 3, 1)]
"""Kafka 4.0's steps up to a pre-vote request that n2, a follower whose leader answered its FETCH,
handles (step 18)."""


def test_a_follower_that_has_fetched_granting_a_pre_vote_is_caught(tmp_path):
    model = build_model("kraft", "kafka40", replicas=3, max_records=1, max_elections=2)
    trace = _replayed(model, PRE_VOTE_AFTER_FETCH)
    last = trace.steps[-1].state
    assert (last.role[1], last.heard[1]) == (FOLLOWER, 1)
    refusal = model.audit(trace)
    assert "pre-vote-refused" in {row.row for row in refusal.steps[-1].rows}
    assert refusal.conclusion() == "every step as Kafka 4.0"

    answer = next(m for m, _ in last.messages if m[0] == msg.VOTE_RESPONSE and m[1:3] == (2, 3))
    assert msg.fields(answer).granted == 0
    granted = answer[:5] + (1,) + answer[6:]
    forged = last._replace(messages=tuple(sorted((granted if m == answer else m, c) for m, c in last.messages)))
    edited = Trace(trace.model, trace.variant, trace.bounds, trace.invariant, trace.initial,
                   trace.steps[:-1] + (Step(trace.steps[-1].action, forged),))
    audit = model.audit(edited)
    assert audit.deviations == {"pre-vote-granted-after-fetch": (18,)}
    assert audit.conclusion() == "rests on deviation pre-vote-granted-after-fetch at step 18"
    path = tmp_path / "pre-vote-after-fetch.json"
    save_trace(edited, model, path)
    code, error = _audit_cli(path)  # no fix removed this step: refused, on one line, at the step
    assert code == 2 and error.count("\n") == 1 and "step 18 is not a step it takes" in error, error


DIVERGENCE = [
    # n1 leads epoch 1 with n2's vote; n2 fetches LC@e1 and n1's HW passes it
    ("Timeout", 1), ("SendVoteRequests", 1), ("HandleVoteRequest", 2, 1, 1), ("HandleVoteResponse", 1, 2, 1),
    ("SendBeginQuorumEpoch", 1), ("HandleBeginQuorumEpoch", 2, 1, 1), ("AppendLeaderChange", 1), ("Flush", 1),
    ("HandleBeginQuorumEpochResponse", 1, 2, 1), ("SendFetch", 2, 1), ("HandleFetchRequest", 1, 2, 1),
    ("HandleFetchResponse", 2, 1, 1), ("SendFetch", 2, 1), ("HandleFetchRequest", 1, 2, 1),
    # n2 loses its disk and votes n3 leader of epoch 2, whose log lacks LC@e1
    ("LoseDisk", 2), ("Timeout", 3), ("Timeout", 3), ("SendVoteRequests", 3), ("HandleVoteRequest", 2, 3, 2),
    ("HandleVoteResponse", 3, 2, 2), ("HandleVoteRequest", 1, 3, 2), ("SendBeginQuorumEpoch", 3),
    ("HandleBeginQuorumEpoch", 1, 3, 2), ("AppendLeaderChange", 3), ("Flush", 3), ("HandleVoteRequest", 3, 1, 1),
    # n1 fetches from n3, is told epoch 1 ends at 0, below its HW 1, and throws
    ("SendFetch", 1, 3), ("HandleFetchRequest", 3, 1, 2), ("HandleFetchResponse", 1, 3, 2)]
"""kip595's steps to a diverging answer that asks a follower to truncate below its HW."""


def test_a_diverging_answer_and_a_truncation_below_the_hw_are_named_as_kafka():
    """`handleFetchResponse` @ 3.8.0 throws when the diverging offset is below the HW (and
    `KafkaMetadataLog.truncateTo` when the cut is): the model's voter takes the illegal role."""
    model = build_model("kraft", "kip595", replicas=3, max_records=1, max_elections=3, max_disk_losses=1)
    trace = _replayed(model, DIVERGENCE)
    assert trace.steps[-1].state.role[0] == ILLEGAL and trace.steps[-2].state.hw[0] == 1
    audit = model.audit(trace)
    assert "fetch-diverging" in {row.row for row in audit.steps[-2].rows}
    assert "truncation-below-hw" in {row.row for row in audit.steps[-1].rows}
    assert audit.conclusion() == "every step as Kafka 3.3 to 3.8"


@pytest.mark.parametrize("variant, bounds, branches", [
    ("kip595", {"max_elections": 2, "max_restarts": 1},
     {"fetch-parked", "fetch-records", "fetch-nothing-new", "fetch-error", "vote-granted", "vote-refused",
      "vote-error"}),
    ("kafka40", {"max_elections": 1}, {"fetch-parked", "fetch-records", "pre-vote-granted", "vote-granted"}),
    ("kip853", {"spares": 1, "max_voter_changes": 1, "max_restarts": 1}, {"fetch-parked", "vote-granted"}),
])
def test_the_model_s_own_steps_take_kafka_s_branches_only(variant, bounds, branches):
    """The audit, reading states, and the kernel, taking steps, agree: over the first states of a
    breadth-first walk no step rests on a deviation, and the branches named are taken."""
    model = build_model("kraft", variant, **bounds)
    seen, todo, taken = set(), collections.deque(model.initial_states()), set()
    while todo and len(seen) < 6_000:
        state = todo.popleft()
        if state in seen:
            continue
        seen.add(state)
        for action, after in model.successors(state):
            rows = step_rows([state, after], [action], 1, model.rules)
            assert all(BY_KEY[r].status(variant).kind != DEVIATION for r in rows), (action, rows, state, after)
            taken.update(rows)
            todo.append(after)
    assert branches <= taken, branches - taken


def test_the_shipped_stories_traces_are_every_step_as_kafka():
    """Each violated entry of examples/kraft-stories.toml under a faithful variant: its shortest
    trace rests on no deviation (`verify` says so too, entry by entry)."""
    stories = [(group.model, prop) for group in manifest.load(STORIES) for e in group.expectations
               if e.outcome == "violated" and e.variant in FAITHFUL for prop in group.properties if prop.name == e.prop]
    assert len(stories) >= 4
    for model, prop in stories:
        audit = model.audit(explore(model, [prop], symmetry=True).violations[prop.name])
        assert audit.deviations == {} and audit.as_kafka_in == audit.releases, (model.variant, audit.conclusion())


def test_every_faithful_step_kind_rests_on_some_row():
    assert all(BY_ACTION[kind] for kind in ACTION_KINDS)
