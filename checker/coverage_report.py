"""Presenting a search's coverage (`checker.coverage`): the `--coverage` table and JSON."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .result import CheckResult


def coverage_json(result: CheckResult) -> dict[str, Any] | None:
    """The `coverage` object of `--coverage --json` (None when the engine kept none)."""
    return result.coverage.to_json() if result.coverage is not None else None


def coverage_warnings(result: CheckResult) -> list[dict[str, Any]]:
    """For a complete search, each action or event the rules and configuration switch on
    (`CheckResult.relied_on`) that never fired: its name, what blocked it, and a sentence. A run
    that holds only because a bound kept the interesting behaviour out says so."""
    coverage = result.coverage
    if coverage is None or not result.complete:
        return []
    never = set(coverage.never_fired())
    warnings = []
    for name in result.relied_on:
        if name in never:
            why = why_not(coverage, name)
            if why:
                why = f" (guard {why})"
            elif not coverage.guards_counted and len(coverage.guards):
                why = " (--coverage names the guard that kept it from firing)"
            warnings.append({"never_fired": name, "blocked_by": coverage.blocked_by(name),
                             "message": f"{name} never fired at these bounds{why}"})
    return warnings


def warning_lines(result: CheckResult) -> list[str]:
    """The coverage warnings as the lines under a verdict: 'holds, but ... never fired ...'."""
    lead = "holds, but " if result.ok else "but "
    return [lead + warning["message"] for warning in coverage_warnings(result)]


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
    often it was false, and in what share of the states a search tested guards ('' when the
    model names no guard of it that was ever false)."""
    blocked = coverage.blocked_by(name)
    if blocked is None:
        return ""
    sample = f", in 1 state of {coverage.guard_sample}" if coverage.guard_sample > 1 else ""
    if blocked["always"]:
        return f"'{blocked['guard']}' false all {blocked['tested']:,} times tested{sample}"
    return f"'{blocked['guard']}' false {blocked['false']:,} of {blocked['tested']:,} times tested{sample}"


def _cells(row: dict[str, Any]) -> list[str]:
    first = row["first_depth"]
    return [f"{row['enabled']:,}", f"{row['fired']:,}", f"{row['new']:,}", "never" if first is None else str(first)]


def coverage_matrix(results: list[CheckResult]) -> Table:
    """Runs side by side (a comparison's variants): per action and event, the steps each run
    fired, 'never' (dimmed) where it never fired; the first depth in brackets."""
    table = Table(title="coverage: steps fired (first depth)", title_justify="left")
    table.add_column("action or event")
    for r in results:
        table.add_column(r.variant or r.model, justify="right")
    rows: dict[str, list[str]] = {}
    for i, r in enumerate(results):
        coverage = r.coverage
        figures = [(name, coverage.row(k)) for k, name in enumerate(coverage.kinds)]
        figures += list(coverage.events().items())
        for name, row in figures:
            cells = rows.setdefault(name, ["-"] * len(results))
            cells[i] = (f"{row['fired']:,} ({row['first_depth']})" if row["fired"] else "[dim]never[/]")
    for name, cells in rows.items():
        table.add_row(name, *cells)
    return table


def walk_coverage_tables(coverage) -> list[Table]:
    """A simulation's coverage: per action the steps of walks at which it was enabled, the steps
    taken and the earliest step number taken, with why an action never taken was not; per
    event the steps at which it was possible."""
    table = Table(title="coverage over the walks", title_justify="left")
    for column, justify in (("action", "left"), ("enabled at", "right"), ("taken", "right"),
                            ("first step", "right"), ("why not", "left")):
        table.add_column(column, justify=justify)
    for k, name in enumerate(coverage.kinds):
        row = coverage.row(k)
        first = row["first_depth"]
        table.add_row(name, f"{row['enabled']:,}", f"{row['fired']:,}", "never" if first is None else str(first),
                      "" if row["fired"] else why_not(coverage, name), style=None if row["fired"] else "dim")
    tables = [table]
    events = coverage.events()
    if events:
        table = Table(title="events", title_justify="left")
        for column, justify in (("event", "left"), ("possible at", "right"), ("why not", "left")):
            table.add_column(column, justify=justify)
        for name, row in events.items():
            table.add_row(name, f"{row['fired']:,}", "" if row["fired"] else why_not(coverage, name),
                          style=None if row["fired"] else "dim")
        tables.append(table)
    return tables
