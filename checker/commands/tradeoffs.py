"""`replcheck tradeoffs`: the ISR against a majority quorum (`model.fetch.tradeoffs`)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from invariants.registry import select
from model.fetch import tradeoffs
from model.params import ModelError
from model.registry import build_model
from .common import (check_report_options, default_output, make_trace_dir, render_or_fail, save_traces, stdout_console,
                     symmetry_for)
from .errors import UserError
from .search import search
from .tradeoff_report import claims_text, tradeoff_markdown, tradeoff_table, tradeoff_to_json


def tradeoffs_command(flush, max_records, max_epoch, max_crashes, trace_dir, render_format, as_json, as_markdown,
                      engine, master, partitions, work_dir, memory_budget, progress_file, symmetry):
    """`replcheck tradeoffs` (cli.py declares its options and help)."""
    check_report_options(as_json, as_markdown, render_format, trace_dir)
    bounds = {**tradeoffs.BOUNDS, "flush": flush, "max_records": max_records, "max_epoch": max_epoch,
              "max_crashes": max_crashes}
    properties = select("fetch", [q.prop for q in tradeoffs.QUESTIONS])
    try:
        models = tradeoffs.setup_models(lambda **settings: build_model("fetch", "kip320", ghost=True, **settings),
                                        bounds)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    make_trace_dir(trace_dir, [(m, setup.slug, [p.name for p in properties]) for setup, m in models], render_format,
                   {"--progress": progress_file})
    symmetric = symmetry_for([m for _, m in models], properties, symmetry)
    with search(engine, master, partitions, work_dir, memory_budget, "trade-offs", [m for _, m in models], symmetric,
                progress_file=progress_file) as (explore, on_level):
        runs = tradeoffs.run(explore, models, properties, on_level)
    trace_files = {}
    if trace_dir is not None:
        for (setup, model), (_, result) in zip(models, runs):
            for prop, path in save_traces(result, model, trace_dir, setup.slug).items():
                trace_files[setup.label, prop] = path
                if render_format:
                    render_or_fail(Path(path), render_format, default_output(Path(path), render_format, "lanes"))
    claims = tradeoffs.claim_verdicts(runs)
    if as_json:
        click.echo(json.dumps(tradeoff_to_json(runs, tradeoffs.QUESTIONS, claims, trace_files), indent=2))
    elif as_markdown:
        click.echo(tradeoff_markdown(runs, tradeoffs.QUESTIONS, claims), nl=False)
    else:
        console = stdout_console()
        console.print(tradeoff_table(runs, tradeoffs.QUESTIONS))
        console.print("[bold]The articles' claims[/]")
        for line in claims_text(claims):
            console.print("- " + line, highlight=False)
        for (label, prop), path in trace_files.items():
            console.print(f"{label} {prop}: {path}", highlight=False)

