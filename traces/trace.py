"""A trace: an initial state and the steps that lead from it to a state violating an invariant
(or to a state or step where a witness is reached)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    """One transition: the action taken and the state it leads to."""

    action: tuple
    state: Any


@dataclass(frozen=True)
class Trace:
    """A behaviour of a model, from an initial state, that ends in a state violating
    `invariant`, or where it is reached when that property is a witness (`traces.outcome`).
    Model-agnostic: states are the model's own values."""

    model: str
    variant: str | None
    bounds: dict[str, int]
    invariant: str
    initial: Any
    steps: tuple[Step, ...] = field(default_factory=tuple)

    def __len__(self) -> int:
        """The number of steps (transitions); a violating (or witness) initial state gives 0."""
        return len(self.steps)

    def states(self) -> list:
        """Every state of the behaviour, the initial one first."""
        return [self.initial] + [step.state for step in self.steps]

    def first_unreplayed(self, model) -> int | None:
        """The first step (1-based) that is not a successor of the state before it under its
        action in `model` (0 when the initial state is not one of the model's), None when every
        step replays: the trace is a behaviour of the model as it is now."""
        if self.initial not in model.initial_states():
            return 0
        state = self.initial
        for i, step in enumerate(self.steps, 1):
            if (step.action, step.state) not in set(model.successors(state)):
                return i
            state = step.state
        return None
