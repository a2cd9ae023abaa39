"""A model's contract with Kafka, as data: its rule table, one row per rule of the protocol,
saying what the model does, which Kafka code does it (`Class.method` @ where it was read,
`model.citations`), and, column by column, whether the two agree. A table's columns are what
its statuses are judged over: Kafka releases (`model.fetch.rule_table`) or faithful variants
(`model.kraft.rule_table`). Each model keeps only its rows and its own words; the rows' type,
their making and their Markdown are here.

A row's status for a column is one of:

- "as Kafka": the model does what that release's code does;
- "abstraction": the model merges or leaves out behaviours on purpose, and the note says why
  (a trace through it is still one that release can take);
- "deviation": that release's code does not take this step: a trace that rests on it is not
  the release's story;
- "missing": the release has behaviour the model lacks; no step rests on it, but a "holds"
  there may be one the release does not have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

AS_KAFKA, ABSTRACTION, DEVIATION, MISSING = "as Kafka", "abstraction", "deviation", "missing"
KINDS = (AS_KAFKA, ABSTRACTION, DEVIATION, MISSING)


@dataclass(frozen=True)
class Status:
    """A row's status for some of its table's columns (releases, or faithful variants), oldest
    first, with the note that says how the model and Kafka differ (or why they may: an
    abstraction)."""

    kind: str
    releases: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class Row:
    """One rule of the protocol: its key (as the audit names it), title, the `--rule` switch that
    chooses it (None when fixed), what the model does, Kafka's code for it, its status per
    column, and the action kinds every step of which enacts it (empty for a row that only some
    branches of a step take, which the model's audit recognises). A row with `fixed` (how it
    was fixed) is a step the model took before a rule was corrected and no longer takes: the
    audit still names it in traces saved before the fix, and the docs list it apart from the
    table."""

    key: str
    title: str
    rule: str | None
    does: str
    sources: str
    statuses: tuple[Status, ...]
    steps: tuple[str, ...] = ()
    fixed: str = ""

    def status(self, column: str) -> Status:
        """The row's status under `column` (a release, or a faithful variant, of its table)."""
        return next(status for status in self.statuses if column in status.releases)


@dataclass(frozen=True)
class Columns:
    """What a table's statuses are judged over: its columns, oldest first, the names that stand
    for several of them (a variant for its releases), and the status kinds its rows may take."""

    order: tuple[str, ...]
    groups: Mapping[str, tuple[str, ...]]
    kinds: tuple[str, ...] = KINDS

    def of(self, spec: str) -> tuple[str, ...]:
        """The columns a status names, oldest first: space-separated columns, group names (all
        their columns), ranges ("2.1-2.6") and "all"."""
        chosen: set[str] = set()
        for word in spec.split():
            if word == "all":
                chosen.update(self.order)
            elif word in self.groups:
                chosen.update(self.groups[word])
            elif word not in self.order and "-" in word:
                first, last = word.split("-")
                chosen.update(self.order[self.order.index(first):self.order.index(last) + 1])
            else:
                chosen.add(self.order[self.order.index(word)])
        return tuple(column for column in self.order if column in chosen)

    def row(self, key, title, rule, does, sources, *statuses, steps=(), fixed="") -> Row:
        """A row from statuses written (kind, columns spec as `of` reads it, note); the statuses
        must cover every column once."""
        made = tuple(Status(kind, self.of(spec), note) for kind, spec, note in statuses)
        covered = [column for status in made for column in status.releases]
        assert sorted(covered, key=self.order.index) == list(self.order), (key, covered)
        assert all(status.kind in self.kinds for status in made), key
        return Row(key, title, rule, does, sources, made, tuple(steps), fixed)


Spell = Callable[[tuple[str, ...]], str]
"""A model's words for some of its table's columns ("every variant", "`kip101`", ...)."""


def status_cell(row: Row, spell: Spell) -> str:
    """Every status of a row, with the columns it holds for and its note."""
    return ". ".join(f"{status.kind} ({spell(status.releases)})" + (f": {status.note}" if status.note else "")
                     for status in row.statuses)


def table(rows: Sequence[Row], spell: Spell) -> str:
    """The rule table as Markdown: rule, audit key (and the steps that enact it), `--rule`, what
    the model does, Kafka source, status; fixed rows are left to `deviations`."""
    lines = ["| rule | audit key | `--rule` | what the model does | Kafka source | status |",
             "|---|---|---|---|---|---|"]
    for row in (row for row in rows if not row.fixed):
        switch = f"`{row.rule}`" if row.rule else "fixed"
        steps = f" (every `{'`, `'.join(row.steps)}`)" if row.steps else ""
        lines.append(f"| {row.title} | `{row.key}`{steps} | {switch} | {row.does} | {row.sources} | "
                     f"{status_cell(row, spell)} |")
    return "\n".join(lines)


def deviations(rows: Sequence[Row], spell: Spell) -> str:
    """The deviation list: one line per open row and status that is a deviation or missing
    behaviour, then the fixed ones the audit still names in older traces."""
    lines, fixed = [], []
    for row in rows:
        for status in row.statuses:
            if status.kind in (DEVIATION, MISSING):
                what = "a step Kafka does not take" if status.kind == DEVIATION else "behaviour the model lacks"
                line = f"- **{row.title}** (`{row.key}`, {spell(status.releases)}; {what}): {status.note}."
                if row.fixed:
                    fixed.append(f"{line[:-1]}. Fixed: {row.fixed}.")
                else:
                    lines.append(line)
    if fixed:
        lines += ["", "Fixed, and still named by `trace audit` in a trace saved before the fix:", ""] + fixed
    return "\n".join(lines)


def rewritten(text: str, sections: Sequence[tuple[str, str, str]]) -> str:
    """A page's `text` with each generated section (begin marker, end marker, body) put between
    its markers in place of what was there."""
    for begin, end, body in sections:
        head, _, rest = text.partition(begin)
        _, _, tail = rest.partition(end)
        text = f"{head}{begin}\n{body}\n{end}{tail}"
    return text
