"""A trace's abstractions, vouched for step by step (`model.vouches`).

Every step that rests on an abstraction row the model vouches for by a check (`Merges`) is
checked: a step that is not the sequence of Kafka's steps the row's claim names rests on a
deviation of that row, in every release the row is an abstraction in. A row vouched for by
Kafka's own choice of a rule (`KafkaChoice`) is listed with the switches a search with Kafka's
behaviour needs (`checker.commands.reruns` runs it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from model.rule_table import ABSTRACTION, DEVIATION
from model.vouches import KafkaChoice, Merges, Steps, Vouch

from .audit import Audit, RowStatus, Vouched
from .trace import Trace


def _failed(row: RowStatus, why: str) -> RowStatus:
    """`row` with its abstraction statuses turned into deviations, noted with why the step is none
    of the sequences the claim names."""
    return replace(row, statuses=tuple((DEVIATION, releases, f"the abstraction's claim fails: {why}")
                                       if kind == ABSTRACTION else (kind, releases, note)
                                       for kind, releases, note in row.statuses))


def vouched(audit: Audit, trace: Trace, model, vouches: Mapping[str, Vouch]) -> Audit:
    """`audit` (of `trace`, in `model`) with each abstraction it rests on vouched for: every step
    that rests on a row vouched for by a check, and that the model takes as it is now (a step
    saved before a fix is judged by the fixed row), is checked; a failed check is a deviation of
    that row at that step, in the releases the row is an abstraction in."""
    steps = Steps(model, trace.states(), [step.action for step in trace.steps])
    resting: dict[str, list[int]] = {}
    failures: dict[str, list[tuple[int, str]]] = {}
    failing_releases: set[str] = set()
    judged = []
    for step in audit.steps:
        rows = []
        for row in step.rows:
            vouch = vouches.get(row.row)
            if vouch is not None and ABSTRACTION in row.kinds():
                resting.setdefault(row.row, []).append(step.step)
                why = vouch.check(steps, step.step) if isinstance(vouch, Merges) and step.replays else None
                if why:
                    failures.setdefault(row.row, []).append((step.step, why))
                    failing_releases.update(r for kind, rel, _ in row.statuses if kind == ABSTRACTION for r in rel)
                    row = _failed(row, why)
            rows.append(row)
        judged.append(replace(step, rows=tuple(rows)))
    deviations = {key: list(at) for key, at in audit.deviations.items()}
    for key, failed in failures.items():
        deviations[key] = sorted(set(deviations.get(key, [])) | {at for at, _ in failed})
    preset = audit.variant.split("+")[0]
    listed = tuple(Vouched(key, vouches[key].how, vouches[key].claim, tuple(at), tuple(failures.get(key, ())),
                           _switches(vouches[key], preset)) for key, at in resting.items())
    return replace(audit, steps=tuple(judged), deviations={key: tuple(at) for key, at in deviations.items()},
                   as_kafka_in=tuple(r for r in audit.as_kafka_in if r not in failing_releases), vouched=listed)


def _switches(vouch: Vouch, preset: str) -> tuple[tuple[str, str], ...]:
    """The rule switches that give Kafka's own behaviour for a row vouched for by a Kafka choice,
    under variant `preset` (none for a row vouched for by a check)."""
    if not isinstance(vouch, KafkaChoice):
        return ()
    return tuple(vouch.choices.get(preset, {}).items())
