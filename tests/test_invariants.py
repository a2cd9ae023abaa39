"""The invariants of the `spec` and `two-phase` models on hand-built states, and how
invariants are selected by name.

For each invariant: states where it holds and states where it fails, with the edge cases
docs/models/spec.md singles out (a NONE leader, an HW beyond the leader's own log, an ISR member
with a shorter log or a different record below the HW).
"""

from __future__ import annotations

import pytest

from invariants import spec, two_phase
from invariants.registry import invariants_for, select
from model.params import ModelError
from model.spec.state import NO_EPOCH, NONE, LeaderAndIsr, Record, Replica, SpecState, initial_state, replica_set
from model.two_phase.state import ABORTED, COMMITTED, PREPARED, WORKING, TwoPhaseState

N = 3

HOLDS = {name: inv.holds for name, inv in invariants_for("spec").items()}
"""Each spec invariant on readable states (evaluated by the compiled predicate on the encoded state)."""


def rep(log=(), hw=0, epoch=NO_EPOCH, leader=NONE, isr=()) -> Replica:
    """A replica; `log` is a list of (id, epoch) pairs, `isr` a list of replica ids."""
    return Replica(tuple(Record(i, e) for i, e in log), hw, epoch, leader, replica_set(isr))


def q(epoch: int, leader: int, isr) -> LeaderAndIsr:
    return LeaderAndIsr(epoch, leader, replica_set(isr))


def mk(*replicas: Replica, quorum: LeaderAndIsr) -> SpecState:
    reps = tuple(replicas) + (rep(),) * (N - len(replicas))
    return SpecState(reps, 2, (quorum,), quorum)


def leader_state(leader_log, hw, isr_view, quorum_isr=None, others=(), leader_presumes=True) -> SpecState:
    """r0 presumes leadership (epoch 0) with the given log, HW and ISR view; the quorum names r0
    with `quorum_isr` (the view by default); `others` are r1, r2."""
    r0 = rep(leader_log, hw, 0, 0 if leader_presumes else NONE, isr_view)
    return mk(r0, *others, quorum=q(0, 0, isr_view if quorum_isr is None else quorum_isr))


AB = [(0, 0), (1, 0)]  # a@e0, b@e0


# ----- leader-in-isr and leader-in-isr-or-none ----------------------------------------------------


@pytest.mark.parametrize("quorum, in_isr, or_none", [
    pytest.param(q(0, 0, (0, 1)), True, True, id="leader-in-isr"),
    pytest.param(q(0, 2, (2,)), True, True, id="sole-member-leader"),
    pytest.param(q(1, 1, (0, 2)), False, False, id="leader-outside-isr"),
    pytest.param(q(1, 1, ()), False, False, id="leader-with-empty-isr"),
    pytest.param(q(1, NONE, (0, 1)), False, True, id="no-leader"),
    pytest.param(q(1, NONE, ()), False, True, id="no-leader-empty-isr"),
])
def test_leader_in_isr(quorum, in_isr, or_none):
    s = mk(quorum=quorum)
    assert HOLDS["leader-in-isr"](s) is in_isr
    assert HOLDS["leader-in-isr-or-none"](s) is or_none


def test_leader_in_isr_fails_in_initial_state():
    # As written in the specification: no leader counts as a failure (the -or-none form holds).
    s = initial_state(N)
    assert not HOLDS["leader-in-isr"](s)
    assert HOLDS["leader-in-isr-or-none"](s)


# ----- weak-isr -------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", [
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep(AB, 2, 0, 0, (0, 1))]), id="member-holds-all-below-hw"),
    pytest.param(leader_state(AB, 1, (0, 1), others=[rep([(0, 0), (2, 1)], 1, 0, 0)]), id="difference-above-hw"),
    pytest.param(leader_state(AB, 1, (0, 1), others=[rep([(0, 0)], 1, 0, 0)]), id="member-log-ends-at-hw"),
    pytest.param(leader_state(AB, 0, (0, 1), others=[rep()]), id="hw-zero-empty-member"),
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep(AB), rep([(2, 1)])]), id="non-member-differs"),
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep([(2, 1)])], leader_presumes=False), id="no-presumed-leader"),
    pytest.param(mk(rep(AB, 2, 1, 1, (0, 1)), rep([(2, 1)], 2, 1, 0, (0, 1)), quorum=q(1, 1, (1,))),
                 id="non-leader-hw-beyond-and-disagreeing-isr-ignored"),
    pytest.param(leader_state(AB, 2, (0, 1), quorum_isr=(0, 2), others=[rep(AB)]), id="quorum-isr-member-differs"),
])
def test_weak_isr_holds(state):
    assert HOLDS["weak-isr"](state)


