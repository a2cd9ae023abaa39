"""`replcheck ablate`: which of a variant's rules an invariant needs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import click

from checker.jobs import ablation
from checker.jobs.ablation_report import (ablation_json, ablation_suite, minimal_lines, minimal_table, one_at_a_time_table)
from checker.spark.java import EngineUnavailable
from checker.progress import prepare_kernels
from checker.jobs.search_jobs import ONE_TASK, Job, job_session
from invariants.registry import select
from model.params import ModelError
from model.registry import MODELS, build_model
from traces.replay import violation_along
from traces.store import TraceFileError, trace_from_json
from .common import (applicable, check_report_options, default_output, make_dir, render_or_fail, saved_traces,
                     stdout_console, symmetry_for, with_rules, write_junit)
from .errors import UserError


def ablate(model_name, variant, rules, invariant_name, minimal, base, alternatives, trace_dir, render_format, as_json,
           as_markdown, engine, master, symmetry, junit=None, work_dir=None, memory_budget=None, reduce=False,
           **bounds):
    """`replcheck ablate` (cli.py declares its options and help)."""
    kind = MODELS.get(model_name)
    if kind is None:
        raise UserError(f"unknown model {model_name!r} (choose from {', '.join(MODELS)})")
    if kind.rules is None:
        raise UserError(f"model {model_name} has no rules to ablate (its variants are fixed)")
    if base is not None and not minimal:
        raise UserError("--base applies to --minimal (the rules are switched on top of it)")
    if alternatives and minimal:
        raise UserError("--alternatives applies to the one-rule-at-a-time table, not to --minimal")
    check_report_options(as_json, as_markdown, render_format, trace_dir)
    try:
        (prop,) = select(model_name, [invariant_name])
        model = build_model(model_name, with_rules(model_name, variant, rules), ghost=prop.needs_ghost, **bounds)
        variant_set = kind.rules.preset_rules(model.variant)
        base_set = kind.rules.preset_rules(base if base is not None else next(iter(kind.rules.presets)))
    except ModelError as exc:
        raise UserError(str(exc)) from None
    if prop.witness:
        raise UserError(f"{prop.name} is a witness: ablate asks which rules an invariant needs")
    applicable([model], [prop], True)
    make_dir(trace_dir)
    symmetric = symmetry_for([model], [prop], symmetry)
    parameters = dict(model.parameters())

    def job(name: str) -> Job:
        try:
            build_model(model_name, name, **parameters)
        except ModelError as exc:
            raise UserError(f"{name}: {exc}") from None
        return Job(model_name, name, parameters, prop.name, symmetric, reduce)

    def replays(trace_doc, name: str) -> int | None:
        other = build_model(model_name, name, ghost=prop.needs_ghost, **parameters)
        initial = other.state_from_json(trace_doc["initial"])
        return violation_along(other, prop, initial, [tuple(step["action"]) for step in trace_doc["steps"]])

    prepare_kernels([model])
    try:
        if engine == "spark":
            from checker.spark.engine import check_budget
            check_budget(model, memory_budget)
        with job_session(engine, master=master, work_dir=work_dir, memory_budget=memory_budget) as run:
            if minimal:
                rule_names, trials = ablation.minimal_rule_sets(kind.rules, variant_set, base_set, job, run, replays)
                searched = [t for t in trials if t.how == "searched"]
            else:
                mine, rows = ablation.one_at_a_time(kind.rules, variant_set, job, run, alternatives)
                searched = [mine] + [trial for *_, trial in rows]
    except EngineUnavailable as exc:
        raise UserError(str(exc)) from None
    traces, files = {}, {}
    for trial in searched:
        if trial.violated:
            try:
                traces[trial.variant], trace_model = trace_from_json(trial.outcome.trace)
            except TraceFileError as exc:  # a job's trace that does not replay here: a bug, said plainly
                raise UserError(f"{trial.variant}: its counterexample does not replay: {exc}") from None
            if trace_dir is not None:
                found = SimpleNamespace(violations={prop.name: traces[trial.variant]})
                for _, path in saved_traces(found, trace_model, trace_dir):
                    files[trial.variant] = path
                    if render_format:
                        render_or_fail(Path(path), render_format, default_output(Path(path), render_format, "lanes"))
    engine_text = engine if engine == "local" else (f"spark ({master or 'local[*]'}, one search a task; "
                                                        f"a search past {ONE_TASK:,} states on every task)")
    if reduce:
        engine_text += ", each search reduced by stubborn sets (--reduce): the same verdicts and shortest traces"
    if as_json:
        data = (ablation_json(model, prop, engine_text, base=base_set.name, rules=rule_names, trials=trials, files=files)
                if minimal else ablation_json(model, prop, engine_text, mine, rows, files=files))
        click.echo(json.dumps(data, indent=2))
    elif minimal:
        _print(minimal_table(model, prop, base_set.name, rule_names, trials, files, as_markdown), as_markdown)
        for line in minimal_lines(base_set.name, rule_names, trials):
            click.echo(line)
    else:
        _print(one_at_a_time_table(model, prop, mine, rows, files, as_markdown), as_markdown)
    if reduce and not as_json:
        click.echo("searched with stubborn sets (--reduce): the same verdicts and shortest traces, fewer states")
    write_junit(junit, [ablation_suite(model, prop, searched, traces, files)])


def _print(table, markdown: bool) -> None:
    if markdown:
        click.echo("\n".join(table))
    else:
        stdout_console().print(table)
