"""Manifests of expected verdicts, for `replcheck verify`: a TOML file that states, per model,
variant and bounds, which properties hold or are violated (and in how many steps), so that CI
notices when a change to a model or to the checker changes a known result.

    [[expect]]
    model = "spec"
    variant = "hw"                    # optional: the model's default variant
    rules = { hw-advance = "plain" }  # optional: rules switched from the variant's choice
    bounds = { replicas = 3 }         # optional: the model's parameters (max-crashes or max_crashes)
    property = "strong-isr"           # an invariant or a witness of the model
    outcome = "violated"              # invariants: holds | violated; witnesses: reachable | unreachable
    steps = 8                         # optional, with violated or reachable: the shortest trace's length
    fires = ["ElrElection"]           # optional: actions or events the search must see happen (coverage)
    allow-deviations = { remote-leos-on-reelection = "why" }  # optional: rule-table rows its trace may rest on
    not-judged = "why"                # optional: why its trace may be one the audit does not judge
    note = "KAFKA-1211"               # optional: free text, shown in the table

The shortest trace of every violated (or reached) entry of a model with a rule table (`fetch`,
`kraft`) is audited against Kafka's code (`replcheck trace audit`): an entry whose trace rests
on a deviation fails, unless it names that row in `allow-deviations` and says why, and naming a
row the trace does not rest on fails too. Only `fetch`'s rule table has deviations, so only its
entries may allow one. An entry whose trace is not judged (a switched rule set, `kraft`'s `tla`,
a majority quorum: no release) fails unless `not-judged` says why, and saying so for a trace
that is judged fails too. The reasons are shown in the table and the JUnit report.

Expectations with the same model, variant and bounds share one search, which checks all of
their properties to the end (every shortest trace, every 'holds' proven exhaustively).

A manifest is untrusted input: its size, its nesting (checked on the text, before TOML parses
it), its steps and its notes are limited, and an error quotes at most the start of a bad value.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traces.store import MAX_STEPS, UnreadableFile, read_text_file
from traces.text import QUOTED_CHARACTERS, one_line, quoted

KEYS = ("model", "variant", "rules", "bounds", "property", "outcome", "steps", "fires", "allow-deviations",
        "not-judged", "note")
"""The keys an [[expect]] entry may have."""
REQUIRED = ("model", "property", "outcome")
"""The keys every [[expect]] entry must have."""
OUTCOMES = {False: ("holds", "violated"), True: ("reachable", "unreachable")}
"""The outcomes an invariant (False) and a witness (True) can be expected to have."""
FOUND = ("violated", "reachable")
"""The outcomes that come with a shortest trace, whose length `steps` may state."""

MAX_MANIFEST_BYTES = 2**20
"""The largest manifest read (1 MiB): thousands of entries, far more than a CI job checks."""
MAX_NESTING = 16
"""The deepest a manifest may nest arrays and inline tables (an [[expect]] header is 2 deep,
`bounds = { ... }` in an entry 1), and the most parts a dotted key (a.b.c) may have beyond its
first: deeper nesting makes the TOML parser recurse, and its time and memory grow with the
square of a key's parts (a key of 20,000 parts took it 4 seconds and 1.5 GB)."""
MAX_NOTE_CHARACTERS = 1000
"""The longest note an entry may have, and the longest reason its `not-judged` or
`allow-deviations` may give."""

_HEADER = re.compile(r"^\s*\[\[\s*expect\s*\]\]")
_LEXEMES = re.compile("|".join([
    r'"""(?:[^"\\]|\\[\s\S]?|"(?!""))*(?:"""(?:""?)?|\Z)',  # a multi-line basic string, closed or not
    r"'''(?:[^']|'(?!''))*(?:'''(?:''?)?|\Z)",  # a multi-line literal string, closed or not
    r'"(?:[^"\\\n]|\\.)*"?',  # a basic string, to its closing quote or its line's end
    r"'[^'\n]*'?",  # a literal string, likewise
    r"#[^\n]*",  # a comment
    r"[\[\]{}=,\n]",  # what nests, and what ends a key
    r"[^\s\"'#\[\]{}=,]+",  # a bare word: a key or its parts (a.b.c), a dot, a number, a date, true
]))
"""The lexemes of TOML text as far as nesting goes: strings and comments (skipped whole),
brackets and braces, and the words and dots of a key. Each alternative matches whatever follows
its first character, so no text makes the scan backtrack."""


