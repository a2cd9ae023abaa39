"""The shortest behaviour that tells two variants apart, found by checking their product.

Both variants start from their initial states and take the same events, an event being an
action value (`("BecomeFollower", 1, 0, 2)`: r2 becomes follower of r1 in epoch 2). `PairModel`
is that product as a model of its own: its states are pairs of packed rows, and a pair steps by
every event enabled in both variants. An event only one variant allows (a follower that waits
for its leader's epoch under KIP-320) cannot be part of a behaviour both have, so a pair never
takes it; a pair in which the property fails under B has no successors, since B must hold it
all along. Checking the product for "the property holds under A" with either engine's
breadth-first search then gives the shortest behaviour after which the property fails under A
while it has held at every step under B; a complete search without one shows the variants
indistinguishable by that property at these bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from traces.trace import Step, Trace

from .invariant import Invariant, StepProperty


@dataclass
class Distinction:
    """What the search of the product found: the behaviour (as each variant's trace of the same
    events), or None; how many pairs it stored, its depth, its seconds, and whether it was
    complete."""

    first: Trace | None
    second: Trace | None
    pairs: int
    depth: int
    seconds: float
    complete: bool


class PairModel:
    """Two variants of one model (each with a compiled kernel) stepped together by shared events;
    `prop` prunes the pairs in which it fails under the second variant."""

    def __init__(self, first, second, prop):
        self.first, self.second, self.prop = first, second, prop
        self.name, self.variant = first.name, f"{first.variant}-vs-{second.variant}"
        self.width = first.kernel.width
        self.step_prop = isinstance(prop, StepProperty)

    def parameters(self) -> dict:
        """The bounds both variants run under."""
        return self.first.parameters()

    def action_kinds(self) -> tuple[str, ...]:
        """The events' kinds: the model's action kinds."""
        return self.first.kernel.action_kinds

    def initial_states(self) -> list[tuple]:
        """The pair of the two variants' initial states."""
        return [tuple(_row(m) for m in (self.first, self.second))]

    def successors(self, pair: tuple) -> list[tuple[tuple, tuple]]:
        """Every event enabled under both variants, with the pair it leads to, unless the
        property fails under the second variant there."""
        before = [np.array(side, np.int8) for side in pair]
        left, right = (dict(m.kernel.successor_rows(row)) for m, row in zip((self.first, self.second), before))
        steps = []
        for code in sorted(left.keys() & right.keys()):
            if self._fails(self.second, before[1], code, right[code]):
                continue
            after = (tuple(left[code].tolist()), tuple(right[code].tolist()))
            steps.append((self.first.kernel.action_value(code), after))
        return steps

    def first_holds(self, pair: tuple) -> bool:
        """The property holds under the first variant in this pair (a state invariant)."""
        row = np.array(pair[0], np.int8)
        return not self._mask_fails(self.first, row)

    def first_step_holds(self, before: tuple, action: tuple, after: tuple) -> bool:
        """The first variant's step keeps the property (a step property)."""
        row = np.array(before[0], np.int8)
        steps = dict((self.first.kernel.action_value(c), (c, r)) for c, r in self.first.kernel.successor_rows(row))
        c, nxt = steps[action]
        return not self._fails(self.first, row, c, nxt)

    def encode(self, pair: tuple) -> bytes:
        """Both packed rows, one after the other."""
        return np.array(pair[0] + pair[1], np.int8).tobytes()

    def decode(self, data: bytes) -> tuple:
        """The pair `encode` wrote."""
        values = np.frombuffer(data, np.int8).tolist()
        return tuple(values[:self.width]), tuple(values[self.width:])

    def _mask_fails(self, model, row) -> bool:
        names = model.kernel.invariant_names
        return bool(model.kernel.search.violations(row, model.kernel.layout, 1 << names.index(self.prop.name)))

    def _fails(self, model, before, code, after) -> bool:
        """The property fails at this step of `model` (a step property) or in the state it reaches."""
        if self.step_prop:
            names = model.kernel.step_property_names
            mask = 1 << names.index(self.prop.name)
            return bool(model.kernel.search.broken_steps(before, code, after, model.kernel.layout, mask))
        return self._mask_fails(model, after)

    def property(self):
        """The property the product is checked for: it holds under the first variant."""
        if self.step_prop:
            return StepProperty(self.prop.name, self.prop.summary, self.first_step_holds, symmetric=False)
        return Invariant(self.prop.name, self.prop.summary, self.first_holds, symmetric=False)

    def traces(self, trace: Trace) -> tuple[Trace, Trace]:
        """A trace of pairs as the two variants' traces of the same events."""
        out = []
        for i, model in enumerate((self.first, self.second)):
            decode = model.kernel.decode
            states = [decode(np.array(pair[i], np.int8)) for pair in trace.states()]
            out.append(Trace(model.name, model.variant, dict(model.parameters()), self.prop.name, states[0],
                             tuple(Step(step.action, state) for step, state in zip(trace.steps, states[1:]))))
        return out[0], out[1]


def _row(model) -> tuple:
    return tuple(model.kernel.encode(model.initial_states()[0]).tolist())


def distinguish(explore, first_model, second_model, prop) -> Distinction:
    """The shortest behaviour, possible under both models, after which `prop` fails under the
    first and has held all along under the second (module docstring), searched with `explore`
    (an engine's explore function)."""
    pair = PairModel(first_model, second_model, prop)
    (start,) = pair.initial_states()
    if not pair.step_prop and pair._mask_fails(second_model, np.array(start[1], np.int8)):
        return Distinction(None, None, 1, 0, 0.0, True)  # B fails from the start: nothing holds all along
    result = explore(pair, [pair.property()], stop_at_first=True)
    found = result.violations.get(prop.name)
    first, second = pair.traces(found) if found is not None else (None, None)
    return Distinction(first, second, result.distinct_states, result.depth, result.seconds,
                       result.complete and found is None)


def first_difference(first: Trace, second: Trace) -> int | None:
    """The first step after which the two variants' states differ (0: the initial states),
    None when they never do."""
    states = zip(first.states(), second.states())
    return next((k for k, (x, y) in enumerate(states) if x != y), None)
