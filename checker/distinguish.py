"""The shortest behaviour that tells two variants apart.

Both variants start from their initial states and take the same events, an event being an
action value (`("BecomeFollower", 1, 0, 2)`: r2 becomes follower of r1 in epoch 2). A pair of
states steps by every event enabled in both: an event only one variant allows (a FETCH that
KIP-320 refuses to serve, a follower that waits for its leader's epoch) cannot be part of a
behaviour both variants have. The search is breadth first over pairs, so the first pair in
which the property fails under A and holds under B, with B holding it all along, ends the
shortest such behaviour. A search that ends without one shows the variants indistinguishable
by that property at these bounds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from .invariant import StepProperty
from traces.trace import Step, Trace


@dataclass
class Distinction:
    """What the pair search found: the behaviour (as each variant's trace of the same events),
    or None; how many pairs it stored, its depth, its seconds, and whether it was complete."""

    first: Trace | None
    second: Trace | None
    pairs: int
    depth: int
    seconds: float
    complete: bool


class _Side:
    """One variant's model, stepped by events on packed rows (or readable states without a
    kernel), with the property asked of each state or step."""

    def __init__(self, model, prop):
        self.model, self.prop = model, prop
        self.kernel = getattr(model, "kernel", None)
        self.step_prop = isinstance(prop, StepProperty)

    def initial(self):
        state = self.model.initial_states()[0]
        return self.kernel.encode(state) if self.kernel is not None else state

    def key(self, state):
        return state.tobytes() if self.kernel is not None else state

    def steps(self, state) -> dict:
        """Every enabled event and the state it leads to."""
        if self.kernel is not None:
            return {self.kernel.action_value(code): row for code, row in self.kernel.successor_rows(state)}
        return dict(self.model.successors(state))

    def readable(self, state):
        return self.kernel.decode(state) if self.kernel is not None else state

    def fails(self, before, event, after) -> bool:
        """The property fails at this step (a step property) or in the state it reaches."""
        if self.step_prop:
            return before is not None and not self.prop.holds(self.readable(before), event, self.readable(after))
        return not self.prop.holds(self.readable(after))


def distinguish(first_model, second_model, prop, *, max_depth: int | None = None,
                on_level: Callable[[int, int], None] | None = None) -> Distinction:
    """The shortest behaviour, possible under both models, after which `prop` fails under the
    first and has held all along under the second (module docstring); `on_level(depth,
    pairs)` after each BFS level."""
    started = time.monotonic()
    a, b = _Side(first_model, prop), _Side(second_model, prop)
    start = (a.initial(), b.initial())
    if not b.fails(None, None, start[1]) and a.fails(None, None, start[0]):
        return _found(a, b, [start], [], 1, 0, started)
    if b.fails(None, None, start[1]):
        return Distinction(None, None, 1, 0, time.monotonic() - started, True)
    seen = {(a.key(start[0]), b.key(start[1])): None}
    parents, frontier, depth = {}, [start], 0
    while frontier and (max_depth is None or depth < max_depth):
        depth += 1
        nxt = []
        for pair in frontier:
            left, right = a.steps(pair[0]), b.steps(pair[1])
            for event in sorted(set(left) & set(right)):
                after = (left[event], right[event])
                key = (a.key(after[0]), b.key(after[1]))
                if key in seen or b.fails(pair[1], event, after[1]):
                    continue
                seen[key] = None
                parents[key] = (pair, event)
                if a.fails(pair[0], event, after[0]):
                    return _found(a, b, *_path(a, b, parents, after), len(seen), depth, started)
                nxt.append(after)
        frontier = nxt
        if on_level is not None:
            on_level(depth, len(seen))
    return Distinction(None, None, len(seen), depth, time.monotonic() - started, not frontier)


def _path(a: _Side, b: _Side, parents: dict, end) -> tuple[list, list]:
    """The pairs from the initial pair to `end`, and the events between them."""
    pairs, events = [end], []
    key = (a.key(end[0]), b.key(end[1]))
    while key in parents:
        pair, event = parents[key]
        pairs.append(pair)
        events.append(event)
        key = (a.key(pair[0]), b.key(pair[1]))
    return pairs[::-1], events[::-1]


def _found(a: _Side, b: _Side, pairs: list, events: list, stored: int, depth: int, started: float) -> Distinction:
    """The distinction made of these pairs and events."""
    traces = []
    for i, side in enumerate((a, b)):
        model = side.model
        states = [side.readable(pair[i]) for pair in pairs]
        traces.append(Trace(model.name, model.variant, dict(model.parameters()), side.prop.name, states[0],
                            tuple(Step(event, state) for event, state in zip(events, states[1:]))))
    return Distinction(traces[0], traces[1], stored, depth, time.monotonic() - started, False)


def first_difference(first: Trace, second: Trace) -> int | None:
    """The first step after which the two variants' states differ (0: the initial states),
    None when they never do."""
    states = zip(first.states(), second.states())
    return next((k for k, (x, y) in enumerate(states) if x != y), None)