class ManifestError(ValueError):
    """A manifest that cannot be run: unreadable, not TOML, or an entry naming something the
    models do not have. The message is one line naming the file and, for an entry, its line."""


@dataclass(frozen=True)
class Expectation:
    """One [[expect]] entry: the model and variant (the model's default filled in), the bounds
    as written (Python names) and in full (defaults filled in), the property, the expected
    outcome and shortest trace length (None: any), the actions and events that must fire in the
    search (`checker.coverage`), a note, its place among the entries (from 1) and the line of its
    header (None when the file does not write it as [[expect]]), the deviations its trace may rest
    on (row, why) and why its trace may be one the audit does not judge ("" when it may not)."""

    model: str
    variant: str | None
    given: dict[str, Any]
    bounds: dict[str, Any]
    prop: str
    outcome: str
    steps: int | None = None
    fires: tuple[str, ...] = ()
    note: str = ""
    number: int = 0
    line: int | None = None
    allow_deviations: tuple[tuple[str, str], ...] = ()
    not_judged: str = ""

    @property
    def expected(self) -> str:
        """The expectation in words: 'violated in 8 steps', 'holds', 'reachable', with the
        actions and events it expects to fire: 'holds; fires ElrElection'."""
        fires = f"; fires {', '.join(self.fires)}" if self.fires else ""
        return self.outcome + (f" in {self.steps} steps" if self.steps is not None else "") + fires

    def silent(self, result) -> list[str]:
        """Which of the actions and events this expects to fire never did in the search."""
        never = set(result.coverage.never_fired())
        return [name for name in self.fires if name in never]

    def found(self, result) -> tuple[str, int | None]:
        """What a search (a `checker.result.CheckResult` of this model instance) found for the
        property: its verdict and shortest trace length (None when there is no trace)."""
        trace = result.violations.get(self.prop)
        return result.verdict(self.prop), (len(trace) if trace is not None else None)

    def surprised(self, result, audit=None) -> bool:
        """The search found another outcome, or another shortest trace length than stated, or its
        trace's `audit` (`traces.audit.Audit`, None when not audited) disagrees with the
        deviations the entry allows."""
        verdict, steps = self.found(result)
        return (verdict != self.outcome or (self.steps is not None and steps != self.steps)
                or bool(self.silent(result)) or self.audit_problem(audit) is not None)

    def audit_problem(self, audit) -> str | None:
        """What is wrong with the trace's audit against this entry, in words: it is not judged and
        the entry does not say why (`not-judged`), or it is judged and the entry says it is not; it
        rests on a deviation the entry does not allow, or the entry allows one it does not rest on.
        None when it agrees, or when there is no audit (no trace, or a model without a rule table)."""
        if audit is None:
            return None
        if audit.not_judged:
            return None if self.not_judged else (f"its trace is not judged ({audit.not_judged}), and the entry does "
                                                 f"not say why (not-judged)")
        if self.not_judged:
            return "not-judged says why its trace is not judged, and it is judged"
        allowed = dict(self.allow_deviations)
        failing = set(audit.deviations) if not audit.as_kafka_in else set()
        unallowed = [row for row in audit.deviations if row in failing and row not in allowed]
        if unallowed:
            return "its trace rests on deviation " + ", ".join(
                f"{row} at step {', '.join(map(str, audit.deviations[row]))}" for row in unallowed)
        unused = [row for row in allowed if row not in audit.deviations]
        if unused:
            return f"allow-deviations names {', '.join(unused)}, which its trace does not rest on"
        return None

    def audit_text(self, audit) -> str:
        """The audit as `verify`'s table and JUnit report show it: 'as Kafka 2.7 to 3.4', 'not judged:
        <why>', 'deviation allowed: <row> (<why>)' or the problem; empty when not audited. The
        reasons are the entry's own words, on one line."""
        if audit is None:
            return ""
        problem = self.audit_problem(audit)
        if problem:
            return problem
        if audit.not_judged:
            return f"not judged: {one_line(self.not_judged)}"
        if self.allow_deviations:
            return "deviation allowed: " + "; ".join(f"{row} ({one_line(why)})" for row, why in self.allow_deviations)
        from traces.audit import spell_releases

        return f"as Kafka {spell_releases(audit.as_kafka_in, audit.releases)}"


