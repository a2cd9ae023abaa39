"""`replcheck replay`: a published scenario step by step."""

from __future__ import annotations

import sys

from rich.table import Table
from rich.text import Text

from model.registry import MODELS
from traces.scenario import first_failure, load_scenario, replay as run_replay
from traces.store import TraceFileError
from traces.text import printable
from .common import stdout_console
from .errors import EXIT_VIOLATED, UserError


def replay(file):
    """`replcheck replay` (cli.py declares its options and help)."""
    try:
        scenario = load_scenario(file)
    except TraceFileError as exc:
        raise UserError(str(exc)) from None
    result = run_replay(scenario)
    model = scenario.model
    switches = MODELS[model.name].switches(model.variant)
    table = Table(title=Text(printable(f"{scenario.name}  ({scenario.source})")), title_justify="left",
                  caption=switches or None, caption_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("step")
    lanes0 = model.lanes(result.states[0])
    for name in lanes0:
        table.add_column(f"{name} LEO/HW", justify="center")
    table.add_column("failing")
    for i, state in enumerate(result.states):
        text = "initial state" if i == 0 else model.describe_step(scenario.steps[i - 1][0], result.states[i - 1], state)
        note = printable(scenario.steps[i - 1][1]) if i else ""
        lanes = model.lanes(state)
        step = Text(text)  # plain text: a scenario's notes quote logs such as [a@e0]
        if note:
            step.append("\n" + note, style="dim")
        table.add_row(str(i), step,
                      *(f"{lane.leo}/{lane.hw}" for lane in lanes.values()), ", ".join(result.failing[i]) or "-")
    console = stdout_console()
    console.print(table)
    if result.stuck_at is not None:
        console.print(f"[bold red]step {result.stuck_at} ({scenario.steps[result.stuck_at - 1][0]}) is not enabled[/]; "
                      f"enabled: {', '.join(' '.join(map(str, a)) for a in result.enabled)}", highlight=False)
        sys.exit(EXIT_VIOLATED)
    if scenario.expect_violation is None:
        ok = not any(result.failing)
        console.print("every invariant holds at every step" if ok else "[bold red]an invariant failed[/]")
    else:
        at = first_failure(result, scenario.expect_violation)
        ok = at is not None and (scenario.expect_step is None or at == scenario.expect_step)
        console.print(f"{scenario.expect_violation} fails at step {at}" if at is not None else
                      f"[bold red]{scenario.expect_violation} never fails[/]")
    sys.exit(0 if ok else EXIT_VIOLATED)

