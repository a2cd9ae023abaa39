"""A trace audited against Kafka's code: each step with the rows of its model's rule table that
it rests on, and their status under the releases the trace's variant stands for.

The verdict is one of three: every step is as Kafka for some of the variant's releases (named;
abstractions are named, each step checked where its row is vouched for by a check: a step that
fails it is a deviation, `traces.vouching`), some step rests on a deviation in every release of
the variant, or the trace is not judged (a switched rule set or a majority quorum is no release).
A model builds the audit (`model.fetch.audit`, `model.kraft.audit`); this module holds it and
says it.
"""

from __future__ import annotations

from dataclasses import dataclass

AS_KAFKA, DEVIATES, NOT_JUDGED = "as-kafka", "deviation", "not-judged"
EXIT = {AS_KAFKA: 0, DEVIATES: 1, NOT_JUDGED: 1}
"""`replcheck trace audit`'s exit status per verdict (2 is bad input)."""


@dataclass(frozen=True)
class RowStatus:
    """One row a step rests on: its key and title, its status (kind and note) for each group of
    the variant's releases that share one, and, for a step the model took before a fix and no
    longer takes, how it was fixed and, where the fix is a choice of a rule the model still
    offers, that rule."""

    row: str
    title: str
    statuses: tuple[tuple[str, tuple[str, ...], str], ...]
    fixed: str = ""
    fixed_by_rule: str = ""

    def removed_by_a_fix(self) -> bool:
        """A fix in the model's code removed this row's step, which no rule choice takes any more
        (a fix that is a rule's choice leaves the old step to the rule's other choice), and the
        step is a deviation in some of the variant's releases."""
        return bool(self.fixed) and not self.fixed_by_rule and DEVIATES in self.kinds()

    def kinds(self) -> set[str]:
        """The row's statuses across the variant's releases."""
        return {kind for kind, _, _ in self.statuses}


@dataclass(frozen=True)
class StepAudit:
    """One step: its number (1-based), action, description and the rows it rests on; `replays`
    is False for the first step the variant no longer takes and any after it (for a trace saved
    before a fix, `traces.before_fix`, for exactly the steps it no longer takes)."""

    step: int
    action: tuple
    description: str
    rows: tuple[RowStatus, ...]
    replays: bool = True


@dataclass(frozen=True)
class BeforeFix:
    """How the steps of a trace saved before a fix replayed (`traces.before_fix`): under which
    rule set (the variant's own, or with rules added since it was saved at another choice), the
    steps only that rule set takes, and the steps no rule set takes any more, each resting on a
    row a fix removed."""

    rule_set: str
    switched_steps: tuple[int, ...]
    removed_steps: tuple[int, ...]

    def words(self) -> str:
        """The replay in one line, for `trace audit`'s text."""
        parts = []
        if self.switched_steps:
            parts.append(f"{_steps(self.switched_steps)} replay{'s' * (len(self.switched_steps) == 1)} under "
                         f"{self.rule_set}, with the choices of rules added since it was saved")
        if self.removed_steps:
            parts.append(f"{_steps(self.removed_steps)} {'is' if len(self.removed_steps) == 1 else 'are'} none the "
                         f"model takes now: a fix removed {'it' if len(self.removed_steps) == 1 else 'them'}")
        return "; ".join(parts)

    def to_json(self) -> dict:
        """The replay as JSON data (`trace audit --json`'s `before_fix`)."""
        return {"rule_set": self.rule_set, "switched_steps": list(self.switched_steps),
                "removed_steps": list(self.removed_steps)}


def _steps(numbers: tuple[int, ...]) -> str:
    """'step 3' or 'steps 3, 7'."""
    return f"step{'s' * (len(numbers) > 1)} {', '.join(map(str, numbers))}"


@dataclass(frozen=True)
class Vouched:
    """An abstraction row the trace rests on, and how it is vouched for (`model.vouches`): `how`
    ("merges": a check of every step; "kafka-choice": a search again with Kafka's own choice),
    the claim, the steps that rest on it, the steps whose check failed (with why: each is a
    deviation), and for a Kafka choice the rule switches to search with."""

    row: str
    how: str
    claim: str
    steps: tuple[int, ...]
    failures: tuple[tuple[int, str], ...] = ()
    switches: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict:
        """The row's vouching as JSON data."""
        return {"row": self.row, "vouched_by": self.how, "claim": self.claim, "steps": list(self.steps),
                "failed": [{"step": step, "why": why} for step, why in self.failures],
                **({"search_with": dict(self.switches)} if self.switches else {})}


