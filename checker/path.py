"""Turning a shortest path of states into a trace, the same way on every engine."""

from __future__ import annotations

from traces.trace import Step, Trace

from .model import Action, Model, State


def step_action(model: Model, before: State, after: State) -> Action:
    """The action that leads from `before` to `after`; when several do, the smallest, which is
    the one every engine records as the chosen route."""
    actions = [action for action, state in model.successors(before) if state == after]
    if not actions:
        raise ValueError("no action of the model leads from one trace state to the next")
    return min(actions)


def trace_from_path(model: Model, invariant: str, path: list[State]) -> Trace:
    """A trace along `path` (initial state first, violating state last)."""
    steps = tuple(Step(step_action(model, before, after), after) for before, after in zip(path, path[1:]))
    return Trace(model.name, model.variant, dict(model.parameters()), invariant, path[0], steps)