@dataclass
class Group:
    """Expectations that one search answers: the model instance they share, the properties to
    check in it, and the expectations in manifest order."""

    model: Any
    properties: list = field(default_factory=list)
    expectations: list[Expectation] = field(default_factory=list)


def found_text(verdict: str, steps: int | None, silent: list[str] = ()) -> str:
    """A found outcome in words, as `Expectation.expected` words an expected one, naming the
    expected actions and events that never fired."""
    return verdict + (f" in {steps} steps" if steps is not None else "") + (
        f"; {', '.join(silent)} never fired" if silent else "")


def load(path: Path) -> list[Group]:
    """Read and check the manifest at `path`, and group its expectations by the search that
    answers them (model, variant and full bounds), in order of first appearance. ManifestError
    (one line, naming the file and the entry's line) for a missing or unreadable file, bad
    TOML, an unknown key, model, variant, bound or property, a bound out of range, settings the
    model refuses, a property that does not apply to them, or an outcome or steps that cannot be;
    and for a file past the limits: over MAX_MANIFEST_BYTES, nested deeper than MAX_NESTING, a
    number too long to read, steps over MAX_STEPS, a note over MAX_NOTE_CHARACTERS."""
    text = _text(path)
    data = _toml(path, text)
    unknown = [k for k in data if k != "expect"]
    if unknown:
        raise ManifestError(f"{path}: unknown top-level key {quoted(unknown[0])} (a manifest holds [[expect]] entries)")
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


def _text(path: Path) -> str:
    """The manifest's text; ManifestError when it cannot be read or has more than
    MAX_MANIFEST_BYTES."""
    try:
        return read_text_file(Path(path), "manifest", MAX_MANIFEST_BYTES)
    except UnreadableFile as exc:
        raise ManifestError(f"{path}: cannot read it ({exc.reason})") from None


def _toml(path: Path, text: str) -> dict:
    """The manifest's TOML document; ManifestError for text that is not TOML, nests deeper than
    MAX_NESTING (refused before the parser sees it) or holds a whole number too long for Python
    to read."""
    line = _too_deep(text)
    if line is not None:
        raise ManifestError(f"{path} line {line}: arrays, inline tables or a dotted key nested more than "
                            f"{MAX_NESTING} deep")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {_toml_problem(exc)}") from None
    except RecursionError:  # _too_deep leaves the parser no deep nesting; should one slip by
        raise ManifestError(f"{path}: not valid TOML: nested too deeply") from None
    except ValueError:  # Python refuses to convert an integer of thousands of digits
        raise ManifestError(f"{path}: not valid TOML: a whole number of more than {sys.get_int_max_str_digits():,} "
                            "digits") from None


def _too_deep(text: str) -> int | None:
    """The line on which `text` first nests arrays and inline tables, or the parts of a dotted
    key (a.b.c), more than MAX_NESTING deep (None if it never does): a scan of the text that
    skips strings and comments, without parsing it."""
    depth = dots = 0
    for lexeme in _LEXEMES.finditer(text):
        token = lexeme.group()
        if token[0] in "[{":
            depth += 1
        elif token[0] in "]}":
            depth = max(depth - 1, 0)
        if token[0] not in "\"'":  # a string is one part of a key: its dots are no separators
            dots = dots + token.count(".") if token[0] not in "[]{}=,\n#" else 0
        if depth > MAX_NESTING or dots > MAX_NESTING:
            return text.count("\n", 0, lexeme.start()) + 1
    return None


