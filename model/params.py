"""Declared model parameters (bounds and configuration) and their validation.

Each model lists its parameters once; the CLI, `replcheck list` and validation all read
that list, so an impossible bound is refused with the same one-line message everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence


class ModelError(ValueError):
    """A model was asked for with something it cannot be: unknown name or variant, or a
    parameter outside its range. The message is one line, fit for the user."""


@dataclass(frozen=True)
class Param:
    """One integer parameter: its name as the CLI spells it (with dashes), default and range."""

    name: str
    default: int
    minimum: int
    maximum: int
    help: str

    @property
    def key(self) -> str:
        """The parameter's Python name (dashes become underscores)."""
        return self.name.replace("-", "_")


def resolve(params: Sequence[Param], given: Mapping[str, Any]) -> dict[str, int]:
    """Fill defaults into `given` (keyed by Python name; None means not given) and check
    every value against its declared range. Unknown keys are refused."""
    known = {p.key: p for p in params}
    for key, value in given.items():
        if value is not None and key not in known:
            names = ", ".join(f"--{p.name}" for p in params) or "none"
            raise ModelError(f"--{key.replace('_', '-')} does not apply to this model (its parameters: {names})")
    values = {}
    for p in params:
        value = given.get(p.key)
        value = p.default if value is None else value
        if not isinstance(value, int) or isinstance(value, bool):
            raise ModelError(f"--{p.name} must be a whole number, got {value!r}")
        if not p.minimum <= value <= p.maximum:
            raise ModelError(f"--{p.name} must be between {p.minimum} and {p.maximum}, got {value}")
        values[p.key] = value
    return values
