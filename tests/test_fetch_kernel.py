"""The `fetch` model's compiled kernel: its packed rows and the readable `FetchState` view are an
exact bijection, the readable view agrees with the compiled search, elections are a choice,
and symmetry reduction is sound (renaming replicas commutes with every rule and keeps every
verdict)."""

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
from invariants.fetch import STATE_INVARIANTS
from invariants.registry import select
from kernel_walks import Readable, assert_renaming_commutes, by_parts, permuted, random_walk
from model.fetch.kinds import NO_LEADER
from model.fetch.layout import HEADER
from model.registry import build_model
from traces.replay import verify_trace, walk


def reachable_rows(model, levels: int | None = None) -> list[np.ndarray]:
    """Every packed row reachable (within `levels` steps, if given), breadth first, through the
    compiled successors."""
    kernel = model.kernel
    first = kernel.encode(model.initial_states()[0])
    seen, frontier = {first.tobytes()}, [first]
    while frontier and levels != 0:
        levels = None if levels is None else levels - 1
        nxt = []
        for row in frontier:
            for _, succ in kernel.successor_rows(row):
                key = succ.tobytes()
                if key not in seen:
                    seen.add(key)
                    nxt.append(succ)
        frontier = nxt
    return [np.frombuffer(key, np.int8) for key in seen]


SMALL = [  # (variant, ghost, configuration, levels: None for the whole state space)
    ("kip320", True, dict(max_crashes=1), None),
    ("hw", True, dict(acks="1", flush="async", max_crashes=1), None),
    ("kip279", True, dict(flush="async", max_records=1, min_insync_replicas=1), None),
    ("kip101", False, dict(replicas=3, unclean_leader_election=True), 9),
    ("kip966", True, dict(replicas=3, flush="async", log_size=1, max_records=1, max_crashes=2, max_epoch=3), 12),
]


@pytest.mark.parametrize("variant, ghost, config, levels", SMALL,
                         ids=[f"{v}-{'ghost-' if g else ''}{c}" for v, g, c, _ in SMALL])
def test_codec_is_a_bijection_on_every_reachable_state(variant, ghost, config, levels):
    model = build_model("fetch", variant, ghost=ghost, **config)
    kernel = model.kernel
    rows = reachable_rows(model, levels)
    assert len(rows) > 1000
    states = set()
    for row in rows:
        state = kernel.decode(row)
        assert np.array_equal(kernel.encode(state), row)
        assert kernel.decode(kernel.encode(state)) == state
        states.add(state)
    assert len(states) == len(rows)  # distinct rows are distinct readable states


def assert_decoded_view_agrees(model) -> None:
    """The plain search over the model's decoded states finds what its compiled search finds:
    counts, verdicts and trace lengths of every property."""
    invariants = select("fetch", [])
    compiled = explore(model, invariants, stop_at_first=False)
    plain = explore(Readable(model), invariants, stop_at_first=False)
    assert compiled.distinct_states == plain.distinct_states
    assert compiled.generated_states == plain.generated_states
    assert {i: compiled.verdict(i) for i in compiled.invariants} == {i: plain.verdict(i) for i in plain.invariants}
    assert {k: len(t) for k, t in compiled.violations.items()} == {k: len(t) for k, t in plain.violations.items()}


def test_decoded_view_agrees_with_the_compiled_search():
    assert_decoded_view_agrees(build_model("fetch", "hw", ghost=True, max_records=1, max_crashes=1, flush="async"))


def test_ghost_slots_exist_only_with_ghost_on():
    plain = build_model("fetch", "kip320").kernel.layout
    ghost = build_model("fetch", "kip320", ghost=True).kernel.layout
    assert plain.replica_base == HEADER < ghost.replica_base
    assert plain.width < ghost.width


def enabled(model, state, kind):
    return {action for action, _ in model.successors(state) if action[0] == kind}


def test_the_controller_may_elect_any_live_isr_member():
    model = build_model("fetch", "kip320", replicas=3)
    dead_leader = walk(model, [("BecomeLeader", 0, 0), ("Crash", 0)])[-1]
    assert enabled(model, dead_leader, "ControllerNoticeFailure") == {
        ("ControllerNoticeFailure", 0, 1), ("ControllerNoticeFailure", 0, 2)}


def test_unclean_election_may_pick_any_live_replica_and_otherwise_the_partition_goes_offline():
    steps = [("BecomeLeader", 0, 0), ("BecomeFollower", 1, 0, 0), ("BecomeFollower", 2, 0, 0), ("ProducerWrite", 0),
             ("LeaderShrinkIsr", 0, 1), ("LeaderShrinkIsr", 0, 2), ("Crash", 0)]
    unclean = build_model("fetch", "kip320", replicas=3, min_insync_replicas=1, unclean_leader_election=True)
    state = walk(unclean, steps)[-1]
    assert enabled(unclean, state, "ControllerNoticeFailure") == {
        ("ControllerNoticeFailure", 0, 1), ("ControllerNoticeFailure", 0, 2)}
    after = dict(unclean.successors(state))[("ControllerNoticeFailure", 0, 2)]
    assert (after.controller.leader, after.controller.isr) == (2, 0b100)
    clean = build_model("fetch", "kip320", replicas=3, min_insync_replicas=1)
    state = walk(clean, steps)[-1]
    assert enabled(clean, state, "ControllerNoticeFailure") == {("ControllerNoticeFailure", 0, NO_LEADER)}
    assert dict(clean.successors(state))[("ControllerNoticeFailure", 0, NO_LEADER)].controller.leader == -1


