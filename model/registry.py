"""Models by name: how the CLI, traces and tests build a model from its name and parameters.

Importing this module is cheap: it reads each model's declared parameters (`bounds` modules,
plain Python), so the command line can offer them as options without importing the models
themselves, their compiled kernels or numba. A model's variants, properties and classes are
imported the first time they are asked for. Besides the built-in models, any installed package
may offer models through the entry-point group `replcheck.models` (`ENTRY_POINTS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any, Callable, Mapping, Sequence

from traces.text import quoted

from .fetch import bounds as fetch_bounds
from .params import ModelError, Param, resolve
from .rules import SWITCH, RuleBook
from .spec import bounds as spec_bounds
from .two_phase import model as two_phase


@dataclass(frozen=True)
class ModelKind:
    """A model family: its parameters, the variant used when none is asked for, how to list
    its variants (name -> one-line meaning), how to build an instance and, for a model whose
    rules can be switched, how to load its rule book; the last three import the model, so they
    run only when asked."""

    name: str
    summary: str
    params: tuple[Param, ...]
    default_variant: str | None
    list_variants: Callable[[], Mapping[str, str]]
    build: Callable[[str | None, dict[str, Any], bool], Any]
    load_properties: Callable[[], Sequence[Any]]
    load_rules: Callable[[], RuleBook] | None = None

    @cached_property
    def properties(self) -> dict[str, Any]:
        """The model's invariants, step properties and witnesses (`checker.invariant`), by name,
        in listing order."""
        return {prop.name: prop for prop in self.load_properties()}

    @cached_property
    def variants(self) -> Mapping[str, str]:
        """The model's protocol variants, name -> one-line meaning (empty when it has none)."""
        return self.list_variants()

    @cached_property
    def rules(self) -> RuleBook | None:
        """The model's rules and its variants as presets of them (None when its rules cannot be
        switched)."""
        return self.load_rules() if self.load_rules is not None else None

    def meaning(self, variant: str | None) -> str:
        """What the variant stands for, in one line: a preset's meaning as `replcheck list` gives
        it; for a rule set with switched rules, that of its preset and `switches` ("" for an
        unknown name)."""
        note = self.switches(variant)
        if not note:
            return self.variants.get(variant, "")
        return f"{self.variants[self.rules.resolve(variant).preset]}, {note}"

    def switches(self, variant: str | None) -> str:
        """For a rule set with switched rules, which and what each does, in one line ("with rules
        switched (no Kafka release): hw-advance=plain: ..."); "" for a preset or an unknown name."""
        if self.rules is None or not variant or variant in self.variants:
            return ""
        try:
            rule_set = self.rules.resolve(variant)
        except ModelError:
            return ""
        return "with rules switched (no Kafka release): " + "; ".join(
            f"{rule}={choice}: {self.rules.rule(rule).choices[choice]}" for rule, choice in rule_set.switched.items())

    def variant_name(self, variant: str) -> str:
        """The variant's name as results give it (a rule set's canonical name: `kip966+elr=off`);
        ModelError with a one-line reason for an unknown variant, rule or choice."""
        if not self.variants:
            raise ModelError(f"model {self.name} has no variants")
        if self.rules is not None:
            return self.rules.resolve(variant).name
        if SWITCH in variant:
            raise ModelError(f"model {self.name} has no rules to switch (its variants are fixed: "
                             f"{', '.join(self.variants)})")
        if variant not in self.variants:
            raise ModelError(f"unknown variant {quoted(variant)} for model {self.name} "
                             f"(choose from {', '.join(self.variants)})")
        return variant


def _spec_variants() -> dict[str, str]:
    from .spec.variants import MEANINGS

    return dict(MEANINGS)


def _build_spec(variant: str | None, values: dict[str, Any], ghost: bool):
    from .spec.bounds import SpecBounds
    from .spec.model import SpecModel

    return SpecModel(variant, SpecBounds(**values))


