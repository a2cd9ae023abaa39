"""An audit (`traces.audit`) as a terminal table: one row per step, with the rule-table rows it
rests on and their status, deviations in red and abstractions dimmed."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from .audit import Audit, row_words

STYLES = {"deviation": "bold red", "missing": "yellow", "abstraction": "dim", "as Kafka": ""}
"""How a row's worst status is shown."""

WORST = ("deviation", "missing", "abstraction", "as Kafka")


def _worst(kinds: set[str]) -> str:
    """The most serious of a row's statuses across the variant's releases."""
    return next(kind for kind in WORST if kind in kinds)


def audit_table(audit: Audit) -> Table:
    """The audit as a rich Table titled by the variant and its releases."""
    title = f"{audit.model} {audit.variant}: audited against Kafka {', '.join(audit.releases)}"
    table = Table(title=title, show_lines=False, title_justify="left")
    table.add_column("#", justify="right", style="dim")
    table.add_column("step", ratio=2, min_width=30)
    table.add_column("rests on (status)", ratio=2, min_width=30)
    for step in audit.steps:
        rows = Text()
        for i, row in enumerate(step.rows):
            rows.append(row_words(row, audit.releases), style=STYLES[_worst(row.kinds())])
            if i < len(step.rows) - 1:
                rows.append("\n")
        description = step.description if step.replays else f"{step.description} [not a step of the model now]"
        table.add_row(str(step.step), description, rows)
    return table
