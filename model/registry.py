"""Models by name: how the CLI, traces and tests build a model from its name and parameters.

Importing this module is cheap: it reads each model's declared parameters (`bounds` modules,
plain Python), so the command line can offer them as options without importing the models
themselves, their compiled kernels or numba. A model's variants, properties and classes are
imported the first time they are asked for. Besides the built-in models, any installed package
may offer models through the entry-point group `replcheck.models` (`ENTRY_POINTS`).

Such a package is a guest: whatever it does when it is imported or called (it raises, it calls
`sys.exit`, it hands over something else than it should, it takes a name already used, its text
holds terminal escapes) becomes a `GuestError`, one line naming the package and the cause, and
never stops replcheck or the other models (`guest`).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from functools import cached_property
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any, Callable, Mapping, Sequence

from checker.interrupts import interruption_behind, signalled
from checker.invariant import Invariant, StepProperty
from traces.text import one_line, quoted

from .fetch import bounds as fetch_bounds
from .kraft import bounds as kraft_bounds
from .params import ModelError, Param, resolve
from .rules import SWITCH, Rule, RuleBook
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
    package: str = ""
    """The model package that offers it, as messages name it (`GuestError.package`); "" for a
    built-in model."""

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


def _kraft_variants() -> dict[str, str]:
    from .kraft.model import VARIANTS

    return dict(VARIANTS)


def _kraft_rules() -> RuleBook:
    from .kraft.rules import RULE_BOOK

    return RULE_BOOK


def _build_kraft(variant: str | None, values: dict[str, Any], ghost: bool):
    from .kraft.bounds import KRaftBounds
    from .kraft.model import KRaftModel

    return KRaftModel(variant, KRaftBounds(**values))


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
    "kraft": ModelKind(
        "kraft", "KRaft: the controllers' own Raft replication of the metadata log (Vote, BeginQuorumEpoch, FETCH)",
        kraft_bounds.PARAMS, "kip853", _kraft_variants, _build_kraft, _properties("kraft"), _kraft_rules,
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


class GuestError(ModelError):
    """A model package failed when replcheck imported or called it, or offered what replcheck
    cannot use. `package` names it (its distribution and entry point), `cause` says what went
    wrong; the message says both, in one line."""

    def __init__(self, package: str, cause: str):
        super().__init__(one_line(f"{package}: {cause}"))
        self.package = package
        self.cause = cause


CAUSE_CHARACTERS = 200
"""The most characters of what a package raised that a message quotes."""

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""What a name a package gives (its model, variants, parameters, properties, rules and choices)
must look like: replcheck's command line takes it, and file names are made of it."""

PARAMETER = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
"""What a package's parameter's name must look like: it becomes an option, `--max-entries`, and
a Python name, `max_entries`."""


def _raised(error: BaseException) -> str:
    """What a package raised, in one short line: its type and message (`SystemExit: 0`)."""
    try:
        text = str(error)
    except KeyboardInterrupt:
        raise
    except BaseException:  # a message that cannot even be made
        text = "(a message that cannot be shown)"
    if len(text) > CAUSE_CHARACTERS:
        text = f"{text[:CAUSE_CHARACTERS]}... ({len(text):,} characters)"
    return one_line(f"{type(error).__name__}: {text}" if text else type(error).__name__)


def guest_call(package: str, doing: str, call: Callable[[], Any]) -> Any:
    """`call()`, replcheck calling into a model package: whatever it raises (an exception,
    `SystemExit`, `GeneratorExit`...) becomes a GuestError naming the package, what replcheck was
    `doing` and the cause; so does a ModelError from the checks of what it handed over. Ctrl-C and
    SIGTERM (a KeyboardInterrupt, or an error a library made of one) still interrupt, but one
    that no signal can have raised (`signalled`: cli.py holds signals while it imports the
    packages) is the package's own doing."""
    try:
        return call()
    except GuestError:
        raise
    except BaseException as error:
        interruption = interruption_behind(error)
        if interruption is not None and signalled(interruption):
            raise
        cause = f"{doing}: {error}" if isinstance(error, ModelError) else f"{doing} raised {_raised(error)}"
        raise GuestError(package, cause) from error


def _a(value: Any) -> str:
    """What a package handed over, as a message names it: `a value of type list`."""
    return f"a value of type {type(value).__name__}"


def _name(value: Any, what: str) -> str:
    """`value`, a name a package gives, if it is one (`NAME`); ModelError otherwise."""
    if isinstance(value, str) and NAME.fullmatch(value):
        return value
    raise ModelError(f"{what} {quoted(value)} is not a name (letters, digits, '.', '_' and '-')")


def _text(value: Any, what: str) -> str:
    """`value`, text a package gives, made printable (`one_line`); ModelError when it is no text."""
    if not isinstance(value, str):
        raise ModelError(f"{what} is {_a(value)}, not text")
    return one_line(value)


def _param(value: Any) -> Param:
    """A package's parameter, checked (a `Param`, a name, a range or choices its default is in),
    its help made printable; ModelError otherwise."""
    if not isinstance(value, Param):
        raise ModelError(f"a parameter is {_a(value)}, not a model.params.Param")
    name = value.name
    if not (isinstance(name, str) and PARAMETER.fullmatch(name)):
        raise ModelError(f"parameter {quoted(name)} is not an option's name (lowercase words joined by '-')")
    for choice in value.choices:
        _name(choice, f"--{name}'s choice")
    if value.kind == "int" and not (isinstance(value.minimum, int) and isinstance(value.maximum, int)):
        raise ModelError(f"--{name} is a whole number without a minimum and a maximum")
    value.check(value.default)
    return replace(value, help=_text(value.help, f"--{name}'s help"))


