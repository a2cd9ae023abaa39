"""The explanation of a counterexample names the right cause (issue #9, item 3): the cause kind,
the step that lost or diverged the record, and the earlier culprit steps, on the shortest trace
of every invariant that fails at the default bounds of both models and on every shipped
scenario. Shortest traces are deterministic (same engine rules, symmetry on as `check` and
`compare` use it), so step numbers are pinned; the comment beside each entry says why that
cause is the right one, read from the trace (`python -m cli trace show FILE`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checker.local import explore
from conftest import VARIANTS, run_cli
from invariants.registry import invariants_for, select
from model.registry import build_model
from traces.diagnosis import Cause, diagnose
from traces.explain import TITLES, explain
from traces.partition import CrossEpochFetch, cross_epoch_fetches, partition_views
from traces.scenario import load_scenario, parse_step, replay
from traces.store import save_trace
from traces.trace import Step, Trace

C = Cause

SHORTEST = {
    # spec, 3 replicas, log 2, 2 records, max epoch 2: (cause, trace length, damage step, culprit steps).
    # hw: r3 follows r1 (step 4) and fetches a@e1 with HW 0 (step 6); r1 raises its HW to 1 (step 7);
    # r3 takes the current epoch-1 request and truncates to its own HW 0, dropping a@e1 (step 8).
    ("spec", "hw", "strong-isr"): (C.TRUNCATION_TO_LAGGING_HW, 8, 8, (7,)),
    ("spec", "hw", "weak-isr"): (C.TRUNCATION_TO_LAGGING_HW, 8, 8, (7,)),
    # kip101 and kip279: the controller reaches epoch 2 (r1) at step 3. r3 then acts on the stale
    # epoch-0 request (step 5), fetches a@e2 from r1 while in epoch 0 with no epoch check (step 7),
    # and at step 10 acts on the stale epoch-1 request naming r2, which never led and has an empty
    # log: KIP-101 falls back to r3's HW 0, KIP-279 finds no shared record; a@e2 (committed by r1 at
    # step 9) is gone. Not HW lag: r3 would have kept a@e2 had it asked r1, the real leader.
    ("spec", "kip101", "strong-isr"): (C.STALE_LEADER_AND_ISR, 10, 10, (5, 7)),
    ("spec", "kip101", "weak-isr"): (C.STALE_LEADER_AND_ISR, 10, 10, (5, 7)),
    ("spec", "kip279", "strong-isr"): (C.STALE_LEADER_AND_ISR, 10, 10, (5, 7)),
    ("spec", "kip279", "weak-isr"): (C.STALE_LEADER_AND_ISR, 10, 10, (5, 7)),
    # The specification's LeaderInIsr fails in the initial state, where nobody leads yet.
    **{("spec", v, "leader-in-isr"): (C.LEADERLESS, 0, 0, ()) for v in VARIANTS},
    # fetch, 2 replicas, acks=all, min.insync.replicas=2, flush=sync, clean elections; hw, kip101 and
    # kip279 have Kafka 0.10 to 2.1's controller, which may miss a bounce and fail over.
    # hw: r1 raises its HW to 1 over a@e0 (step 8); r2 and r1 crash unseen, a new controller counts
    # both alive and queues them the current LeaderAndIsr; r2 restarts, takes it and truncates to its
    # own HW 0 (step 13: HW truncation needs no live leader); r1's death is noticed and r2 is elected
    # without a@e0 (step 15).
    ("fetch", "hw", "committed-survives"): (C.TRUNCATION_TO_LAGGING_HW, 15, 13, (8,)),
    ("fetch", "hw", "acked-survives"): (C.TRUNCATION_TO_LAGGING_HW, 15, 13, (8,)),
    # hw: the same commit at step 8; r2 bounces unseen and truncates to its HW 0 on the new
    # controller's LeaderAndIsr, still in the ISR.
    ("fetch", "hw", "strong-isr"): (C.TRUNCATION_TO_LAGGING_HW, 12, 12, (8,)),
    ("fetch", "hw", "weak-isr"): (C.TRUNCATION_TO_LAGGING_HW, 12, 12, (8,)),
    # hw: r2 drops committed a@e0 by HW truncation on a request of epoch 0 a new controller queued
    # while it was down (step 17); r1, which kept a@e0, follows r2 in epoch 1 and truncates to its
    # own HW 1, above r2's end (step 18); r2 leads epoch 1 and writes b@e1 at offset 0 (step 22).
    ("fetch", "hw", "no-divergence"): (C.HW_TRUNCATION_ABOVE_DIVERGENCE, 22, 18, (17,)),
    # kip101 and kip279 (0.11 to 2.0): r1 dies, r2 leads epoch 1 and commits a@e0 alone (step 11);
    # r1 comes back and rejoins; the controller moves leadership back to the preferred replica r1
    # (epoch 2), while r2 still writes b@e1; r1 leads epoch 2 without appending, so its cache has
    # no epoch above 0; r2 bounces unseen, takes the queued epoch-2 request, asks for the end of
    # epoch 1, gets UNDEFINED_EPOCH_OFFSET and truncates to its HW 0, dropping a@e0 (step 21:
    # KAFKA-7415).
    **{("fetch", v, invariant): (C.UNDEFINED_EPOCH_ANSWER, 21, 21, (11,)) for v in ("kip101", "kip279")
       for invariant in ("strong-isr", "weak-isr")},
    # hw, kip101, kip279: consumers see HW 1 at step 8; r1 crashes and restarts with HW 0 from its
    # checkpoint, unseen by the controller; a new controller sends it the current LeaderAndIsr and
    # it leads epoch 0 again with HW 0 (step 12): KAFKA-2334, untouched by leader epochs. kip320
    # (and kip903) fail the bounced r1 first (KAFKA-7235): r2 is elected with the ISR {r2}, and a
    # leader alone in the ISR takes its LEO as HW at once, so at 2 replicas the HW never goes back
    # (kip320 and kip903 violate nothing at these bounds; S5 tells KAFKA-2334 under kip320 at 3
    # replicas).
    **{("fetch", v, "hw-monotonic"): (C.NEW_LEADER_HW_BEHIND, 12, 12, (8,)) for v in ("hw", "kip101", "kip279")},
    # hw: r2 commits a@e1 as leader of epoch 1; r1 drops it truncating to its own HW 0 (step 20), the
    # controller moves leadership back to r1, which writes b@e2 at offset 0 (step 22); r2 follows r1
    # and truncates to its HW 1, keeping a@e1 above r1's end (step 24), and joins r1's ISR while r1
    # serves its FETCH (step 26: before 2.7 the expansion is part of that FETCH).
    ("fetch", "hw", "isr-join-caught-up"): (C.HW_TRUNCATION_ABOVE_DIVERGENCE, 26, 24, (20, 22)),
}

SCENARIOS = {
    # Stories that end with every checked invariant holding: nothing to blame.
    "S0-two-fetch-rounds": None,
    "S1-kip101-keeps-committed": None,
    "S2-kip101-no-divergence": None,
    # KIP-101 scenario 1: m2 committed at step 16; A restarts with HW 1 and truncates m2 at step 20.
    "S1-hw-truncation-loses-committed": (C.TRUNCATION_TO_LAGGING_HW, 20, (16,)),
    # KIP-101 scenario 2: B loses unflushed m2 in the power failure (step 17), leads and writes m3 at
    # offset 1 (step 21); A comes back and truncates to its HW 2, keeping m2 (step 24).
    "S2-hw-divergence-after-power-loss": (C.HW_TRUNCATION_ABOVE_DIVERGENCE, 24, (17, 21)),
    # s1 commits the record at step 14; s3 follows s2 and truncates to its lagging HW at step 18.
    "S4-hw-chain-of-failovers": (C.TRUNCATION_TO_LAGGING_HW, 18, (14,)),
    # KAFKA-2334 at 3 replicas: consumers see HW 1 at step 14 (r3's LEO reached r1 after r2 was
    # answered HW 0); r1 crashes, the controller elects r2 at step 16, and r2 leads with its follower
    # HW 0 and r3's LEO unknown at step 17.
    "S5-hw-goes-backwards": (C.NEW_LEADER_HW_BEHIND, 17, (14, 16)),
    # acks=1: acknowledged on r1's append (step 2); the controller elects r2, which never had it (step 4).
    "S6a-acks-1": (C.ACKED_BEFORE_REPLICATED, 4, (2,)),
    # The ISR shrinks to r1 and a@e0 is committed (step 3); r2, outside the ISR, is elected (step 5).
    "S6b-unclean-election": (C.UNCLEAN_ELECTION, 5, (3,)),
    # min.insync.replicas=1: committed and acknowledged with r1 alone (step 3); flush=async, so r1's
    # crash drops it (step 4).
    "S6c-min-insync-1-async": (C.UNFLUSHED_TAIL_LOST_IN_CRASH, 4, (3,)),
    # Raft's Figure 8 without the own-epoch rule: r5 writes b@e1 (step 9), r1 commits a@e0 from
    # epoch 2 (step 19), and r5 wins epoch 3 over it (step 22).
    "S7a-majority-naive-figure-8": (C.EARLIER_EPOCH_COUNTED, 22, (9, 19)),
    "S7b-majority-figure-8-own-epoch": None,
    # Last Replica Standing: r1, alone in the ISR, commits a@e0 (step 8), loses it in an unclean
    # shutdown (step 9) and is re-elected as the ISR's last member (step 12).
    "S9a-kip320-last-replica-standing": (C.LAST_REPLICA_STANDING, 9, (8, 12)),
    "S9b-kip966-elr-keeps-committed": None,
    # a@e0 committed on r1 and r2 (step 10); the ISR shrinks to r1 (step 11), r1 loses a in a crash
    # (step 12) and is re-elected as the ISR's last member (step 15).
    "S9c-kafka37-last-replica-standing-after-isr-shrink": (C.LAST_REPLICA_STANDING, 12, (10, 15)),
    # Producer retries, max.in.flight 2: r1 refuses b (step 7, ISR below min.insync); the producer sends
    # c (step 15), r1 appends it (step 16), b is retried (step 17) and appended behind c (step 18).
    "S8a-retries-reorder": (C.RETRY_BEHIND_LATER_RECORD, 18, (7, 15, 16, 17)),
    "S8b-idempotence-keeps-order": None,
}

RETRYING = {
    # fetch kip320, 2 replicas, log 2, retries with max.in.flight 2 (the same traces for hw, acks=1).
    # in-order: the producer sends a (step 2) and b (step 3) to r1; a's request is lost (step 4) and
    # retried (step 5) behind b, which r1 appends first (step 6); a lands at offset 1 (step 7).
    "in-order": (C.RETRY_BEHIND_LATER_RECORD, 7, 7, (3, 4, 5, 6)),
    # no-duplicates: r1 appends a (step 3), its answer is lost (step 4), the retry (step 5) is
    # appended again at offset 1 (step 6).
    "no-duplicates": (C.RETRY_AFTER_LOST_ANSWER, 6, 6, (3, 4, 5)),
}

SCENARIO_DIR = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.fixture(scope="module")
def shortest():
    """(model, variant) -> {invariant: shortest trace} at the default bounds, every invariant
    explored to the end, each pair explored once for the module."""
    explored = {}

    def violations(model_name: str, variant: str) -> dict:
        if (model_name, variant) not in explored:
            invariants = [p for p in invariants_for(model_name).values() if not p.witness]
            model = build_model(model_name, variant, ghost=any(i.needs_ghost for i in invariants))
            result = explore(model, invariants, stop_at_first=False, symmetry=True)
            explored[model_name, variant] = (model, result.violations)
        return explored[model_name, variant]

    return violations


def scenario_trace(stem: str) -> tuple[Trace, object]:
    """The replayed story as a trace of its expected violation (or of its first invariant)."""
    scenario = load_scenario(SCENARIO_DIR / f"{stem}.json")
    result = replay(scenario)
    assert result.stuck_at is None
    model = scenario.model
    invariant = scenario.expect_violation or scenario.invariants[0].name
    steps = tuple(Step(action, state) for (action, _), state in zip(scenario.steps, result.states[1:]))
    return Trace(model.name, model.variant, dict(model.parameters()), invariant, result.states[0], steps), model


def walk(model, invariant: str, steps: list[str]) -> Trace:
    """The trace of `steps` (written as in scenario files) from the model's initial state."""
    state = initial = model.initial_states()[0]
    taken = []
    for text in steps:
        state = dict(model.successors(state))[parse_step(text)]
        taken.append(Step(parse_step(text), state))
    return Trace(model.name, model.variant, dict(model.parameters()), invariant, initial, tuple(taken))