@pytest.mark.parametrize("state", [
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep([(0, 0), (2, 1)])]), id="different-record-below-hw"),
    pytest.param(leader_state(AB, 1, (0, 1), others=[rep([(2, 1)])]), id="different-record-at-offset-0"),
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep([(0, 0)])]), id="member-log-shorter-than-hw"),
    pytest.param(leader_state(AB, 1, (0, 1), others=[rep()]), id="member-log-empty"),
    pytest.param(leader_state([(0, 0)], 2, (0, 1), others=[rep(AB)]), id="hw-beyond-leader-log"),
    pytest.param(leader_state([], 1, (0,)), id="hw-beyond-empty-leader-log-self-in-isr"),
    pytest.param(leader_state([], 1, (1,), others=[rep([(0, 0)])]), id="hw-beyond-leader-log-not-in-own-view"),
    pytest.param(leader_state([(0, 0)], 1, (0, 1), others=[rep([(0, 1)])]), id="same-id-other-epoch"),
    # A zombie (r1 presumes leadership in an old epoch) is checked like any presumed leader.
    pytest.param(mk(rep(AB, 0, 1, 0, (0,)), rep(AB, 1, 0, 1, (1, 2)), rep([(2, 0)]), quorum=q(1, 0, (0,))),
                 id="zombie-leader-view"),
])
def test_weak_isr_violated(state):
    assert not HOLDS["weak-isr"](state)


def test_weak_isr_uses_leader_view_not_quorum():
    # r1 differs below r0's HW: outside r0's view, inside the quorum's ISR.
    s = leader_state(AB, 2, (0,), quorum_isr=(0, 1), others=[rep([(0, 0), (2, 1)])])
    assert HOLDS["weak-isr"](s)
    assert not HOLDS["strong-isr"](s)


def test_weak_isr_empty_view_with_hw_beyond_log():
    # WeakIsr quantifies over r2 in rs[r1].isr (docs/models/spec.md and the TLA+ text): with an empty
    # ISR view it holds vacuously, even with the HW past the leader's own log.
    s = leader_state([], 1, ())
    assert HOLDS["weak-isr"](s)


# ----- strong-isr -----------------------------------------------------------------------------------


@pytest.mark.parametrize("state", [
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep(AB, 2, 0, 0)]), id="quorum-isr-holds-all-below-hw"),
    pytest.param(leader_state(AB, 2, (0, 1), quorum_isr=(0,), others=[rep([(2, 1)])]), id="view-member-outside-quorum"),
    pytest.param(leader_state(AB, 1, (0, 1), others=[rep([(0, 0), (2, 1)])]), id="difference-above-hw"),
    pytest.param(leader_state(AB, 0, (0, 1, 2), others=[rep(), rep([(2, 1)])]), id="hw-zero"),
    pytest.param(mk(rep(AB), rep([(2, 1)]), quorum=q(1, NONE, (0, 1))), id="no-presumed-leader"),
    # NONE quorum leader: a presumed leader is still checked against the quorum ISR.
    pytest.param(mk(rep(AB, 2, 0, 0, (0, 1)), rep(AB), quorum=q(1, NONE, (1,))), id="none-quorum-leader-agrees"),
])
def test_strong_isr_holds(state):
    assert HOLDS["strong-isr"](state)


@pytest.mark.parametrize("state", [
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep([(0, 0), (2, 1)])]), id="different-record-below-hw"),
    pytest.param(leader_state(AB, 2, (0, 1), others=[rep([(0, 0)])]), id="member-log-shorter-than-hw"),
    pytest.param(leader_state([(0, 0)], 2, (0, 1), others=[rep(AB)]), id="hw-beyond-leader-log"),
    pytest.param(leader_state(AB, 2, (0,), quorum_isr=(0, 1), others=[rep([(0, 0), (2, 1)])]),
                 id="quorum-member-outside-view"),
    pytest.param(mk(rep(AB, 2, 0, 0, (0, 1)), rep([(2, 1)]), quorum=q(1, NONE, (1,))), id="none-quorum-leader"),
    # Zombie r0 (epoch 0) exposed a@e0, b@e0; the quorum moved to r1 whose log differs.
    pytest.param(mk(rep(AB, 2, 0, 0, (0, 1)), rep([(2, 1)], 0, 1, 1, (1,)), quorum=q(1, 1, (1,))),
                 id="zombie-leader-hw-not-in-new-isr"),
])
def test_strong_isr_violated(state):
    assert not HOLDS["strong-isr"](state)


