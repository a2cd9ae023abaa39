"""Checking that a trace is a real behaviour of its model and really violates its invariant (or
reaches its witness)."""

from __future__ import annotations

from checker.invariant import StepProperty
from invariants.registry import invariants_for

from .trace import Trace


class ReplayError(AssertionError):
    """The trace does not replay; the message names the first step that fails."""


def verify_trace(trace: Trace, model) -> None:
    """Replay `trace` through `model`: the initial state must be one of the model's, each
    step's state must be a successor of the previous state under the step's action, and the
    last state (for a step property: the last step) must violate the trace's property (reach
    it, for a witness), no earlier one. Raises ReplayError."""
    failed = trace.first_unreplayed(model)
    if failed == 0:
        raise ReplayError("the initial state is not an initial state of the model")
    if failed is not None:
        step = trace.steps[failed - 1]
        raise ReplayError(f"step {failed} ({step.action[0]}) is not a successor of step {failed - 1} under that action")
    prop = invariants_for(trace.model)[trace.invariant]
    states = trace.states()
    if isinstance(prop, StepProperty):
        broken = [i for i, step in enumerate(trace.steps, 1) if not prop.holds(states[i - 1], step.action, step.state)]
        what = "step"
    else:
        broken = [i for i, s in enumerate(states) if not prop.holds(s)]
        what = "state"
    violate, fails = ("reach", "is already reached") if prop.witness else ("violate", "already fails")
    if not broken or broken[-1] != len(states) - 1:
        raise ReplayError(f"the last {what} does not {violate} {trace.invariant}")
    if len(broken) > 1:
        raise ReplayError(f"{trace.invariant} {fails} at step {broken[0]}: the trace is not minimal")


def _taken(model, state, actions):
    """(action, state before, state after) for each of `actions` taken one after another from
    `state`, as long as each is enabled (the first successor under that action)."""
    for action in actions:
        after = next((s for label, s in model.successors(state) if label == tuple(action)), None)
        if after is None:
            return
        yield tuple(action), state, after
        state = after


def walk(model, actions: list[tuple]) -> list:
    """The states met by taking `actions` one after another from the model's (first) initial
    state. Raises ReplayError naming the first action that is not enabled (a guided replay)."""
    states = [model.initial_states()[0]]
    states += [after for _, _, after in _taken(model, states[0], actions)]
    if len(states) <= len(actions):
        i = len(states)
        enabled = sorted({label for label, _ in model.successors(states[-1])})
        raise ReplayError(f"step {i}: {actions[i - 1]} is not enabled; enabled: {enabled}")
    return states


def violation_along(model, prop, initial, actions: list[tuple]) -> int | None:
    """How many of `actions`, taken from `initial` under `model`'s rules, it takes to violate
    `prop` (an invariant, on the state reached; a step property, on the step taken): 0 when
    `initial` already violates it. None when `initial` is not one of the model's initial states,
    an action is not enabled before the violation, or no violation comes. A counterexample found
    under one rule set is a behaviour of another exactly when this is not None."""
    if initial not in model.initial_states():
        return None
    if not isinstance(prop, StepProperty) and not prop.holds(initial):
        return 0
    for i, (action, before, after) in enumerate(_taken(model, initial, actions), 1):
        if not (prop.holds(before, action, after) if isinstance(prop, StepProperty) else prop.holds(after)):
            return i
    return None