def _toml_problem(exc: tomllib.TOMLDecodeError) -> str:
    """tomllib's message, what it quotes of the file (a key declared twice) cut to a short
    prefix, and where: 'Cannot declare ('k...',) twice (at line 3, column 12)'."""
    message = str(exc)
    cut = message.rfind(" (at ")
    what, where = (message[:cut], message[cut:]) if cut >= 0 else (message, "")
    limit = 2 * QUOTED_CHARACTERS
    return (what if len(what) <= limit else what[:limit] + "...") + where


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
        raise ValueError(f"unknown key {quoted(unknown[0])} (known: {', '.join(KEYS)})")
    missing = [k for k in REQUIRED if k not in entry]
    if missing:
        raise ValueError(f"missing key {missing[0]!r}")
    for key in ("model", "variant", "property", "outcome", "note"):
        if key in entry and not isinstance(entry[key], str):
            raise ValueError(f"{key} must be a string, got {quoted(entry[key])}")
    note = entry.get("note", "")
    if len(note) > MAX_NOTE_CHARACTERS:
        raise ValueError(f"note has {len(note):,} characters, more than the {MAX_NOTE_CHARACTERS:,} a note may have")
    kind = MODELS.get(entry["model"])
    if kind is None:
        raise ValueError(f"unknown model {quoted(entry['model'])} (choose from {', '.join(MODELS)})")
    given = _bounds(kind, entry.get("bounds", {}))
    model = build_model(kind.name, _variant(kind, entry), **given)  # ModelError: a ValueError
    prop = _property(kind.name, entry["property"])
    outcome, steps = entry["outcome"], entry.get("steps")
    choices = OUTCOMES[prop.witness]
    if outcome not in choices:
        what = "a witness" if prop.witness else "an invariant"
        raise ValueError(f"outcome {quoted(outcome)} for {prop.name}, {what}: choose {' or '.join(choices)}")
    if steps is not None:
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be a whole number of 0 or more, got {quoted(steps)}")
        if steps > MAX_STEPS:
            raise ValueError(f"steps must be at most {MAX_STEPS:,} (the longest trace replcheck reads), "
                             f"got {quoted(steps)}")
        if outcome not in FOUND:
            raise ValueError(f"steps applies to outcome {' or '.join(FOUND)} (a shortest trace), not {outcome}")
    return Expectation(kind.name, model.variant, given, dict(model.parameters()), prop.name, outcome, steps,
                       _fires(model, entry.get("fires", [])), note, number, line,
                       _allowed(model, outcome, entry.get("allow-deviations", {})),
                       _not_judged(model, outcome, entry.get("not-judged")))


def _reason(key: str, why) -> str:
    """A reason an entry gives (`not-judged`, a row of `allow-deviations`): text of at most
    MAX_NOTE_CHARACTERS that says something (ValueError otherwise)."""
    if not isinstance(why, str) or not why.strip():
        raise ValueError(f"{key} must say why in words, such as \"a rule set that stands for Kafka 2.0.1\", "
                         f"got {quoted(why)}")
    if len(why) > MAX_NOTE_CHARACTERS:
        raise ValueError(f"{key} has {len(why):,} characters, more than the {MAX_NOTE_CHARACTERS:,} a reason may have")
    return why


def _not_judged(model, outcome: str, why) -> str:
    """The entry's `not-judged` (`why`, None when it has none): why its trace may be one the
    audit does not judge ("" for none; ValueError for no reason, an outcome with no trace to
    audit, or a model with no rule table to audit against)."""
    if why is None:
        return ""
    why = _reason("not-judged", why)
    if not hasattr(model, "audit"):
        raise ValueError(f"not-judged applies to a model whose traces are audited against Kafka's code (fetch, "
                         f"kraft), not {model.name}")
    if outcome not in FOUND:
        raise ValueError(f"not-judged applies to outcome {' or '.join(FOUND)} (a trace to audit), not {outcome}")
    return why