def test_strong_isr_uses_quorum_isr_not_view():
    s = leader_state(AB, 2, (0, 1), quorum_isr=(0,), others=[rep([(0, 0), (2, 1)])])
    assert HOLDS["strong-isr"](s)
    assert not HOLDS["weak-isr"](s)


def test_strong_isr_empty_quorum_isr_with_hw_beyond_log():
    # As for weak-isr: with an empty quorum ISR StrongIsr quantifies over no r2 and holds.
    s = mk(rep([], 1, 0, 0, (0,)), quorum=q(1, NONE, ()))
    assert HOLDS["strong-isr"](s)


# ----- the registry's entries point at these compiled predicates -------------------------------------------


def test_spec_invariants_by_name():
    by_name = invariants_for("spec")
    assert list(by_name) == ["leader-in-isr", "leader-in-isr-or-none", "weak-isr", "strong-isr"]
    assert by_name["leader-in-isr"].kernel is spec.leader_in_isr
    assert by_name["leader-in-isr-or-none"].kernel is spec.leader_in_isr_or_none
    assert by_name["weak-isr"].kernel is spec.weak_isr
    assert by_name["strong-isr"].kernel is spec.strong_isr


# ----- two-phase: consistent ------------------------------------------------------------------------


def tp(*rm: int, tm: int = 0) -> TwoPhaseState:
    return TwoPhaseState(tuple(rm), tm, 0, 0, 0, 0)


@pytest.mark.parametrize("state, holds", [
    pytest.param(tp(WORKING, WORKING, WORKING), True, id="all-working"),
    pytest.param(tp(COMMITTED, PREPARED, PREPARED, tm=1), True, id="committed-and-prepared"),
    pytest.param(tp(COMMITTED, COMMITTED, COMMITTED, tm=1), True, id="all-committed"),
    pytest.param(tp(ABORTED, WORKING, PREPARED, tm=2), True, id="aborted-and-others"),
    pytest.param(tp(ABORTED, ABORTED, ABORTED, tm=2), True, id="all-aborted"),
    pytest.param(tp(COMMITTED, ABORTED, PREPARED), False, id="committed-and-aborted"),
    pytest.param(tp(PREPARED, ABORTED, WORKING, COMMITTED), False, id="committed-and-aborted-far-apart"),
])
def test_two_phase_consistent(state, holds):
    assert two_phase.consistent(state) is holds
    assert invariants_for("two-phase")["consistent"].holds(state) is holds


# ----- selection by name ----------------------------------------------------------------------------


@pytest.mark.parametrize("model_name", ["spec", "two-phase"])
def test_empty_selection_gives_all(model_name):
    everything = [p for p in invariants_for(model_name).values() if not p.witness and not p.named_only]
    assert select(model_name, []) == everything
    assert select(model_name, ()) == everything


def test_select_keeps_given_order_without_duplicates():
    chosen = select("spec", ["strong-isr", "leader-in-isr", "strong-isr"])
    assert [inv.name for inv in chosen] == ["strong-isr", "leader-in-isr"]
    assert chosen[0].kernel is spec.strong_isr


@pytest.mark.parametrize("model_name, names, bad", [
    ("spec", ["no-such-invariant"], "no-such-invariant"),
    ("spec", ["weak-isr", "Weak-ISR"], "Weak-ISR"),
    ("spec", ["consistent"], "consistent"),  # another model's invariant
    ("two-phase", ["weak-isr"], "weak-isr"),
])
def test_unknown_name_lists_valid_ones(model_name, names, bad):
    with pytest.raises(ModelError) as info:
        select(model_name, names)
    message = str(info.value)
    assert repr(bad) in message
    for valid in invariants_for(model_name):
        assert valid in message
    assert "\n" not in message
