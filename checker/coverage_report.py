"""Presenting a search's coverage (`checker.coverage`): the `--coverage` table and JSON."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .coverage import INIT
from .result import CheckResult


def coverage_json(result: CheckResult) -> dict[str, Any] | None:
    """The `coverage` object of `--coverage --json` (None when the engine kept none)."""
    return result.coverage.to_json() if result.coverage is not None else None


def coverage_table(result: CheckResult) -> Table:
    """Per action kind, and per acting replica under it: the states in which it was enabled,
    the steps fired, the new states they found and the first depth at which one fired; a kind
    that never fired is shown, dimmed, with the states it was enabled in (none)."""
    coverage = result.coverage
    table = Table(title=f"coverage: {coverage.expanded:,} states expanded", title_justify="left")
    for column, justify in (("action", "left"), ("enabled in", "right"), ("fired", "right"),
                            ("new states", "right"), ("first depth", "right")):
        table.add_column(column, justify=justify)
    table.add_row(INIT, "-", "-", f"{coverage.initial:,}", "0")
    for k, name in enumerate(coverage.kinds):
        row = coverage.row(k)
        style = "dim" if row["fired"] == 0 else None
        table.add_row(name, *_cells(row), style=style)
        for actor in coverage.replicas_of(k):
            table.add_row(f"  by r{actor + 1}", *_cells(coverage.row(k, actor)), style="dim" if style else None)
    return table


def _cells(row: dict[str, Any]) -> list[str]:
    first = row["first_depth"]
    return [f"{row['enabled']:,}", f"{row['fired']:,}", f"{row['new']:,}", "never" if first is None else str(first)]
