"""Turning a shortest path of fingerprints into a trace, the same way on every engine.

Engines keep only fingerprints of visited states (and, per state, the fingerprint of the
parent it was first reached from). A trace is rebuilt by walking those parent links back to an
initial state and replaying the path through the model: at each step, the successor with the
next fingerprint, reached by the smallest such action.
"""

from __future__ import annotations

from traces.trace import Step, Trace

from .fingerprint import fingerprint
from .model import Model


def trace_from_fingerprints(model: Model, invariant: str, path: list[int]) -> Trace:
    """The trace whose states have fingerprints `path` (initial state first)."""
    initial = next(s for s in model.initial_states() if fingerprint(s) == path[0])
    steps = []
    state = initial
    for target in path[1:]:
        action, state = min(((a, s) for a, s in model.successors(state) if fingerprint(s) == target),
                            key=lambda pair: pair[0])
        steps.append(Step(action, state))
    return Trace(model.name, model.variant, dict(model.parameters()), invariant, initial, tuple(steps))


def trace_ending_with_step(model: Model, name: str, path: list[int], action) -> Trace:
    """The trace along `path` (fingerprints, initial state first) followed by `action` from its
    last state: the counterexample of a step property."""
    trace = trace_from_fingerprints(model, name, path)
    last = trace.states()[-1]
    after = min((s for a, s in model.successors(last) if a == action), key=fingerprint)
    return Trace(trace.model, trace.variant, trace.bounds, name, trace.initial, trace.steps + (Step(action, after),))
