"""Presenting a search's coverage (`checker.coverage`): the `--coverage` table and JSON."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .result import CheckResult


def coverage_json(result: CheckResult) -> dict[str, Any] | None:
    """The `coverage` object of `--coverage --json` (None when the engine kept none)."""
    return result.coverage.to_json() if result.coverage is not None else None


def coverage_tables(result: CheckResult) -> list[Table]:
    """The `--coverage` tables: the actions, then the model's named events (if it has any)."""
    coverage = result.coverage
    tables = [action_coverage_table(coverage)]
    events = coverage.events()
    if events:
        tables.append(event_table(coverage, events))
    return tables


def action_coverage_table(coverage) -> Table:
    """Per action kind, and per acting replica under it: the states in which it was enabled,
    the steps fired, the new states they found and the first depth at which one fired; a kind
    that never fired is dimmed, with the guard that kept it from firing."""
    title = f"coverage: {coverage.expanded:,} states expanded"
    if any(coverage.replica_acts):
        title += " (with symmetry, replicas as named in each orbit's representative)"
    table = Table(title=title, title_justify="left")
    for column, justify in (("action", "left"), ("enabled in", "right"), ("fired", "right"),
                            ("new states", "right"), ("first depth", "right"), ("why not", "left")):
        table.add_column(column, justify=justify)
    table.add_row("Init", "-", "-", f"{coverage.initial:,}", "0", "")
    for k, name in enumerate(coverage.kinds):
        row = coverage.row(k)
        style = "dim" if row["fired"] == 0 else None
        table.add_row(name, *_cells(row), why_not(coverage, name) if style else "", style=style)
        for actor in coverage.replicas_of(k):
            table.add_row(f"  by r{actor + 1}", *_cells(coverage.row(k, actor)), "")
    return table


def event_table(coverage, events: dict[str, dict[str, Any]]) -> Table:
    """Per named event (an election's kind, say): the steps that had it, the first depth one
    did and, when none did, the guard that kept it from happening."""
    table = Table(title="events", title_justify="left")
    for column, justify in (("event", "left"), ("steps", "right"), ("first depth", "right"), ("why not", "left")):
        table.add_column(column, justify=justify)
    for name, row in events.items():
        first = row["first_depth"]
        table.add_row(name, f"{row['fired']:,}", "never" if first is None else str(first),
                      "" if row["fired"] else why_not(coverage, name), style=None if row["fired"] else "dim")
    return table


def why_not(coverage, name: str) -> str:
    """What kept action kind or event `name` from firing, in words: its blocking guard and how
    often it was false ('' when the model names no guard of it that was ever false)."""
    blocked = coverage.blocked_by(name)
    if blocked is None:
        return ""
    if blocked["always"]:
        return f"{blocked['guard']}: false all {blocked['tested']:,} times tested"
    return f"{blocked['guard']}: false {blocked['false']:,} of {blocked['tested']:,} times"


def _cells(row: dict[str, Any]) -> list[str]:
    first = row["first_depth"]
    return [f"{row['enabled']:,}", f"{row['fired']:,}", f"{row['new']:,}", "never" if first is None else str(first)]
