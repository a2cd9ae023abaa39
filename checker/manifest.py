"""Manifests of expected verdicts, for `replcheck verify`: a TOML file that states, per model,
variant and bounds, which properties hold or are violated (and in how many steps), so that CI
notices when a change to a model or to the checker changes a known result.

    [[expect]]
    model = "spec"
    variant = "hw"                    # optional: the model's default variant
    bounds = { replicas = 3 }         # optional: the model's parameters (max-crashes or max_crashes)
    property = "strong-isr"           # an invariant or a witness of the model
    outcome = "violated"              # invariants: holds | violated; witnesses: reachable | unreachable
    steps = 8                         # optional, with violated or reachable: the shortest trace's length
    note = "KAFKA-1211"               # optional: free text, shown in the table

Expectations with the same model, variant and bounds share one search, which checks all of
their properties to the end (every shortest trace, every 'holds' proven exhaustively).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traces.store import UnreadableFile, read_text_file

KEYS = ("model", "variant", "bounds", "property", "outcome", "steps", "note")
"""The keys an [[expect]] entry may have."""
REQUIRED = ("model", "property", "outcome")
"""The keys every [[expect]] entry must have."""
OUTCOMES = {False: ("holds", "violated"), True: ("reachable", "unreachable")}
"""The outcomes an invariant (False) and a witness (True) can be expected to have."""
FOUND = ("violated", "reachable")
"""The outcomes that come with a shortest trace, whose length `steps` may state."""

_HEADER = re.compile(r"^\s*\[\[\s*expect\s*\]\]")


class ManifestError(ValueError):
    """A manifest that cannot be run: unreadable, not TOML, or an entry naming something the
    models do not have. The message is one line naming the file and, for an entry, its line."""


@dataclass(frozen=True)
class Expectation:
    """One [[expect]] entry: the model and variant (the model's default filled in), the bounds
    as written (Python names) and in full (defaults filled in), the property, the expected
    outcome and shortest trace length (None: any), a note, its place among the entries (from 1)
    and the line of its header (None when the file does not write it as [[expect]])."""

    model: str
    variant: str | None
    given: dict[str, Any]
    bounds: dict[str, Any]
    prop: str
    outcome: str
    steps: int | None = None
    note: str = ""
    number: int = 0
    line: int | None = None

    @property
    def expected(self) -> str:
        """The expectation in words: 'violated in 8 steps', 'holds', 'reachable'."""
        return self.outcome + (f" in {self.steps} steps" if self.steps is not None else "")

    def found(self, result) -> tuple[str, int | None]:
        """What a search (a `checker.result.CheckResult` of this model instance) found for the
        property: its verdict and shortest trace length (None when there is no trace)."""
        trace = result.violations.get(self.prop)
        return result.verdict(self.prop), (len(trace) if trace is not None else None)

    def surprised(self, result) -> bool:
        """The search found another outcome, or another shortest trace length than stated."""
        verdict, steps = self.found(result)
        return verdict != self.outcome or (self.steps is not None and steps != self.steps)


@dataclass
class Group:
    """Expectations that one search answers: the model instance they share, the properties to
    check in it, and the expectations in manifest order."""

    model: Any
    properties: list = field(default_factory=list)
    expectations: list[Expectation] = field(default_factory=list)


def found_text(verdict: str, steps: int | None) -> str:
    """A found outcome in words, as `Expectation.expected` words an expected one."""
    return verdict + (f" in {steps} steps" if steps is not None else "")


def load(path: Path) -> list[Group]:
    """Read and check the manifest at `path`, and group its expectations by the search that
    answers them (model, variant and full bounds), in order of first appearance. ManifestError
    (one line, naming the file and the entry's line) for a missing or unreadable file, bad
    TOML, an unknown key, model, variant, bound or property, a bound out of range, settings the
    model refuses, a property that does not apply to them, or an outcome or steps that cannot be."""
    try:
        text = read_text_file(Path(path), "manifest")
    except UnreadableFile as exc:
        raise ManifestError(f"{path}: cannot read it ({exc.reason})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from None
    unknown = [k for k in data if k != "expect"]
    if unknown:
        raise ManifestError(f"{path}: unknown top-level key {unknown[0]!r} (a manifest holds [[expect]] entries)")
    entries = data.get("expect")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise ManifestError(f"{path}: no [[expect]] entries")
    headers = [n for n, line in enumerate(text.splitlines(), 1) if _HEADER.match(line)]
    lines = headers if len(headers) == len(entries) else [None] * len(entries)

    checked = []
    for number, (entry, line) in enumerate(zip(entries, lines), 1):
        where = f"{path} line {line}" if line is not None else f"{path} [[expect]] entry {number}"
        try:
            checked.append((where, _expectation(entry, number, line)))
        except ValueError as exc:
            raise ManifestError(f"{where}: {exc}") from None
    by_search: dict[tuple, list] = {}
    for where, expectation in checked:
        key = (expectation.model, expectation.variant, tuple(sorted(expectation.bounds.items())))
        by_search.setdefault(key, []).append((where, expectation))
    return [_group(members) for members in by_search.values()]


def _group(members: list[tuple[str, Expectation]]) -> Group:
    """The search that answers these expectations (each with where it was written), its model
    keeping ghost variables when a property reads them; ManifestError when a property does
    not apply to the settings."""
    from checker.invariant import applies, scope
    from model.registry import build_model

    first = members[0][1]
    properties = list(dict.fromkeys(_property(e.model, e.prop) for _, e in members))
    model = build_model(first.model, first.variant, ghost=any(p.needs_ghost for p in properties), **first.bounds)
    for where, expectation in members:
        prop = _property(expectation.model, expectation.prop)
        if not applies(prop, model):
            raise ManifestError(f"{where}: {prop.name} does not apply to these settings: it reads {scope(prop)}")
    return Group(model, properties, [e for _, e in members])


def _expectation(entry: dict, number: int, line: int | None) -> Expectation:
    """An entry checked against the models (ValueError with the reason)."""
    from model.registry import MODELS, build_model

    unknown = [k for k in entry if k not in KEYS]
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    missing = [k for k in REQUIRED if k not in entry]
    if missing:
        raise ValueError(f"missing key {missing[0]!r}")
    for key in ("model", "variant", "property", "outcome", "note"):
        if key in entry and not isinstance(entry[key], str):
            raise ValueError(f"{key} must be a string, got {entry[key]!r}")
    kind = MODELS.get(entry["model"])
    if kind is None:
        raise ValueError(f"unknown model {entry['model']!r} (choose from {', '.join(MODELS)})")
    given = _bounds(kind, entry.get("bounds", {}))
    model = build_model(kind.name, entry.get("variant"), **given)  # ModelError: a ValueError
    prop = _property(kind.name, entry["property"])
    outcome, steps = entry["outcome"], entry.get("steps")
    choices = OUTCOMES[prop.witness]
    if outcome not in choices:
        what = "a witness" if prop.witness else "an invariant"
        raise ValueError(f"outcome {outcome!r} for {prop.name}, {what}: choose {' or '.join(choices)}")
    if steps is not None:
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be a whole number of 0 or more, got {steps!r}")
        if outcome not in FOUND:
            raise ValueError(f"steps applies to outcome {' or '.join(FOUND)} (a shortest trace), not {outcome}")
    return Expectation(kind.name, model.variant, given, dict(model.parameters()), prop.name, outcome, steps,
                       entry.get("note", ""), number, line)


def _bounds(kind, bounds) -> dict[str, Any]:
    """The entry's bounds by Python name (`max-crashes` and `max_crashes` alike), each value
    checked against its parameter; flags take true/false or "on"/"off", choices a string or a
    number (acks = 1)."""
    if not isinstance(bounds, dict):
        raise ValueError(f"bounds must be a table such as {{ replicas = 3 }}, got {bounds!r}")
    params = {p.key: p for p in kind.params}
    given = {}
    for name, value in bounds.items():
        key = name.replace("-", "_")
        param = params.get(key)
        if param is None:
            known = ", ".join(p.name for p in kind.params) or "none"
            raise ValueError(f"unknown bound {name!r} for model {kind.name} (its bounds: {known})")
        if param.kind == "flag" and value in ("on", "off"):
            value = value == "on"
        elif param.kind == "choice" and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        given[key] = param.check(value)
    return given


def _property(model: str, name: str):
    """The model's property called `name` (ValueError listing the known ones)."""
    from invariants.registry import invariants_for

    known = invariants_for(model)
    if name not in known:
        raise ValueError(f"unknown property {name!r} for model {model} (choose from {', '.join(known)})")
    return known[name]
