"""`replcheck simulate`: random walks, their shortened counterexamples and tables."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import click

from checker.ci import junit as junit_xml
from checker.jobs.engines import simulation_session
from checker.spark.java import EngineUnavailable
from checker.background_compile import kernels_ready
from checker.progress import walk_progress
from checker.simulation.shorten import shorten
from checker.coverage_report import walk_coverage_tables
from checker.simulation.report import (milestones_table, properties_table as simulated_properties, simulation_json,
                                       summary_table as simulation_summary)
from traces.table import trace_table
from .common import (check_report_options, count_guards, default_output, make_trace_dir, model_and_properties, render_or_fail, saved_traces,
                     stdout_console, symmetry_for, write_junit)
from .errors import EXIT_VIOLATED, UserError


def simulate(model_name, variant, rules, invariant_names, walks, seconds, max_depth, swarm, weights, seed, trace_dir,
             render_format, as_json, partitions, master, engine, junit=None, show_coverage=False, steer="auto",
             **bounds):
    """`replcheck simulate` (cli.py declares its options and help)."""
    if not 1 <= max_depth <= 100_000:
        raise UserError(f"--max-depth must be from 1 to 100000, not {max_depth}")
    check_report_options(as_json, False, render_format, trace_dir)
    if walks is None and seconds is None:
        walks = 10_000
    model, properties = model_and_properties(model_name, variant, invariant_names, bounds, rules)
    count_guards([model], show_coverage)
    make_trace_dir(trace_dir, [(model, "", [p.name for p in properties])], render_format, {"--junit": junit})
    options = {"seed": seed, "max_depth": max_depth, "swarm": swarm, "weights": weights,
               "steer": steered_toward(steer, properties)}
    try:
        label = f"simulating {model.name} {model.variant or ''} ({engine})".replace("  ", " ")
        with kernels_ready([model], walks=True, here=engine == "local"), \
                simulation_session(engine, master=master, partitions=partitions) as simulate_on, \
                walk_progress(label) as on_batch:
            started = time.monotonic()
            tally = simulate_on(model, properties, walks=walks, seconds=seconds, on_batch=on_batch, **options)
            elapsed = time.monotonic() - started
    except EngineUnavailable as exc:
        raise UserError(str(exc)) from None
    symmetric = symmetry_for([model], properties, None)
    by_name = {p.name: p for p in properties}
    shortened = {name: shorten(model, by_name[name], found.actions, symmetric)
                 for name, found in sorted(tally.found.items(), key=lambda item: list(by_name).index(item[0]))}
    files, unsaved = {}, None
    try:
        result = SimpleNamespace(violations={name: short.trace for name, short in shortened.items()})
        for name, path in saved_traces(result, model, trace_dir) if trace_dir is not None else ():
            files[name] = path
            if render_format:
                render_or_fail(Path(path), render_format, default_output(Path(path), render_format, "lanes"))
    except UserError as exc:
        unsaved = exc
    engine_text = engine if engine == "local" else f"spark ({master or 'local[*]'})"
    if as_json:
        click.echo(json.dumps(simulation_json(model, properties, tally, elapsed, options, engine_text, shortened,
                                              files, show_coverage), indent=2))
    else:
        console = stdout_console()
        console.print(simulation_summary(model, tally, elapsed, options, engine_text))
        console.print(simulated_properties(properties, tally, shortened, files))
        milestones = milestones_table(properties, tally, options["steer"])
        if milestones is not None:
            console.print(milestones)
        if show_coverage and tally.coverage is not None:
            for table in walk_coverage_tables(tally.coverage):
                console.print(table)
        for short in shortened.values():
            console.print(trace_table(short.trace, model))
    write_junit(junit, [junit_xml.simulation_suite(model, properties, {n: s.trace for n, s in shortened.items()},
                                                   tally.walks, elapsed, files)])
    if unsaved is not None:
        raise unsaved
    violated = any(name in tally.found and not by_name[name].witness for name in by_name)
    sys.exit(EXIT_VIOLATED if violated else 0)


def steered_toward(steer: str, properties) -> str | None:
    """The invariant whose milestones steer the walks (`checker.simulation.splitting`), by `--steer`: a
    checked invariant that has milestones, the first such one for 'auto' (None when there is
    none), or None for 'none'."""
    if steer == "none":
        return None
    chosen = [p for p in properties if getattr(p, "milestones", ())]
    if steer == "auto":
        return chosen[0].name if chosen else None
    if steer in {p.name for p in chosen}:
        return steer
    if steer in {p.name for p in properties}:
        raise UserError(f"--steer {steer}: that invariant has no milestones to steer by"
                        + (f" (these have: {', '.join(p.name for p in chosen)})" if chosen else ""))
    raise UserError(f"--steer {steer}: not an invariant this run checks (choose one with --invariant, or auto, or none)")

