"""Declared model parameters (bounds and configuration) and their validation.

Each model lists its parameters once; the CLI, `replcheck list` and validation all read
that list, so an impossible bound is refused with the same one-line message everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from traces.text import quoted


class ModelError(ValueError):
    """A model was asked for with something it cannot be: unknown name or variant, or a
    parameter outside its range. The message is one line, fit for the user."""


@dataclass(frozen=True)
class Param:
    """One parameter, named as the CLI spells it (with dashes): a whole number in
    [minimum, maximum], a word from `choices`, or an on/off flag (a bool default)."""

    name: str
    default: int | str | bool
    minimum: int | None
    maximum: int | None
    help: str
    choices: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The parameter's Python name (dashes become underscores)."""
        return self.name.replace("-", "_")

    @property
    def kind(self) -> str:
        """'flag', 'choice' or 'int'."""
        return "flag" if isinstance(self.default, bool) else "choice" if self.choices else "int"

    @property
    def domain(self) -> str:
        """The allowed values, for listings and messages."""
        return {"flag": "on/off", "choice": "|".join(self.choices)}.get(self.kind, f"{self.minimum}..{self.maximum}")

    def check(self, value: Any) -> int | str | bool:
        """`value` if it is allowed, else ModelError (quoting at most the start of `value`: it
        may come from a file, as a number thousands of digits long or a string of megabytes)."""
        if self.kind == "flag":
            if not isinstance(value, bool):
                raise ModelError(f"--{self.name} is an on/off setting, got {quoted(value)}")
        elif self.kind == "choice":
            if value not in self.choices:
                raise ModelError(f"--{self.name} must be one of {', '.join(self.choices)}, got {quoted(value)}")
        elif not isinstance(value, int) or isinstance(value, bool):
            raise ModelError(f"--{self.name} must be a whole number, got {quoted(value)}")
        elif not self.minimum <= value <= self.maximum:
            raise ModelError(f"--{self.name} must be between {self.minimum} and {self.maximum}, got {quoted(value)}")
        return value


def choice_param(name: str, default: str, choices, help: str) -> Param:
    """A parameter taking one word of `choices`."""
    return Param(name, default, None, None, help, tuple(choices))


def flag_param(name: str, default: bool, help: str) -> Param:
    """An on/off parameter (`--name/--no-name` on the command line)."""
    return Param(name, default, None, None, help)


def resolve(params: Sequence[Param], given: Mapping[str, Any]) -> dict[str, Any]:
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
        values[p.key] = p.check(p.default if value is None else value)
    return values