FETCH_VARIANTS = VARIANTS + ("kip903", "kafka37", "kip966")
SYMMETRY_MODELS = {v: build_model("fetch", v, ghost=True, replicas=3, max_epoch=3, max_crashes=3, flush="async",
                                  unclean_leader_election=True) for v in FETCH_VARIANTS}
EVERY_INVARIANT = (1 << len(STATE_INVARIANTS)) - 1


@settings(max_examples=80, deadline=None)
@given(variant=st.sampled_from(FETCH_VARIANTS), choices=st.lists(st.integers(0, 1000), max_size=40))
def test_renaming_commutes_with_every_rule_and_keeps_every_verdict(variant, choices):
    model = SYMMETRY_MODELS[variant]
    assert_renaming_commutes(model, random_walk(model, choices), EVERY_INVARIANT)


FOUR_REPLICAS = build_model("fetch", "kip966", replicas=4, min_insync_replicas=2, flush="async", log_size=2,
                            max_records=2, max_crashes=1, max_epoch=3)


@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), min_size=10, max_size=40))
def test_four_replicas_representative_is_the_smallest_of_24_renamings(choices):
    """At four replicas most states tie on the head under two or six renamings, which the search
    compares part by part (`renames_smaller`): it must still pick the smallest renaming."""
    kernel = FOUR_REPLICAS.kernel
    row = random_walk(FOUR_REPLICAS, choices)
    renamings = [by_parts(kernel, row, perm) for perm in itertools.permutations(range(4))]
    assert all(np.array_equal(a, permuted(kernel, row, perm))
               for a, perm in zip(renamings, itertools.permutations(range(4))))
    best = Reducer(kernel, permutations(4, True)).representative(row)
    assert tuple(best) == min(tuple(renamed) for renamed in renamings)


KIP966_STORY = dict(replicas=3, min_insync_replicas=2, flush="async", log_size=1, max_records=1, max_crashes=1,
                    max_epoch=3)
"""The bounds at which KIP-966's Last Replica Standing story plays out before Kafka 3.7 (a second
record shows it under kafka37)."""

SYMMETRY_OUTCOMES = [
    ("committed-survives", "hw", {}),
    ("no-divergence", "kip101", {"flush": "async"}),
    ("hw-monotonic", "kip320", {"replicas": 3, "max_crashes": 1}),  # at 2 replicas it holds from kip320 on
    ("acked-survives", "kip279", {"acks": "1"}),
    ("committed-survives", "kip320", {"unclean_leader_election": True}),
    ("committed-survives", "kip903", {"unclean_leader_election": True}),  # the shrink's new leader epoch
    ("acked-survives", "kip320", {"flush": "async"}),
    ("committed-survives", "kafka37", dict(KIP966_STORY, log_size=2, max_records=2)),
    ("hw-monotonic", "kip966", dict(KIP966_STORY)),
]


@pytest.mark.parametrize("invariant, variant, config", SYMMETRY_OUTCOMES,
                         ids=[f"{v}-{i}-{c}" for i, v, c in SYMMETRY_OUTCOMES])
def test_symmetry_keeps_shortest_traces(invariant, variant, config):
    invariants = select("fetch", [invariant])
    model = build_model("fetch", variant, ghost=any(i.needs_ghost for i in invariants), **config)
    full = explore(model, invariants)
    reduced = explore(model, invariants, symmetry=True)
    assert reduced.symmetry and not full.symmetry
    assert len(reduced.violations[invariant]) == len(full.violations[invariant])
    verify_trace(reduced.violations[invariant], model)  # un-permuted: a real behaviour of the model


@pytest.mark.parametrize("variant, config", [("hw", dict(replicas=3, max_records=1, max_crashes=1)), ("kip320", {}),
                                             ("kip320", dict(replicas=3, max_records=1, max_crashes=1))])
def test_symmetry_keeps_every_verdict(variant, config):
    """kip320 keeps every invariant at the defaults; at three replicas it fails hw-monotonic, so
    its trace lengths are compared too. hw has a preferred replica, which renamings move with the
    others: at three replicas its verdicts and trace lengths are kept too."""
    model = build_model("fetch", variant, ghost=True, **config)
    invariants = select("fetch", [])
    full = explore(model, invariants, stop_at_first=False)
    reduced = explore(model, invariants, stop_at_first=False, symmetry=True)
    assert reduced.distinct_states < full.distinct_states
    assert reduced.depth <= full.depth  # r1 leads first, so a renamed state may be reached sooner
    assert {i: reduced.verdict(i) for i in reduced.invariants} == {i: full.verdict(i) for i in full.invariants}
    assert {k: len(t) for k, t in reduced.violations.items()} == {k: len(t) for k, t in full.violations.items()}
    for trace in reduced.violations.values():
        verify_trace(trace, model)


def test_a_preferred_replica_leaves_two_replicas_nothing_to_rename():
    """Under rule preferred-replica=rebalanced the preferred replica is part of the state: at two
    replicas the only renaming swaps it with the other replica, which no reachable state allows,
    so symmetry reduction stores every state (as a search that fixes the preferred replica would);
    without it the same bounds reduce."""
    invariants = select("fetch", ["committed-survives"])
    for variant, reduces in (("kip279", False), ("kip279+preferred-replica=left-out", True)):
        model = build_model("fetch", variant, ghost=True, max_records=1, max_crashes=1)
        full = explore(model, invariants, stop_at_first=False)
        reduced = explore(model, invariants, stop_at_first=False, symmetry=True)
        assert (reduced.distinct_states < full.distinct_states) == reduces, variant
