"""Which invariants and witnesses each model has, and lookup by name."""

from __future__ import annotations

from checker.invariant import Invariant, StepProperty
from model.params import ModelError

from . import fetch, spec, two_phase

_BY_MODEL = {"spec": spec.INVARIANTS, "fetch": fetch.INVARIANTS, "two-phase": two_phase.INVARIANTS}


def invariants_for(model_name: str) -> dict[str, Invariant | StepProperty]:
    """Every property of the model (invariants and witnesses), by name, in listing order
    (ModelError for an unknown model)."""
    if model_name not in _BY_MODEL:
        raise ModelError(f"unknown model {model_name!r} (choose from {', '.join(_BY_MODEL)})")
    return {inv.name: inv for inv in _BY_MODEL[model_name]}


def select(model_name: str, names: list[str] | tuple[str, ...]) -> list[Invariant | StepProperty]:
    """The named properties of the model, invariants and witnesses alike (when `names` is empty,
    every invariant but those checked only when named, and no witness: a witness is a question
    asked by name). An unknown name is a ModelError that lists the valid ones."""
    known = invariants_for(model_name)
    if not names:
        return [p for p in known.values() if not p.witness and not getattr(p, "named_only", "")]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ModelError(f"unknown invariant {unknown[0]!r} for model {model_name} (choose from {', '.join(known)})")
    return [known[n] for n in dict.fromkeys(names)]
