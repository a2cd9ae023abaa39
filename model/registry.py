"""Models by name: how the CLI, traces and tests build a model from its name and parameters.

Importing this module is cheap: it reads each model's declared parameters (`bounds` modules,
plain Python), so the command line can offer them as options without importing the models
themselves, their compiled kernels or numba. A model's variants and classes are imported the
first time they are asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping

from traces.text import quoted

from .fetch import bounds as fetch_bounds
from .params import ModelError, Param, resolve
from .spec import bounds as spec_bounds
from .two_phase import model as two_phase


@dataclass(frozen=True)
class ModelKind:
    """A model family: its parameters, the variant used when none is asked for, how to list
    its variants (name -> one-line meaning) and how to build an instance; the last two import
    the model, so they run only when asked."""

    name: str
    summary: str
    params: tuple[Param, ...]
    default_variant: str | None
    list_variants: Callable[[], Mapping[str, str]]
    build: Callable[[str | None, dict[str, Any], bool], Any]

    @cached_property
    def variants(self) -> Mapping[str, str]:
        """The model's protocol variants, name -> one-line meaning (empty when it has none)."""
        return self.list_variants()


def _spec_variants() -> dict[str, str]:
    from .spec.variants import MEANINGS

    return dict(MEANINGS)


def _build_spec(variant: str | None, values: dict[str, Any], ghost: bool):
    from .spec.bounds import SpecBounds
    from .spec.model import SpecModel

    return SpecModel(variant, SpecBounds(**values))


def _fetch_variants() -> dict[str, str]:
    from .fetch.truncation import VARIANTS

    return {name: v.listed() for name, v in VARIANTS.items()}


def _build_fetch(variant: str | None, values: dict[str, Any], ghost: bool):
    from .fetch.bounds import FetchConfig
    from .fetch.model import FetchModel

    return FetchModel(variant, FetchConfig(**values), ghost)


MODELS = {
    "spec": ModelKind(
        "spec", "Kafka replication as in the public TLA+ specification (LeaderAndIsr, HW, ISR, epochs)",
        spec_bounds.PARAMS, "kip320", _spec_variants, _build_spec,
    ),
    "fetch": ModelKind(
        "fetch", "Kafka replication at the FETCH level: acks, min.insync.replicas, crashes, flushes, unclean election",
        fetch_bounds.PARAMS, "kip320", _fetch_variants, _build_fetch,
    ),
    "two-phase": ModelKind(
        "two-phase", "textbook two-phase commit, to test the checker on a non-Kafka model",
        two_phase.PARAMS, None, dict,
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
        raise ModelError(f"unknown variant {quoted(variant)} for model {name} (choose from {', '.join(kind.variants)})")
    return kind.build(variant, resolve(kind.params, given), ghost)
