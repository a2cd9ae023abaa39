"""Models by name: how the CLI, traces and tests build a model from its name and parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .params import ModelError, Param, resolve
from .fetch import bounds as fetch_bounds
from .fetch.bounds import FetchConfig
from .fetch.model import FetchModel
from .fetch.truncation import VARIANTS as FETCH_VARIANTS
from .spec import bounds as spec_bounds
from .spec.bounds import SpecBounds
from .spec.model import SpecModel
from .spec.variants import MEANINGS as SPEC_VARIANTS
from .two_phase import model as two_phase


@dataclass(frozen=True)
class ModelKind:
    """A model family: its parameters, its variants (name -> one-line meaning), the variant
    used when none is asked for, and how to build an instance."""

    name: str
    summary: str
    params: tuple[Param, ...]
    variants: Mapping[str, str]
    default_variant: str | None
    build: Callable[[str | None, dict[str, Any], bool], Any]


MODELS = {
    "spec": ModelKind(
        "spec", "Kafka replication as in the public TLA+ specification (LeaderAndIsr, HW, ISR, epochs)",
        spec_bounds.PARAMS, dict(SPEC_VARIANTS), "kip320",
        lambda variant, values, ghost: SpecModel(variant, SpecBounds(**values)),
    ),
    "fetch": ModelKind(
        "fetch", "Kafka replication at the FETCH level: acks, min.insync.replicas, crashes, flushes, unclean election",
        fetch_bounds.PARAMS, {name: v.meaning for name, v in FETCH_VARIANTS.items()}, "kip320",
        lambda variant, values, ghost: FetchModel(variant, FetchConfig(**values), ghost),
    ),
    "two-phase": ModelKind(
        "two-phase", "textbook two-phase commit, to test the checker on a non-Kafka model",
        two_phase.PARAMS, {}, None,
        lambda variant, values, ghost: two_phase.TwoPhaseModel(**values),
    ),
}


def build_model(name: str, variant: str | None = None, ghost: bool = False, **given: Any):
    """Build model `name` in `variant` (its default when None) with the given parameters
    (defaults for those left None); `ghost` asks the model to keep the ghost variables some
    invariants read. Raises ModelError with a one-line reason."""
    kind = MODELS.get(name)
    if kind is None:
        raise ModelError(f"unknown model {name!r} (choose from {', '.join(MODELS)})")
    if variant is None:
        variant = kind.default_variant
    elif not kind.variants:
        raise ModelError(f"model {name} has no variants")
    elif variant not in kind.variants:
        raise ModelError(f"unknown variant {variant!r} for model {name} (choose from {', '.join(kind.variants)})")
    return kind.build(variant, resolve(kind.params, given), ghost)
