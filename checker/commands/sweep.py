"""`replcheck sweep`: every combination of the given settings."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from checker.ci import junit as junit_xml
from checker.coverage_report import coverage_matrix, warning_lines
from checker.report import sweep_markdown, sweep_table, sweep_to_json
from checker.sweep import configurations, sweep
from invariants.registry import select
from model.params import ModelError
from model.registry import MODELS
from .common import (buildable, check_report_options, count_guards, default_output, make_trace_dir, render_or_fail, save_traces,
                     stdout_console, symmetry_for, with_rules, write_junit)
from .errors import UserError
from .search import search


def sweep_command(model_name, variant, rules, invariant_names, trace_dir, render_format, as_json, as_markdown, engine, master,
                  partitions, work_dir, memory_budget, progress_file, symmetry, junit=None, show_coverage=False,
                  reduce=False, **settings):
    """`replcheck sweep` (cli.py declares its options and help)."""
    kind = MODELS.get(model_name)
    if kind is None:
        raise UserError(f"unknown model {model_name!r} (choose from {', '.join(MODELS)})")
    check_report_options(as_json, as_markdown, render_format, trace_dir)
    variant = with_rules(model_name, variant, rules)
    params = {p.key: p for p in kind.params}
    choices = {}
    for key, text in settings.items():
        if text is None:
            continue
        if key not in params:
            raise UserError(f"--{key.replace('_', '-')} does not apply to model {model_name}")
        choices[key] = parse_values(params[key], text)
    if not invariant_names and model_name == "fetch":
        invariant_names = ("acked-survives", "committed-survives")
    try:
        invariants = select(model_name, invariant_names)
        ghost = any(i.needs_ghost for i in invariants)
        configs, models = buildable(model_name, variant, ghost, configurations(choices))
    except ModelError as exc:
        raise UserError(str(exc)) from None
    make_trace_dir(trace_dir, [(m, sweep_tag(c), [i.name for i in invariants]) for c, m in zip(configs, models)],
                   render_format, {"--junit": junit, "--progress": progress_file})
    symmetric = symmetry_for(models, invariants, symmetry)
    count_guards(models, show_coverage)
    with search(engine, master, partitions, work_dir, memory_budget, f"{model_name} sweep", models, symmetric,
                progress_file=progress_file) as (explore, on_level):
        runs = sweep(explore, list(zip(configs, models)), invariants, on_level, reduce)
    kept = []  # each run's saved traces, for the JUnit report
    if trace_dir is not None:
        for (config, result), model in zip(runs, models):
            kept.append(save_traces(result, model, trace_dir, sweep_tag(config)))
            for path in kept[-1].values():
                if render_format:
                    render_or_fail(Path(path), render_format, default_output(Path(path), render_format, "lanes"))
    names = [i.name for i in invariants]
    if as_json:
        click.echo(json.dumps(sweep_to_json(runs, show_coverage), indent=2))
    elif as_markdown:
        click.echo(sweep_markdown(runs, names), nl=False)
    else:
        console = stdout_console()
        console.print(sweep_table(runs, names))
        for config, result in runs:
            for line in warning_lines(result):
                console.print(f"{configuration_words(config)}: {line}", style="yellow", highlight=False, soft_wrap=True)
        if show_coverage:
            console.print(coverage_matrix([replace(result, variant=configuration_words(config)) for config, result in runs]))
    write_junit(junit, [junit_xml.result_suite(result, kept[i] if kept else {}, model, config, names)
                        for i, ((config, result), model) in enumerate(zip(runs, models))])


def sweep_tag(config: dict) -> str:
    """A configuration as its traces' names carry it: 'acks=1_min-insync-replicas=2'."""
    return "_".join(f"{k.replace('_', '-')}={v}" for k, v in config.items())


def parse_values(param, text: str) -> list:
    """The values a sweep option names, checked against the parameter; UserError otherwise."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if param.kind == "flag":
        flags = {"on": [True], "true": [True], "off": [False], "false": [False], "both": [False, True]}
        if not words or any(w not in flags for w in words):
            raise UserError(f"--{param.name} takes on, off or both, got {text!r}")
        return [v for w in words for v in flags[w]]
    if not words:
        raise UserError(f"--{param.name} names no value, got {text!r}")
    try:
        values = [int(w) for w in words] if param.kind == "int" else words
        return [param.check(v) for v in values]
    except ModelError as exc:
        raise UserError(str(exc)) from None
    except ValueError:
        raise UserError(f"--{param.name} takes whole numbers, got {text!r}") from None


def configuration_words(config: dict) -> str:
    """A sweep's configuration as its options say it: 'acks=1 min-insync-replicas=2'."""
    return " ".join(f"{key.replace('_', '-')}={value}" for key, value in config.items())
