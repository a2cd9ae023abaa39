"""`replcheck trace show` and `replcheck trace render`, declared here rather than in cli.py:
their options name the formats `traces.render` offers, and importing it imports the models.
cli.py's `trace` group loads them when it runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from checker.compile_notice import compile_notices
from checker.file_roles import INPUT, OUTPUT, same_place
from checker.output_kinds import RENDERED, file_refusal
from traces.audit import EXIT, row_words
from traces.audit_table import audit_table
from traces.before_fix import judge_before_fix
from traces.explain import explain as explain_trace
from traces.render import FORMATS, PICTURES
from traces.store import TraceFileError, check_behaviour, load_trace, read_json_file, trace_from_json
from traces.table import trace_table
from .command import ReplcheckCommand
from .common import default_output, render_or_fail, stdout_console
from .errors import UserError
from .paths import NonEmptyPath
from .reruns import reruns


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
            if hasattr(model, "audit"):
                print_rests_on(console, model.audit(loaded))


def print_rests_on(console, audit) -> None:
    """`--explain`'s account of Kafka's code: each step that rests on more than rows as Kafka,
    with those rows and their status, then the audit's one-line conclusion."""
    releases = f" (Kafka {', '.join(audit.releases)})" if audit.releases else ""
    console.print(f"[bold]What it rests on in Kafka's code[/]{releases}")
    for step in audit.steps:
        named = [row_words(row, audit.releases) for row in step.rows if row.kinds() != {"as Kafka"}]
        if named:
            console.print(f"- step {step.step}: {'; '.join(named)}", highlight=False)
    console.print(audit.conclusion(), highlight=False)


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


@click.command("audit", cls=ReplcheckCommand)
@click.argument("file", type=NonEmptyPath(role=INPUT, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: each step's rows and the verdict")
def trace_audit(file, as_json):
    """Judge a trace against Kafka's code: each step with the rule-table rows it rests on and
    their status in the variant's releases.

    A step resting on an abstraction is checked against the claim that vouches for it (a step
    that fails it is a deviation); where the abstraction is vouched for by Kafka's own choice of
    a rule, the trace's check is searched again with that choice, at the same bounds.

    Exits 0 when every step is as Kafka (for the releases named), 1 when some step rests on a
    deviation (or the rule set is no release and is not judged), or when Kafka's own behaviour
    gives the trace's bounds another verdict, 2 on bad input."""
    with compile_notices():  # the audit replays the trace on the model's kernel
        try:
            audit = audited(file)
            searched = searched_again(file, audit)
        except TraceFileError as exc:
            raise UserError(str(exc)) from None
    if as_json:
        click.echo(json.dumps({"trace": str(file), **with_searches(audit.to_json(), searched)}, indent=2))
    else:
        console = stdout_console()
        console.print(audit_table(audit))
        if audit.before_fix is not None:
            console.print(f"saved before the rule it rests on was fixed: {audit.before_fix.words()}", highlight=False)
        for again in searched:
            console.print(again.line(), highlight=False)
        console.print(audit.conclusion(), highlight=False)
    raise SystemExit(1 if any(again.changed for again in searched) else EXIT[audit.verdict])


def searched_again(file: Path, audit) -> list:
    """The searches again with Kafka's own behaviour that the audit of trace `file` asks for
    (`reruns.reruns`), run now."""
    if not any(row.switches for row in audit.vouched):
        return []
    loaded, model = load_trace(file, replay=False)
    return reruns(loaded, model, audit)


def with_searches(doc: dict, searched: list) -> dict:
    """The audit's JSON with each search again under its row's abstraction check."""
    by_row = {again.row: again.to_json() for again in searched}
    for check in doc.get("abstraction_checks", ()):
        if check["row"] in by_row:
            check["search_again"] = by_row[check["row"]]
    return doc


def audited(file: Path):
    """The audit of trace `file`, read as `trace show` reads it, or TraceFileError with the one-line
    reason it is not judged. A trace the model takes now must be the counterexample `trace show`
    accepts. One it does not take is judged only as a trace saved before a fix, once every step
    replays as one the model took then (`traces.before_fix`)."""
    doc = read_json_file(file, "trace")
    loaded, model = trace_from_json(doc, str(file), replay=False)
    if not hasattr(model, "audit"):
        raise TraceFileError(f"{file}: model {loaded.model} has no rule table to audit against (only fetch "
                             f"and kraft traces are judged against Kafka's code)")
    if loaded.first_unreplayed(model) is None:
        check_behaviour(loaded, model, str(file))
        return model.audit(loaded)
    return judge_before_fix(loaded, model, doc.get("rules"), str(file))


COMMANDS = {"show": trace_show, "render": trace_render, "audit": trace_audit}
"""`replcheck trace`'s subcommands, by name."""
