"""A trace as a terminal step table: one row per step, one column per replica, changes
highlighted."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from model.registry import MODELS

from .outcome import outcome
from .trace import Trace


def _cell(lines: list[str], previous: list[str] | None) -> Text:
    """The column's lines, each highlighted when it differs from the previous step's line."""
    text = Text()
    for i, line in enumerate(lines):
        changed = previous is not None and (i >= len(previous) or previous[i] != line)
        text.append(line, style="bold yellow" if changed else "")
        if i < len(lines) - 1:
            text.append("\n")
    return text


def trace_table(trace: Trace, model) -> Table:
    """The trace as a rich Table: step number, the action in protocol words, then every column
    of `model.state_columns`, with what changed at that step highlighted."""
    switches = MODELS[trace.model].switches(trace.variant) if trace.model in MODELS else ""
    table = Table(title=f"{trace.model} {trace.variant or ''}: {outcome(trace)}", caption=switches or None,
                  show_lines=True, title_justify="left", caption_justify="left")
    states = [trace.initial] + [step.state for step in trace.steps]
    columns = [model.state_columns(state) for state in states]
    names = list(dict.fromkeys(name for shown in columns for name in shown))  # some appear mid-trace (ghost)
    table.add_column("#", justify="right", style="dim")
    table.add_column("action", ratio=2, min_width=30)
    for name in names:
        table.add_column(name, ratio=1)
    table.add_row("0", "initial state", *(_cell(columns[0].get(name, []), None) for name in names))
    for i, step in enumerate(trace.steps, 1):
        last = i == len(trace.steps)
        action = Text(model.describe_step(step.action, states[i - 1], step.state), style="bold red" if last else "")
        table.add_row(str(i), action, *(_cell(columns[i].get(name, []), columns[i - 1].get(name, [])) for name in names))
    return table
