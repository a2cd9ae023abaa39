"""`replcheck compare`: every invariant under every variant of a model."""

from __future__ import annotations

import json
from pathlib import Path

import click

from checker.ci import junit as junit_xml
from checker.compare import compare_variants
from checker.coverage_report import coverage_matrix, warning_lines
from checker.report import comparison_markdown, comparison_table, comparison_to_json
from invariants.registry import select
from model.params import ModelError
from model.registry import MODELS, build_model
from .common import (applicable, check_report_options, count_guards, default_output, make_trace_dir, render_or_fail, save_traces,
                     stdout_console, symmetry_for, with_rules, write_junit)
from .errors import UserError
from .search import search


def compare(model_name, variants, rules, invariant_names, trace_dir, render_format, as_json, as_markdown, engine, master,
            partitions, work_dir, memory_budget, progress_file, symmetry, junit=None, show_coverage=False, reduce=False,
            **bounds):
    """`replcheck compare` (cli.py declares its options and help)."""
    kind = MODELS.get(model_name)
    if kind is None:
        raise UserError(f"unknown model {model_name!r} (choose from {', '.join(MODELS)})")
    if not kind.variants:
        raise UserError(f"model {model_name} has no variants to compare")
    chosen = [v.strip() for v in variants.split(",") if v.strip()] if variants is not None else list(kind.variants)
    if not chosen:
        raise UserError(f"--variants names no variant (choose from {', '.join(kind.variants)})")
    check_report_options(as_json, as_markdown, render_format, trace_dir)
    try:
        invariants = select(model_name, invariant_names)
        ghost = any(i.needs_ghost for i in invariants)
        models = {}
        for v in chosen:
            model = build_model(model_name, with_rules(model_name, v, rules), ghost=ghost, **bounds)
            if model.variant in models:
                raise UserError(f"--variants names {model.variant} twice" + (" (with --rule)" if rules else ""))
            models[model.variant] = model
    except ModelError as exc:
        raise UserError(str(exc)) from None
    invariants = applicable(models.values(), invariants, bool(invariant_names), everywhere=False)
    make_trace_dir(trace_dir, [(m, "", [i.name for i in invariants]) for m in models.values()], render_format,
                   {"--junit": junit, "--progress": progress_file})

    symmetric = symmetry_for(list(models.values()), invariants, symmetry)
    count_guards(models.values(), show_coverage)
    with search(engine, master, partitions, work_dir, memory_budget, model_name, models.values(), symmetric,
                progress_file=progress_file) as (explore, on_level):
        results = compare_variants(explore, models, invariants, on_level, reduce)

    trace_files, pictures = {}, {}
    if trace_dir is not None:
        for result in results:
            model = models[result.variant]
            for name, path in save_traces(result, model, trace_dir).items():
                trace_files[(result.variant, name)] = path
                if render_format:
                    picture = default_output(Path(path), render_format, "lanes")
                    render_or_fail(Path(path), render_format, picture)
                    pictures[(result.variant, name)] = picture
    if as_json:
        click.echo(json.dumps(comparison_to_json(results, trace_files, show_coverage), indent=2))
    elif as_markdown:
        click.echo(comparison_markdown(results), nl=False)
    else:
        console = stdout_console()
        console.print(comparison_table(results))
        for result in results:
            for line in warning_lines(result):
                console.print(f"{result.variant}: {line}", style="yellow", highlight=False, soft_wrap=True)
        if show_coverage:
            console.print(coverage_matrix(results))
        for (variant, name), path in trace_files.items():
            picture = pictures.get((variant, name))
            console.print(f"{variant} {name}: {path}" + (f" (picture: {picture})" if picture else ""), highlight=False)
    every = [name for r in results for name in r.invariants]  # a property n/a under a variant is skipped there
    write_junit(junit, [junit_xml.result_suite(r, {n: p for (v, n), p in trace_files.items() if v == r.variant},
                                               models[r.variant], properties=every) for r in results])