@pytest.mark.parametrize("model_name", ["spec", "fetch"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_table_covers_every_violation_at_the_default_bounds(shortest, model_name, variant):
    _, found = shortest(model_name, variant)
    assert set(found) == {inv for (m, v, inv) in SHORTEST if (m, v) == (model_name, variant)}


@pytest.mark.parametrize("case", list(SHORTEST), ids=["-".join(c) for c in SHORTEST])
def test_shortest_trace_gets_its_cause_and_culprits(shortest, case):
    model_name, variant, invariant = case
    kind, length, damage, culprits = SHORTEST[case]
    trace = shortest(model_name, variant)[1][invariant]
    assert len(trace) == length
    diagnosis = diagnose(trace)
    assert (diagnosis.kind, diagnosis.step, diagnosis.culprit_steps) == (kind, damage, culprits)
    assert all(step < diagnosis.failure for step in diagnosis.culprit_steps)


@pytest.fixture(scope="module")
def retrying():
    """The retrying producer's model and its shortest in-order and no-duplicates traces."""
    invariants = select("fetch", list(RETRYING))
    model = build_model("fetch", "kip320", log_size=2, retries=True, max_in_flight=2, ghost=True)
    return model, explore(model, invariants, stop_at_first=False, symmetry=True).violations


@pytest.mark.parametrize("invariant", list(RETRYING))
def test_retrying_producer_trace_gets_its_cause_culprits_and_fix(retrying, invariant):
    model, found = retrying
    kind, length, damage, culprits = RETRYING[invariant]
    trace = found[invariant]
    assert len(trace) == length
    diagnosis = diagnose(trace)
    assert (diagnosis.kind, diagnosis.step, diagnosis.culprit_steps) == (kind, damage, culprits)
    text = " ".join(explain(trace, model))
    assert f"({kind.value})" in text and f"At step {damage}," in text
    assert all(re.search(rf"\bstep {step} \(", text) for step in culprits)
    assert "KIP-98, --idempotence" in text


def test_a_retry_to_a_new_leader_that_already_copied_the_record_is_a_duplicate():
    # r1 appends a (step 4) and r2 copies it (step 7); r1 crashes with the answer pending, which
    # the producer times out on (step 9); r2 is elected and leads epoch 1 (steps 10, 11), and the
    # retry (step 12) is appended again by r2, which holds a already (step 13; min.insync 1 lets r2
    # accept it with an ISR of one).
    model = build_model("fetch", "kip320", log_size=2, retries=True, min_insync_replicas=1, ghost=True)
    trace = walk(model, "no-duplicates", [
        "BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "ProducerSend 0 r1", "LeaderHandleProduce r1 0",
        "FollowerFetch r2", "LeaderServeFetch r1 r2", "FollowerApplyResponse r2", "Crash r1", "ProducerTimeout 0",
        "ControllerNoticeFailure r1 r2", "BecomeLeader r2 e1", "ProducerSend 0 r2", "LeaderHandleProduce r2 0"])
    diagnosis = diagnose(trace)
    assert (diagnosis.kind, diagnosis.step, diagnosis.culprit_steps) == (C.RETRY_AFTER_LOST_ANSWER, 13, (4, 9, 12))
    assert (diagnosis.damage.replica, [c.replica for c in diagnosis.culprits]) == (1, [0, 0, 1])
    text = " ".join(explain(trace, model))
    assert "At step 13, r2 appended a@e1 at offset 1 although its log already held the same producer record, a@e0, " \
           "at offset 0" in text


def test_every_shipped_scenario_is_in_the_table():
    assert set(SCENARIOS) == {p.stem for p in SCENARIO_DIR.glob("*.json")}


@pytest.mark.parametrize("stem", list(SCENARIOS))
def test_scenario_gets_its_cause_and_culprits(stem):
    trace, _ = scenario_trace(stem)
    diagnosis = diagnose(trace)
    expected = SCENARIOS[stem]
    if expected is None:
        assert diagnosis is None
    else:
        assert (diagnosis.kind, diagnosis.step, diagnosis.culprit_steps) == expected


@pytest.mark.parametrize("case", list(SHORTEST), ids=["-".join(c) for c in SHORTEST])
def test_explanation_names_the_cause_the_damage_and_every_culprit(shortest, case):
    model, found = shortest(*case[:2])
    trace = found[case[2]]
    diagnosis = diagnose(trace)
    lines = explain(trace, model)
    assert lines[1] == f"Cause: {TITLES[diagnosis.kind]} ({diagnosis.kind.value})."
    if not trace.steps:
        return
    assert lines[0].startswith(f"Step {len(trace)} (")
    text = " ".join(lines[2:])
    assert f"At step {diagnosis.step}," in text
    for step in diagnosis.culprit_steps:
        assert re.search(rf"\bstep {step} \(", text), (step, text)


@pytest.mark.parametrize("variant", ["kip101", "kip279"])
def test_stale_request_traces_are_not_blamed_on_hw_truncation(shortest, variant):
    # Issue #9, item 3: these traces used to be explained as "the data loss HW truncation allowed".
    model, found = shortest("spec", variant)
    lines = explain(found["strong-isr"], model)
    assert "stale LeaderAndIsr" in lines[1]
    assert not any("lagging" in line or "HW truncation" in line for line in lines)


@pytest.mark.parametrize("variant, found", [("hw", {12: CrossEpochFetch(12, 11, 1, 0, 0, 2)}), ("kip320", {})])
def test_a_fetch_served_across_leader_epochs_is_found_unless_fenced(variant, found):
    # r2 lags and leaves the ISR (step 4); r1 crashes, stays the ISR's last member with the partition
    # leaderless (epoch 1), and is re-elected when it is back (epoch 2). r2 still follows r1 in epoch
    # 0: its FETCH (epoch 0) is served at step 11 and its record lands at step 12, unless KIP-320
    # refuses it. (r2 leaves the ISR first because from kip320 on a crashed leader loses leadership
    # to a live ISR member.)
    trace = walk(build_model("fetch", variant), "no-divergence", [
        "BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "ProducerWrite r1", "LeaderShrinkIsr r1 r2", "Crash r1",
        "ControllerNoticeFailure r1 none", "Restart r1", "ControllerNoticeRestart r1 r1", "BecomeLeader r1 e2",
        "FollowerFetch r2", "LeaderServeFetch r1 r2", "FollowerApplyResponse r2"])
    assert cross_epoch_fetches(trace, partition_views(trace)) == found


def test_hw_trace_names_the_lost_record_and_the_lagging_hw(shortest):
    model, found = shortest("spec", "hw")
    text = " ".join(explain(found["strong-isr"], model))
    lost = re.search(r"At step 8, (r\d) lost record (\w@e\d) at offset 0, which (r\d) had already committed "
                     r"\(its HW was 1\)", text)
    assert lost, text
    follower, _, leader = lost.groups()
    assert f"{follower}'s own HW was 0, lagging {leader}'s HW of 1" in text
    assert f"The record became committed at step 7 ({leader} advances its HW to 1)" in text


def test_trace_show_explain_prints_the_diagnosis(shortest, tmp_path):
    model, found = shortest("spec", "kip101")
    path = tmp_path / "kip101.json"
    save_trace(found["strong-isr"], model, path)
    result = run_cli("trace", "show", str(path), "--explain")
    assert result.exit_code == 0
    assert "(stale-leader-and-isr)." in " ".join(result.stdout.split())


def test_a_model_without_a_replicated_log_gets_no_diagnosis():
    model = build_model("two-phase", rms=2)
    initial = model.initial_states()[0]
    action, after = next(iter(model.successors(initial)))
    trace = Trace("two-phase", None, dict(model.parameters()), "consistent", initial, (Step(action, after),))
    assert diagnose(trace) is None
    assert explain(trace, model)[-1].startswith("The state it fails in was set up by step 1 (")
