"""Protocol rules as switches, and variants as named presets of them.

A model that has rules declares them in a `RuleBook`: each `Rule` decides one thing the
protocol does (where a follower truncates, when the leader advances its HW, ...) and offers
named choices, oldest first; each variant (a Kafka release) is a preset that picks one choice
for every rule. A rule set is a preset with some rules switched, and is spelled as the preset's
name followed by `+rule=choice` for each switched rule, in the rule book's order:
`kip966+hw-advance=plain`. That one name travels wherever a variant's name does (traces, JSON,
checkpoints, manifests, file names), so a result always names the exact rules it was found
under and a saved trace replays under them.

Cheap to import: the command line reads rule books to offer and check `--rule`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from traces.text import quoted

from .params import ModelError

SWITCH = "+"
"""What joins a preset's name and each switched rule in a rule set's name."""


@dataclass(frozen=True)
class Rule:
    """One rule of a model: its name as the CLI spells it, what it decides, and its choices
    (choice -> what it does), oldest first; a choice's index is what the kernel reads."""

    name: str
    decides: str
    choices: Mapping[str, str]

    @property
    def key(self) -> str:
        """The rule's Python name (dashes become underscores): its field in a kernel layout."""
        return self.name.replace("-", "_")

    def index(self, choice: str) -> int:
        """The choice's number, as a kernel reads it (0 for the oldest)."""
        return list(self.choices).index(choice)

    def predecessor(self, choice: str) -> str | None:
        """The choice this one replaced in Kafka's history (the one before it), None for the oldest."""
        at = self.index(choice)
        return list(self.choices)[at - 1] if at else None


@dataclass(frozen=True)
class RuleSet:
    """A preset with some rules switched: `choices` holds every rule's choice, in the rule
    book's order; `switched` the rules whose choice differs from the preset's."""

    preset: str
    choices: Mapping[str, str]
    switched: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The rule set's name: the preset's, then `+rule=choice` for each switched rule."""
        return self.preset + "".join(f"{SWITCH}{rule}={choice}" for rule, choice in self.switched.items())

    @property
    def custom(self) -> bool:
        """Some rule differs from the preset's choice: this rule set is no Kafka release."""
        return bool(self.switched)


@dataclass(frozen=True)
class RuleBook:
    """A model's rules and its variants as presets (variant -> rule -> choice), in Kafka's
    order of releases; `fixed` names the model's other variants (name -> why), whose steps are
    written apart from the rules (the `kraft` model's `tla`, a specification's steps one for
    one), so that no rule switches them."""

    model: str
    rules: tuple[Rule, ...]
    presets: Mapping[str, Mapping[str, str]]
    fixed: Mapping[str, str] = field(default_factory=dict)
    retired: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Choices a rule no longer offers (rule -> choice -> why it went): a trace saved under one
    still loads, and replaying it under the rule's choice now tells which of its steps the model
    no longer takes."""

    def __post_init__(self):
        for preset, choices in self.presets.items():
            assert list(choices) == [rule.name for rule in self.rules], preset
            assert all(choice in rule.choices for rule, choice in zip(self.rules, choices.values())), preset

    def rule(self, name: str) -> Rule:
        """The rule called `name`; ModelError naming the model's rules when it has none such."""
        for rule in self.rules:
            if rule.name == name:
                return rule
        raise ModelError(f"unknown rule {quoted(name)} for model {self.model} "
                         f"(choose from {', '.join(r.name for r in self.rules)})")

    def resolve(self, name: str) -> RuleSet:
        """The rule set a name spells (`preset+rule=choice+...`); ModelError with a one-line
        reason for an unknown preset, rule or choice, or a rule switched twice to different
        choices. A rule switched to the preset's own choice is no switch: `kip966+elr=on` is
        `kip966`."""
        preset, *switches = name.split(SWITCH)
        if preset in self.fixed:
            if switches:
                raise self._unswitchable(preset)
            return RuleSet(preset, {})
        if preset not in self.presets:
            raise ModelError(f"unknown variant {quoted(preset)} for model {self.model} "
                             f"(choose from {', '.join([*self.presets, *self.fixed])})")
        asked: dict[str, str] = {}
        for switch in switches:
            rule_name, equals, choice = switch.partition("=")
            if not equals:
                raise ModelError(f"a rule is switched as RULE=CHOICE (for example hw-advance=plain), "
                                 f"got {quoted(switch)}")
            rule = self.rule(rule_name)
            if choice not in rule.choices:
                raise ModelError(f"rule {rule.name} has no choice {quoted(choice)} "
                                 f"(choose from {', '.join(rule.choices)})")
            if asked.get(rule.name, choice) != choice:
                raise ModelError(f"rule {rule.name} is switched twice, to {asked[rule.name]} and to {choice}")
            asked[rule.name] = choice
        choices = {rule.name: asked.get(rule.name, self.presets[preset][rule.name]) for rule in self.rules}
        switched = {r: c for r, c in choices.items() if c != self.presets[preset][r]}
        return RuleSet(preset, choices, switched)

    def preset_rules(self, name: str) -> RuleSet:
        """The rule set `name` spells, which must choose every rule, as an ablation compares and
        switches them: ModelError, as `resolve`'s for a switch, for a fixed variant, whose steps
        no rule decides (its rule set chooses nothing)."""
        rule_set = self.resolve(name)
        if rule_set.preset in self.fixed:
            raise self._unswitchable(rule_set.preset)
        return rule_set

    def _unswitchable(self, preset: str) -> ModelError:
        """The one-line error for switching a rule of fixed variant `preset`."""
        return ModelError(f"variant {preset} of model {self.model} has no rules to switch ({self.fixed[preset]}); "
                          f"rules switch {', '.join(self.presets)}")


def switched(book: "RuleBook", rule_set: RuleSet, choices: dict[str, str]) -> RuleSet:
    """`rule_set` with the rules in `choices` (rule -> choice) switched again, whatever they were."""
    merged = {**rule_set.switched, **choices}
    return book.resolve(rule_set.preset + "".join(f"{SWITCH}{rule}={choice}" for rule, choice in merged.items()))


def with_switches(variant: str, switches: tuple[str, ...] | list[str]) -> str:
    """The variant's name with `--rule` switches (each one RULE=CHOICE) added, for
    `RuleBook.resolve`; ModelError for a switch that holds SWITCH: `+` joins the switches of a
    variant's name (`kip966+elr=off`), so inside one switch it would pass a second switch (or a
    stray `+`) off as part of the first."""
    for switch in switches:
        if SWITCH in switch:
            raise ModelError(f"a rule switch is one RULE=CHOICE, got {quoted(switch)} ({quoted(SWITCH)} joins "
                             f"switches only in a variant's name, as in kip966+elr=off)")
    return variant + "".join(SWITCH + switch for switch in switches)
