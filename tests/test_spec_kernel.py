"""The `spec` model's compiled kernel and the readable view derived from it agree, and its
symmetry reduction is sound: renaming replicas commutes with every rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.kernel.symmetry import permutations
from checker.kernel.traces import Reducer
from checker.local import explore
from conftest import VARIANTS
from invariants.registry import invariants_for, select
from kernel_walks import Readable, assert_bijection, permuted, random_walk, reachable
from model.registry import build_model
from traces.replay import verify_trace


BOUNDS = [(2, 1, 1, 1), (2, 2, 2, 2), (3, 1, 1, 1)]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bounds", BOUNDS, ids=lambda b: "/".join(map(str, b)))
def test_decoded_view_agrees_with_the_kernel_on_every_state(variant, bounds):
    r, l, m, e = bounds
    model = build_model("spec", variant, replicas=r, log_size=l, max_records=m, max_epoch=e)
    kernel = model.kernel
    states = reachable(model)
    assert_bijection(kernel, states)
    invariants = list(invariants_for("spec").values())
    compiled = explore(model, invariants, stop_at_first=False)
    plain = explore(Readable(model), invariants, stop_at_first=False)
    assert compiled.distinct_states == plain.distinct_states == len(states)
    assert compiled.generated_states == plain.generated_states
    assert [lv.new_states for lv in compiled.levels] == [lv.new_states for lv in plain.levels]
    assert {i: compiled.verdict(i) for i in compiled.invariants} == {i: plain.verdict(i) for i in plain.invariants}
    assert {k: len(t) for k, t in compiled.violations.items()} == {k: len(t) for k, t in plain.violations.items()}


SYMMETRY_MODELS = {v: build_model("spec", v, replicas=3, log_size=2, max_records=2, max_epoch=2) for v in VARIANTS}


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(VARIANTS), choices=st.lists(st.integers(0, 1000), max_size=30))
def test_renaming_commutes_with_every_rule(variant, choices):
    model = SYMMETRY_MODELS[variant]
    kernel = model.kernel
    reducer = Reducer(kernel, permutations(3, True))
    row = random_walk(model, choices)
    canonical = reducer.representative(row)
    successors = [t for _, t in kernel.successor_rows(row)]
    for perm in itertools.permutations(range(3)):
        other = permuted(kernel, row, perm)
        assert np.array_equal(reducer.representative(other), canonical), "the orbit has two representatives"
        assert sorted(bytes(t) for _, t in kernel.successor_rows(other)) == \
            sorted(bytes(permuted(kernel, t, perm)) for t in successors), "a rule prefers some replica id"


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_symmetry_keeps_verdicts_and_trace_lengths(variant):
    model = SYMMETRY_MODELS[variant]
    invariants = select("spec", ["strong-isr", "weak-isr", "leader-in-isr-or-none"])
    full = explore(model, invariants, stop_at_first=False)
    reduced = explore(model, invariants, stop_at_first=False, symmetry=True)
    assert reduced.symmetry and not full.symmetry
    assert reduced.distinct_states < full.distinct_states
    assert reduced.depth == full.depth
    assert {i: reduced.verdict(i) for i in reduced.invariants} == {i: full.verdict(i) for i in full.invariants}
    assert {k: len(t) for k, t in reduced.violations.items()} == {k: len(t) for k, t in full.violations.items()}
    for trace in reduced.violations.values():
        verify_trace(trace, model)  # un-permuted: a real behaviour of the model