def _variants(listed: Any) -> dict[str, str]:
    """A package's variants (name -> meaning), checked, their meanings made printable."""
    if not isinstance(listed, Mapping):
        raise ModelError(f"gave {_a(listed)}, not variant names and their meanings")
    return {_name(name, "variant"): _text(meaning, f"variant {name}'s meaning") for name, meaning in listed.items()}


def _properties(listed: Any) -> tuple[Invariant | StepProperty, ...]:
    """A package's properties, checked (invariants and step properties, with names, each once),
    their summaries made printable."""
    if isinstance(listed, (str, bytes)) or not isinstance(listed, Sequence):
        raise ModelError(f"gave {_a(listed)}, not a list of properties")
    kept: dict[str, Invariant | StepProperty] = {}
    for prop in listed:
        if not isinstance(prop, (Invariant, StepProperty)):
            raise ModelError(f"gave {_a(prop)} among its properties, not an Invariant or StepProperty")
        name = _name(prop.name, "property")
        if name in kept:
            raise ModelError(f"gave two properties called {name}")
        kept[name] = replace(prop, summary=_text(prop.summary, f"property {name}'s summary"))
    return tuple(kept.values())


def _rule_book(book: Any) -> RuleBook:
    """A package's rule book, checked (a RuleBook, with names), its text made printable."""
    if not isinstance(book, RuleBook):
        raise ModelError(f"gave {_a(book)}, not a model.rules.RuleBook")
    rules = tuple(Rule(_name(rule.name, "rule"), _text(rule.decides, f"rule {rule.name}'s text"),
                       {_name(choice, f"rule {rule.name}'s choice"): _text(does, f"rule {rule.name}'s choice {choice}")
                        for choice, does in rule.choices.items()})
                  for rule in book.rules)
    return RuleBook(book.model, rules, {_name(preset, "variant"): dict(choices) for preset, choices in book.presets.items()})


def _model(built: Any) -> Any:
    """What a package's build gave, if it can be explored (it has initial states and successors)."""
    if not all(callable(getattr(built, need, None)) for need in ("initial_states", "successors")):
        raise ModelError(f"gave {_a(built)}, not a model (one with initial_states and successors)")
    return built


def guest(package: str, offered: Any, taken: Mapping[str, str]) -> ModelKind:
    """The ModelKind a package's entry point names (`offered`), as replcheck keeps it: its name,
    summary, parameters and default variant checked and made printable, and each of its functions
    called through `guest_call`, what it gives checked and made printable too. GuestError when it
    is no ModelKind, its name is `taken` (name -> by whom) or a field is not what it should be."""
    def check() -> ModelKind:
        if not isinstance(offered, ModelKind):
            raise ModelError(f"names {_a(offered)}, not a model.registry.ModelKind")
        name = _name(offered.name, "model")
        if name in taken:
            raise ModelError(f"model {name} is taken by {taken[name]}")
        if isinstance(offered.params, (str, bytes)) or not isinstance(offered.params, Sequence):
            raise ModelError(f"its parameters are {_a(offered.params)}, not a tuple of Params")
        default = offered.default_variant
        rules = offered.load_rules
        return ModelKind(name, _text(offered.summary, "its summary"), tuple(_param(p) for p in offered.params),
                         None if default is None else _name(default, "default variant"),
                         _guarded(package, "listing its variants", offered.list_variants, _variants),
                         _guarded(package, f"building model {name}", offered.build, _model),
                         _guarded(package, "listing its properties", offered.load_properties, _properties),
                         None if rules is None else _guarded(package, "loading its rules", rules, _rule_book),
                         package)
    return guest_call(package, "its entry point", check)


def _guarded(package: str, doing: str, function: Callable, check: Callable[[Any], Any]) -> Callable:
    """`function`, one of a package's, as replcheck calls it: through `guest_call`, what it gives
    checked (and its text made printable) by `check`."""
    return lambda *args: guest_call(package, doing, lambda: check(function(*args)))


def _package(point) -> str:
    """How messages name the package behind an entry point: its distribution and the entry point."""
    dist = getattr(point, "dist", None)
    return one_line(f"model package {getattr(dist, 'name', None) or '(unknown)'} "
                    f"(entry point {point.name} = {point.value})")


BROKEN: dict[str, str] = {}
"""The model packages left out, each (as `GuestError.package` names it) with why, in the order
they were found broken: `replcheck list` shows them."""


def left_out(error: GuestError) -> None:
    """Leave out the package `error` is about: record it in `BROKEN` and say so in one line on
    stderr (once per package)."""
    if error.package not in BROKEN:
        BROKEN[error.package] = error.cause
        print(one_line(f"replcheck: {error.package} is left out: {error.cause}"), file=sys.stderr)


def _installed() -> dict[str, ModelKind]:
    """The models other installed packages offer (entry-point group `replcheck.models`), each as
    a `guest`. A package that cannot be imported, or whose entry point is no usable ModelKind or
    takes a name already used, is left out (`left_out`): a broken package must not stop
    replcheck."""
    found: dict[str, ModelKind] = {}
    taken = {name: "a built-in model" for name in BUILT_IN}
    for point in entry_points(group=ENTRY_POINTS):
        package = _package(point)
        try:
            kind = guest(package, guest_call(package, "importing it", point.load), taken)
        except GuestError as error:
            left_out(error)
            continue
        found[kind.name] = kind
        taken[kind.name] = package
    return found


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
