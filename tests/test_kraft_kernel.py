"""Every variant of the `kraft` model runs on a compiled kernel (`tla`'s and the faithful
variants'): the readable view decoded from it is a bijection with the packed rows, the compiled
search and the plain search over decoded states (with a readable symmetry written apart,
`kraft_renaming`) find the same states, levels and verdicts, renaming voters commutes with every
rule, and each readable action names the message its step handled."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.local import explore
from invariants.kraft import INVARIANTS
from kernel_walks import Readable, assert_bijection, assert_renaming_commutes, random_walk, reachable
from kraft_renaming import representative
from model.kraft import messages as msg
from model.registry import build_model

BOUNDS = [("tla", 3, 1, 1, 0, 0), ("tla", 2, 1, 2, 1, 0), ("tla", 2, 2, 2, 0, 0), ("kip595", 3, 1, 1, 0, 0),
          ("kafka39", 2, 1, 2, 1, 0), ("kip853", 2, 1, 1, 1, 1)]
"""Variant, voters, values, elections, restarts, lost disks: 10,468, 11,169, 8,076, 23,080, 12,996 and 4,508 states."""


def kraft(variant, replicas, values, elections, restarts, disk_losses=0):
    return build_model("kraft", variant, replicas=replicas, max_records=values, max_elections=elections,
                       max_restarts=restarts, max_disk_losses=disk_losses)


def tla(replicas, values, elections, restarts):
    return kraft("tla", replicas, values, elections, restarts)


@pytest.mark.parametrize("bounds", BOUNDS, ids=lambda b: "/".join(map(str, b)))
def test_decoded_view_agrees_with_the_kernel_on_every_state(bounds):
    model = kraft(*bounds)
    kernel = model.kernel
    states = reachable(model)
    assert_bijection(kernel, states)
    invariants = [p for p in INVARIANTS if p.name != "hw-never-goes-back"]
    for symmetry in (False, True):
        compiled = explore(model, invariants, stop_at_first=False, symmetry=symmetry)
        plain = explore(Readable(model, representative), invariants, stop_at_first=False, symmetry=symmetry)
        assert compiled.distinct_states == plain.distinct_states
        assert compiled.generated_states == plain.generated_states
        assert [lv.new_states for lv in compiled.levels] == [lv.new_states for lv in plain.levels]
        assert {i: compiled.verdict(i) for i in compiled.invariants} == {i: plain.verdict(i) for i in plain.invariants}
        assert {k: len(t) for k, t in compiled.violations.items()} == {k: len(t) for k, t in plain.violations.items()}
    assert explore(model, invariants, stop_at_first=False).distinct_states == len(states)


RENAMING_MODEL = tla(3, 2, 2, 1)
FAITHFUL_RENAMING_MODELS = [kraft("kip595", 3, 2, 2, 1, 1), kraft("kip853", 3, 1, 2, 1, 1)]


@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=40))
def test_renaming_commutes_with_every_rule(choices):
    assert_renaming_commutes(RENAMING_MODEL, random_walk(RENAMING_MODEL, choices), 0b1111)


@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=50), which=st.integers(0, 1))
def test_renaming_commutes_with_every_faithful_rule(choices, which):
    model = FAITHFUL_RENAMING_MODELS[which]
    assert_renaming_commutes(model, random_walk(model, choices), 0b1111)


@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=40))
def test_a_handling_step_names_the_message_it_handled(choices):
    """A step that handles a message is read as (action, receiver, sender, epoch): one copy of a
    message from that sender to that receiver in that epoch is gone after it."""
    model = RENAMING_MODEL
    state = model.kernel.decode(random_walk(model, choices))
    for action, after in model.successors(state):
        if len(action) != 4:
            continue
        before, later = dict(state.messages), dict(after.messages)
        handled = [m for m, c in before.items() if later.get(m, 0) < c]
        assert len(handled) == 1, action
        m = handled[0]
        assert (msg.dest(m), msg.source(m), msg.epoch(m)) == action[1:], action


def test_a_bag_too_small_for_a_behaviour_is_an_error_not_a_lost_state():
    """The bag is sized by the bounds (`bag_capacity`); a layout with less room makes the step
    that would overflow it fail loudly, never drop the message."""
    from model.kraft.tla import codec
    from model.kraft.tla.layout import tla_layout

    model = tla(3, 1, 1, 0)
    small = tla_layout(3, 1, 1, 0, capacity=2)
    row = codec.encode(model.initial_states()[0], small)
    out = np.zeros((64, small.width), np.int8)
    acts, tally = np.zeros(64, np.int64), np.zeros(1, np.int64)
    first = model.kernel.search.successors(row, small, out, acts, tally)
    assert first == 3  # each voter's RequestVote sends 2 messages: room for exactly that
    with pytest.raises(OverflowError):
        model.kernel.search.successors(out[0].copy(), small, out, acts, tally)


def test_a_bag_overflow_in_a_search_is_a_one_line_error(monkeypatch):
    from conftest import run_cli, without_compile_notices
    from model.kraft.tla import layout

    monkeypatch.setattr(layout, "bag_capacity", lambda *bounds: 3)
    result = run_cli("check", "--engine", "local", "--model", "kraft", "--variant", "tla")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert without_compile_notices(result.stderr) == [
        "Error: a state did not fit the packed layout its bounds sized (the kraft message bag outgrew its layout): "
        "a replcheck bug, please report the command"]