def _allowed(model, outcome: str, rows) -> tuple[tuple[str, str], ...]:
    """The entry's `allow-deviations`: rule-table rows of its model, each with why it is allowed
    (ValueError naming an unknown one, a row with no reason, an outcome with no trace to audit,
    or a model with no deviation to allow: one without `rule_rows`, such as `spec`, or `kraft`,
    whose audited rows are as Kafka, abstractions or missing behaviour, never a deviation)."""
    if not isinstance(rows, dict):
        raise ValueError(f"allow-deviations must be a table of rule-table rows, each with why it is allowed, such "
                         f"as {{ offset-out-of-range = \"KAFKA-1 needs a power loss\" }}, got {quoted(rows)}")
    if not rows:
        return ()
    for row, why in rows.items():
        _reason(f"allow-deviations row {quoted(row)}", why)
    if not hasattr(model, "rule_rows"):
        raise ValueError(f"allow-deviations applies to a model whose rule table has deviations from Kafka's code "
                         f"(fetch), not {model.name}: no trace of it rests on one")
    if outcome not in FOUND:
        raise ValueError(f"allow-deviations applies to outcome {' or '.join(FOUND)} (a trace to audit), not {outcome}")
    known = model.rule_rows()
    for row in rows:
        if row not in known:
            raise ValueError(f"allow-deviations names {quoted(row)}, no row of the rule table "
                             f"(see `replcheck trace audit` or docs/models/fetch.md)")
    return tuple(rows.items())


def _fires(model, fires) -> tuple[str, ...]:
    """The entry's `fires`: a list of the model's action kinds and named events (ValueError
    naming an unknown one)."""
    if not isinstance(fires, list) or not all(isinstance(name, str) for name in fires):
        raise ValueError(f"fires must be a list of action or event names such as [\"ElrElection\"], got {quoted(fires)}")
    kernel = getattr(model, "kernel", None)
    known = list(model.action_kinds()) + (kernel.guards.event_names() if kernel is not None else [])
    for name in fires:
        if name not in known:
            raise ValueError(f"fires names {quoted(name)}, no action or event of model {model.name} "
                             f"(choose from {', '.join(known)})")
    return tuple(fires)


def _variant(kind, entry: dict) -> str | None:
    """The entry's variant with its `rules` table (rule = "choice") switched, as `--rule` would."""
    from model.rules import with_switches

    rules = entry.get("rules")
    if rules is None:
        return entry.get("variant")
    if not isinstance(rules, dict) or not all(isinstance(v, str) for v in rules.values()):
        raise ValueError(f"rules must be a table such as {{ hw-advance = \"plain\" }}, got {quoted(rules)}")
    if kind.rules is None:
        raise ValueError(f"model {kind.name} has no rules to switch")
    return with_switches(entry.get("variant") or kind.default_variant, [f"{k}={v}" for k, v in rules.items()])


def _bounds(kind, bounds) -> dict[str, Any]:
    """The entry's bounds by Python name (`max-crashes` and `max_crashes` alike), each value
    checked against its parameter; flags take true/false or "on"/"off", choices a string or a
    number (acks = 1)."""
    if not isinstance(bounds, dict):
        raise ValueError(f"bounds must be a table such as {{ replicas = 3 }}, got {quoted(bounds)}")
    params = {p.key: p for p in kind.params}
    given = {}
    for name, value in bounds.items():
        key = name.replace("-", "_")
        param = params.get(key)
        if param is None:
            known = ", ".join(p.name for p in kind.params) or "none"
            raise ValueError(f"unknown bound {quoted(name)} for model {kind.name} (its bounds: {known})")
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
        raise ValueError(f"unknown property {quoted(name)} for model {model} (choose from {', '.join(known)})")
    return known[name]
