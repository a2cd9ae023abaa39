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