def _fetch_variants() -> dict[str, str]:
    from .fetch.rules import VARIANTS

    return {name: v.listed() for name, v in VARIANTS.items()}


def _fetch_rules() -> RuleBook:
    from .fetch.rules import RULE_BOOK

    return RULE_BOOK


def _build_fetch(variant: str | None, values: dict[str, Any], ghost: bool):
    from .fetch.bounds import FetchConfig
    from .fetch.model import FetchModel

    return FetchModel(variant, FetchConfig(**values), ghost)


def _properties(module: str) -> Callable[[], Sequence[Any]]:
    """A built-in model's properties: `invariants.<module>.INVARIANTS`, imported when asked for."""
    return lambda: import_module(f"invariants.{module}").INVARIANTS


BUILT_IN = {
    "spec": ModelKind(
        "spec", "Kafka replication as in the public TLA+ specification (LeaderAndIsr, HW, ISR, epochs)",
        spec_bounds.PARAMS, "kip320", _spec_variants, _build_spec, _properties("spec"),
    ),
    "fetch": ModelKind(
        "fetch", "Kafka replication at the FETCH level: acks, min.insync.replicas, crashes, flushes, unclean election",
        fetch_bounds.PARAMS, "kip320", _fetch_variants, _build_fetch, _properties("fetch"), _fetch_rules,
    ),
    "two-phase": ModelKind(
        "two-phase", "textbook two-phase commit, to test the checker on a non-Kafka model",
        two_phase.PARAMS, None, dict,
        lambda variant, values, ghost: two_phase.TwoPhaseModel(**values), _properties("two_phase"),
    ),
}

PRELOADED = ("model.spec.model", "model.fetch.model")
"""The built-in compiled models' modules, which a Spark worker imports as it starts (`preload`)."""


def preload() -> None:
    """Import the built-in compiled models (`PRELOADED`), so that a Spark worker pays for their
    modules as it starts rather than in a search's first level."""
    for name in PRELOADED:
        import_module(name)


ENTRY_POINTS = "replcheck.models"
"""The entry-point group through which another installed package offers models: each entry
point names a `ModelKind` (docs/writing-a-model.md)."""


def _installed() -> dict[str, ModelKind]:
    """The models other installed packages offer (entry-point group `replcheck.models`). One
    that cannot be loaded, is no ModelKind, or takes a name already used is left out with a
    one-line notice on stderr: a broken package must not stop replcheck."""
    found: dict[str, ModelKind] = {}
    for point in entry_points(group=ENTRY_POINTS):
        try:
            kind = point.load()
        except Exception as exc:  # whatever the package's import raises
            _notice(f"model package entry point {point.name} ({point.value}) could not be loaded: "
                    f"{type(exc).__name__}: {exc}")
            continue
        if not isinstance(kind, ModelKind):
            _notice(f"model package entry point {point.name} ({point.value}) is not a ModelKind")
        elif kind.name in BUILT_IN or kind.name in found:
            _notice(f"model package entry point {point.name} ({point.value}) names model {kind.name}, "
                    f"which is taken")
        else:
            found[kind.name] = kind
    return found


def _notice(text: str) -> None:
    import sys

    from traces.text import one_line

    print(f"replcheck: {one_line(text)}; skipped", file=sys.stderr)


MODELS = {**BUILT_IN, **_installed()}
"""Every model replcheck knows, by name: the built-in ones, then those of installed packages."""


def build_model(name: str, variant: str | None = None, ghost: bool = False, **given: Any):
    """Build model `name` in `variant` (its default when None; for a model with rules, a rule set's
    name such as `kip966+hw-advance=plain` too) with the given parameters
    (defaults for those left None); `ghost` asks the model to keep the ghost variables some
    invariants read. Raises ModelError with a one-line reason."""
    kind = MODELS.get(name)
    if kind is None:
        raise ModelError(f"unknown model {name!r} (choose from {', '.join(MODELS)})")
    variant = kind.default_variant if variant is None else kind.variant_name(variant)
    return kind.build(variant, resolve(kind.params, given), ghost)
