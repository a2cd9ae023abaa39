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


def trace_from_fingerprints(model: Model, invariant: str, path: list[int], key=fingerprint) -> Trace:
    """The trace whose states have fingerprints `path` (initial state first). `key` is the
    fingerprint the engine stored for a state: with symmetry reduction, its orbit
    representative's, and the trace is then a real behaviour that passes through those orbits."""
    initial = next(s for s in model.initial_states() if key(s) == path[0])
    steps = []
    state = initial
    for target in path[1:]:
        action, state = min(((a, s) for a, s in model.successors(state) if key(s) == target),
                            key=lambda pair: pair[0])
        steps.append(Step(action, state))
    return Trace(model.name, model.variant, dict(model.parameters()), invariant, initial, tuple(steps))


def trace_ending_with_step(model: Model, prop, path: list[int], key=fingerprint) -> Trace:
    """The trace along `path` (fingerprints, initial state first) followed by the smallest step
    from its last state that breaks step property `prop`: its counterexample. (The engines
    record the smallest breaking step of that state, so without symmetry this is that step.)"""
    trace = trace_from_fingerprints(model, prop.name, path, key)
    last = trace.states()[-1]
    action, after = min(((a, s) for a, s in model.successors(last) if not prop.holds(last, a, s)),
                        key=lambda pair: (pair[0], fingerprint(pair[1])))
    return Trace(trace.model, trace.variant, trace.bounds, prop.name, trace.initial,
                 trace.steps + (Step(action, after),))
