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


class _KernelSide:
    """One variant with a compiled kernel, as the product steps it: packed rows as tuples, its
    events by action code (the same codes in every variant of one model), the property asked of
    the kernel."""

    def __init__(self, model, prop):
        self.model, self.prop, self.kernel = model, prop, model.kernel

    def initial(self) -> tuple:
        return tuple(self.kernel.encode(self.model.initial_states()[0]).tolist())

    def steps(self, state: tuple) -> dict:
        """Action code -> the packed row it leads to."""
        return dict(self.kernel.successor_rows(np.array(state, np.int8)))

    def event(self, state: tuple, code):
        """The action value of an action code taken from `state`."""
        return self.kernel.action_value(code, np.array(state, np.int8))

    def find(self, state: tuple, action: tuple):
        """(code, row) of the step `action` takes from `state`."""
        row = np.array(state, np.int8)
        return next((c, nxt) for c, nxt in self.kernel.successor_rows(row) if self.kernel.action_value(c, row) == action)

    def fails(self, before: tuple, code, row) -> bool:
        """The property fails at this step (a step property) or in the row it reaches."""
        if isinstance(self.prop, StepProperty):
            mask = 1 << self.kernel.step_property_names.index(self.prop.name)
            return bool(self.kernel.search.broken_steps(np.array(before, np.int8), code, row, self.kernel.layout, mask))
        return self.fails_in(row)

    def fails_in(self, state) -> bool:
        mask = 1 << self.kernel.invariant_names.index(self.prop.name)
        return bool(self.kernel.search.violations(np.asarray(state, np.int8), self.kernel.layout, mask))

    @staticmethod
    def state(row) -> tuple:
        return tuple(row.tolist())

    def readable(self, state: tuple):
        return self.kernel.decode(np.array(state, np.int8))

    def encode(self, state: tuple) -> bytes:
        return np.array(state, np.int8).tobytes()

    def decode(self, data: bytes) -> tuple:
        return tuple(np.frombuffer(data, np.int8).tolist())


class _PythonSide:
    """One variant of a model without a kernel (its readable states are what it steps): its
    events by action, the property asked of its predicate."""

    def __init__(self, model, prop):
        self.model, self.prop = model, prop

    def initial(self):
        return self.model.initial_states()[0]

    def steps(self, state) -> dict:
        """Action -> the state it leads to."""
        return dict(self.model.successors(state))

    @staticmethod
    def event(state, action):
        return action

    def find(self, state, action):
        """(action, the state it leads to) from `state`."""
        return action, self.steps(state)[action]

    def fails(self, before, action, after) -> bool:
        if isinstance(self.prop, StepProperty):
            return not self.prop.holds(before, action, after)
        return self.fails_in(after)

    def fails_in(self, state) -> bool:
        return not self.prop.holds(state)

    @staticmethod
    def state(after):
        return after

    def readable(self, state):
        return state

    def encode(self, state) -> bytes:
        return self.model.encode(state)

    def decode(self, data: bytes):
        return self.model.decode(data)


def _sides(first, second, prop) -> tuple:
    """Both variants stepped by their compiled kernels, whose action codes are the shared events,
    when both have the same one (variants of one rule book); otherwise both by their readable
    successors, whose action values are (a code means one action only within one kernel)."""
    kernels = [getattr(model, "kernel", None) for model in (first, second)]
    if None not in kernels and kernels[0].module == kernels[1].module:
        return _KernelSide(first, prop), _KernelSide(second, prop)
    return _PythonSide(first, prop), _PythonSide(second, prop)


class PairModel:
    """Two variants of one model stepped together by shared events (each by its compiled kernel
    where it has one, else by its own successors); `prop` prunes the pairs in which it fails
    under the second variant."""

    def __init__(self, first, second, prop):
        self.first, self.second, self.prop = first, second, prop
        self.name, self.variant = first.name, f"{first.variant}-vs-{second.variant}"
        self.sides = _sides(first, second, prop)
        self.step_prop = isinstance(prop, StepProperty)

    def parameters(self) -> dict:
        """The bounds both variants run under."""
        return self.first.parameters()

    def action_kinds(self) -> tuple[str, ...]:
        """The events' kinds: the model's action kinds."""
        return self.first.action_kinds()

    def initial_states(self) -> list[tuple]:
        """The pair of the two variants' initial states."""
        return [tuple(side.initial() for side in self.sides)]

    def successors(self, pair: tuple) -> list[tuple[tuple, tuple]]:
        """Every event enabled under both variants, with the pair it leads to, unless the
        property fails under the second variant there."""
        a, b = self.sides
        left, right = a.steps(pair[0]), b.steps(pair[1])
        steps = []
        for key in sorted(left.keys() & right.keys()):
            if b.fails(pair[1], key, right[key]):
                continue
            steps.append((a.event(pair[0], key), (a.state(left[key]), b.state(right[key]))))
        return steps

    def first_holds(self, pair: tuple) -> bool:
        """The property holds under the first variant in this pair (a state invariant)."""
        return not self.sides[0].fails_in(pair[0])

    def first_step_holds(self, before: tuple, action: tuple, after: tuple) -> bool:
        """The first variant's step keeps the property (a step property)."""
        side = self.sides[0]
        return not side.fails(before[0], *side.find(before[0], action))

    def encode(self, pair: tuple) -> bytes:
        """Both states' bytes, the first's length ahead of them."""
        first, second = (side.encode(state) for side, state in zip(self.sides, pair))
        return len(first).to_bytes(4, "big") + first + second

    def decode(self, data: bytes) -> tuple:
        """The pair `encode` wrote."""
        cut = 4 + int.from_bytes(data[:4], "big")
        return self.sides[0].decode(data[4:cut]), self.sides[1].decode(data[cut:])

    def property(self):
        """The property the product is checked for: it holds under the first variant."""
        if self.step_prop:
            return StepProperty(self.prop.name, self.prop.summary, self.first_step_holds, symmetric=False)
        return Invariant(self.prop.name, self.prop.summary, self.first_holds, symmetric=False)

    def traces(self, trace: Trace) -> tuple[Trace, Trace]:
        """A trace of pairs as the two variants' traces of the same events."""
        out = []
        for i, (model, side) in enumerate(zip((self.first, self.second), self.sides)):
            states = [side.readable(pair[i]) for pair in trace.states()]
            out.append(Trace(model.name, model.variant, dict(model.parameters()), self.prop.name, states[0],
                             tuple(Step(step.action, state) for step, state in zip(trace.steps, states[1:]))))
        return out[0], out[1]


def distinguish(explore, first_model, second_model, prop) -> Distinction:
    """The shortest behaviour, possible under both models, after which `prop` fails under the
    first and has held all along under the second (module docstring), searched with `explore`
    (an engine's explore function)."""
    pair = PairModel(first_model, second_model, prop)
    (start,) = pair.initial_states()
    if not pair.step_prop and pair.sides[1].fails_in(start[1]):
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
