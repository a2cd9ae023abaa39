"""`replcheck trace show` and `replcheck trace render`, declared here rather than in cli.py:
their options name the formats `traces.render` offers, and importing it imports numba. cli.py's
`trace` group loads them when it runs.
"""

from __future__ import annotations

from pathlib import Path

import click

from checker.compile_notice import compile_notices
from checker.file_roles import INPUT, OUTPUT, same_place
from checker.output_kinds import RENDERED, file_refusal
from traces.explain import explain as explain_trace
from traces.render import FORMATS, PICTURES
from traces.store import TraceFileError, load_trace
from traces.table import trace_table
from .command import ReplcheckCommand
from .common import default_output, render_or_fail, stdout_console
from .errors import UserError
from .paths import NonEmptyPath


@click.command("show", cls=ReplcheckCommand)
@click.argument("file", type=NonEmptyPath(role=INPUT, path_type=Path))
@click.option("--explain", is_flag=True, help="add a plain-language account of what happened")
def trace_show(file, explain):
    """Print a trace as a step table: one row per step, one column per replica."""
    with compile_notices():  # reading a trace replays it on the model's kernel
        try:
            loaded, model = load_trace(file)
        except TraceFileError as exc:
            raise UserError(str(exc)) from None
        console = stdout_console()
        console.print(trace_table(loaded, model))
        if explain:
            console.print("[bold]What happened[/]")
            for line in explain_trace(loaded, model):
                console.print(f"- {line}", highlight=False)


@click.command("render", cls=ReplcheckCommand)
@click.argument("file", type=NonEmptyPath(role=INPUT, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True, help="output format")
@click.option("--picture", type=click.Choice(PICTURES), default="lanes", show_default=True,
              help="svg/png: replica lanes, or the trace graph")
@click.option("-o", "--output", type=NonEmptyPath(role=OUTPUT, path_type=Path), default=None, metavar="FILE",
              help="output file (default: beside FILE, named by picture and format)")
def trace_render(file, fmt, picture, output):
    """Render a trace: lanes picture (svg, png), trace graph (dot, graphml, json) or an HTML page."""
    out = output or default_output(Path(file), fmt, picture)
    if same_place(out, Path(file)):
        raise UserError(f"{out} is the trace file itself: choose another output with -o")
    problem = file_refusal("-o", out, RENDERED[fmt])  # the default beside the trace too
    if problem is not None:
        raise UserError(problem)
    with compile_notices():
        render_or_fail(Path(file), fmt, out, picture)
    click.echo(str(out))


COMMANDS = {"show": trace_show, "render": trace_render}
"""`replcheck trace`'s subcommands, by name."""
