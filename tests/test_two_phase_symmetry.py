"""Symmetry reduction on the plain search path: two-phase commit's resource managers are
interchangeable, and the reduced search counts exactly the orbits of the reachable states."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.invariant import StepProperty
from checker.local import explore
from invariants.registry import select
from model.registry import build_model
from model.two_phase.symmetry import renamed, representative


def reachable(model) -> set:
    """Every reachable state, without any reduction."""
    seen = set(model.initial_states())
    frontier = list(seen)
    while frontier:
        following = []
        for state in frontier:
            for _, succ in model.successors(state):
                if succ not in seen:
                    seen.add(succ)
                    following.append(succ)
        frontier = following
    return seen


@pytest.mark.parametrize("rms", [2, 3, 4, 5])
def test_reduced_search_counts_the_orbits(rms):
    # The oracle renames RMs by every permutation explicitly (no sorting trick).
    model = build_model("two-phase", rms=rms)
    orbits = {min(renamed(s, perm) for perm in itertools.permutations(range(rms))) for s in reachable(model)}
    result = explore(model, select("two-phase", []), stop_at_first=False, symmetry=True)
    assert result.symmetry and result.complete
    assert result.distinct_states == len(orbits)


MODEL = build_model("two-phase", rms=4)


@settings(max_examples=80, deadline=None)
@given(choices=st.lists(st.integers(0, 100), max_size=12), perm=st.permutations(range(4)))
def test_renaming_commutes_with_every_step(choices, perm):
    state = MODEL.initial_states()[0]
    for pick in choices:
        steps = list(MODEL.successors(state))
        if not steps:
            break
        state = steps[pick % len(steps)][1]
    other = renamed(state, perm)
    assert representative(other) == representative(state)
    assert {t for _, t in MODEL.successors(other)} == {renamed(t, perm) for _, t in MODEL.successors(state)}


def test_symmetry_keeps_verdicts_and_real_traces():
    commit = StepProperty("never-commits", "no TMCommit step", lambda s, a, t: a[0] != "TMCommit")
    aborted = select("two-phase", [])
    full = explore(MODEL, [commit, *aborted], stop_at_first=False)
    reduced = explore(MODEL, [commit, *aborted], stop_at_first=False, symmetry=True)
    assert reduced.distinct_states < full.distinct_states
    assert {n: reduced.verdict(n) for n in reduced.invariants} == {n: full.verdict(n) for n in full.invariants}
    trace = reduced.violations["never-commits"]
    assert len(trace) == len(full.violations["never-commits"])
    state = trace.initial
    for step in trace.steps:  # a real behaviour of the model, step by step
        assert (step.action, step.state) in set(MODEL.successors(state))
        state = step.state
    assert trace.steps[-1].action == ("TMCommit",)