@dataclass(frozen=True)
class Audit:
    """A whole trace's audit: the variant and its releases, each step's rows, the releases in which
    every step is as Kafka (empty when some step rests on a deviation in all of them), the
    deviations by row (row -> steps), why the trace is not judged, when it is not, the first
    step the variant does not take now (None when it takes them all), and, for a trace saved
    before a fix, how its steps replayed."""

    model: str
    variant: str
    releases: tuple[str, ...]
    steps: tuple[StepAudit, ...]
    as_kafka_in: tuple[str, ...]
    deviations: dict[str, tuple[int, ...]]
    not_judged: str | None = None
    first_unreplayed: int | None = None
    before_fix: BeforeFix | None = None
    vouched: tuple[Vouched, ...] = ()

    @property
    def verdict(self) -> str:
        """as-kafka, deviation or not-judged."""
        if self.not_judged:
            return NOT_JUDGED
        return AS_KAFKA if self.as_kafka_in else DEVIATES

    def conclusion(self) -> str:
        """The one line that ends the audit."""
        if self.not_judged:
            return f"not judged: {self.not_judged}"
        where = "; ".join(f"{row} at step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))}"
                          for row, steps in self.deviations.items())
        if not self.as_kafka_in:
            return f"rests on deviation {where}"
        line = f"every step as Kafka {spell_releases(self.as_kafka_in, self.releases)}"
        if self.deviations:
            others = tuple(r for r in self.releases if r not in self.as_kafka_in)
            line += f" (in {spell_releases(others, self.releases)} it rests on deviation {where})"
        return line

    def abstractions(self) -> list[str]:
        """The rows some step rests on that are abstractions in some of the judged releases."""
        return sorted({row.row for step in self.steps for row in step.rows if "abstraction" in row.kinds()})

    def to_json(self) -> dict:
        """The audit as JSON data (`trace audit --json`)."""
        return {
            "model": self.model, "variant": self.variant, "releases": list(self.releases),
            "verdict": self.verdict, "as_kafka_in": list(self.as_kafka_in),
            "deviations": [{"row": row, "steps": list(steps)} for row, steps in self.deviations.items()],
            "abstractions": self.abstractions(), "not_judged": self.not_judged,
            "first_unreplayed_step": self.first_unreplayed,
            "before_fix": self.before_fix.to_json() if self.before_fix else None, "conclusion": self.conclusion(),
            "abstraction_checks": [v.to_json() for v in self.vouched],
            "steps": [{"step": s.step, "action": list(s.action), "description": s.description, "replays": s.replays,
                       "rows": [{"row": r.row, "title": r.title, "fixed": r.fixed or None,
                                "fixed_by_rule": r.fixed_by_rule or None,
                                 "statuses": [{"status": kind, "releases": list(releases), "note": note}
                                              for kind, releases, note in r.statuses]} for r in s.rows]}
                      for s in self.steps],
        }


def audit_of(model: str, variant: str, releases: tuple[str, ...], steps: list[StepAudit] | tuple[StepAudit, ...],
             not_judged: str | None, first_unreplayed: int | None) -> Audit:
    """The audit of a trace whose `steps` are judged row by row over the variant's `releases`:
    the deviations by row (row -> steps), and the releases in which no step rests on one (none
    when the trace is `not_judged`, which says why)."""
    deviations: dict[str, list[int]] = {}
    fine = set(releases)
    for step in steps:
        for row in step.rows:
            failing = {r for kind, rel, _ in row.statuses if kind == DEVIATES for r in rel}
            if failing:
                deviations.setdefault(row.row, []).append(step.step)
                fine -= failing
    return Audit(model, variant, releases, tuple(steps), () if not_judged else tuple(r for r in releases if r in fine),
                 {row: tuple(numbers) for row, numbers in deviations.items()}, not_judged, first_unreplayed)


def spell_releases(releases: tuple[str, ...], within: tuple[str, ...]) -> str:
    """Some of `within`'s releases (a variant's, oldest first) as people write them: each run of
    consecutive ones as "2.7 to 3.4" (three or more) or "3.5, 3.6", the runs joined by commas."""
    runs: list[list[str]] = []
    for release in within:
        if release not in releases:
            runs.append([])
        elif runs and runs[-1]:
            runs[-1].append(release)
        else:
            runs.append([release])
    words = [f"{run[0]} to {run[-1]}" if len(run) >= 3 else ", ".join(run) for run in runs if run]
    return ", ".join(words)


def row_words(row: RowStatus, within: tuple[str, ...]) -> str:
    """A row as a step's audit line names it: its key and its status, per group of the variant's
    releases (`within`) when they differ."""
    if len(row.statuses) == 1:
        return f"{row.row} ({row.statuses[0][0]})"
    groups = "; ".join(f"{kind} in {spell_releases(releases, within)}" for kind, releases, _ in row.statuses)
    return f"{row.row} ({groups})"
