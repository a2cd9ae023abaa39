"""Which invariants and witnesses each model has (`model.registry.ModelKind.properties`), and
lookup by name. A model's invariants (and with them its compiled kernel's modules) are imported
the first time they are asked for, so a run of one model does not import the others."""

from __future__ import annotations

from checker.invariant import Invariant, StepProperty
from model.params import ModelError
from model.registry import MODELS


def invariants_for(model_name: str) -> dict[str, Invariant | StepProperty]:
    """Every property of the model (invariants and witnesses), by name, in listing order
    (ModelError for an unknown model)."""
    if model_name not in MODELS:
        raise ModelError(f"unknown model {model_name!r} (choose from {', '.join(MODELS)})")
    return MODELS[model_name].properties


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
