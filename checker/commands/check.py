"""`replcheck check` and `replcheck resume`: one exhaustive search, its tables, traces and
JUnit report.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from checker.ci import junit as junit_xml
from checker.checkpoint.identity import CheckpointError, RunIdentity
from checker.checkpoint.saver import Saver
from checker.checkpoint.snapshot import read_snapshot
from checker.coverage_report import coverage_tables, warning_lines
from checker.reduce import reducing
from checker.report import action_table, property_tables, result_to_json, summary_table
from invariants.registry import select
from model.params import ModelError
from model.registry import build_model
from traces.table import trace_table
from .common import (count_guards, make_trace_dir, model_and_properties, saved_traces, stdout_console, symmetry_for,
                     write_junit)
from .errors import EXIT_VIOLATED, UserError
from .search import search


def check(model_name, variant, rules, invariant_names, keep_going, max_depth, trace_dir, as_json, checkpoint_dir,
          checkpoint_every, engine, master, partitions, work_dir, memory_budget, progress_file, symmetry, junit=None,
          show_coverage=False, coverage_html=None, reduce=False, **bounds):
    """`replcheck check` (cli.py declares its options and help)."""
    if reduce and checkpoint_dir is not None:
        raise UserError("--reduce cannot be combined with --checkpoint-dir yet: a checkpoint keeps a full search")
    model, invariants = model_and_properties(model_name, variant, invariant_names, bounds, rules)
    make_trace_dir(trace_dir, [(model, "", [i.name for i in invariants])],
                   others={"--junit": junit, "--coverage-html": coverage_html, "--progress": progress_file})
    symmetric = symmetry_for([model], invariants, symmetry)
    saver = open_saver(checkpoint_dir, model, invariants, symmetric, checkpoint_every, not keep_going, max_depth)
    run_check(model, invariants, symmetric, not keep_going, max_depth, saver, trace_dir, as_json,
              engine, master, partitions, work_dir, memory_budget, progress_file, junit, show_coverage, coverage_html,
              reduce)


def resume(directory, max_depth, trace_dir, as_json, checkpoint_every, engine, master, partitions, work_dir,
           memory_budget, progress_file, show_coverage=False, coverage_html=None):
    """`replcheck resume` (cli.py declares its options and help)."""
    try:
        saved = read_snapshot(directory)
    except CheckpointError as exc:
        raise UserError(f"checkpoint {directory}: {exc}") from None
    if saved is None:
        raise UserError(f"{directory} holds no checkpoint (its run saved none before it stopped, or it is not a "
                        "checkpoint directory)")
    wanted = saved.identity
    try:
        invariants = select(wanted.model, wanted.invariants)
        model = build_model(wanted.model, wanted.variant, ghost=any(i.needs_ghost for i in invariants),
                            **wanted.parameters)
    except (ModelError, TypeError) as exc:
        raise UserError(f"checkpoint {directory}: its run cannot be rebuilt ({exc})") from None
    make_trace_dir(trace_dir, [(model, "", [i.name for i in invariants])],
                   others={"--coverage-html": coverage_html, "--progress": progress_file})
    depth = saved.max_depth if max_depth is None else max_depth
    saver = open_saver(directory, model, invariants, wanted.symmetry, checkpoint_every, saved.stop_at_first, depth)
    run_check(model, invariants, wanted.symmetry, saved.stop_at_first, depth, saver, trace_dir, as_json,
              engine, master, partitions, work_dir, memory_budget, progress_file, show_coverage=show_coverage,
              coverage_html=coverage_html)


def write_coverage_page(path: Path | None, result) -> None:
    """Write the coverage page of `result` to `path` (if one was asked for), atomically; a
    one-line UserError when it cannot be written, or `path` is anything but a coverage page
    replcheck wrote (`checker.output_kinds`)."""
    if path is None:
        return
    from checker.atomic_file import write_atomically
    from checker.coverage_html import coverage_page
    from checker.output_kinds import COVERAGE_PAGE

    try:
        write_atomically(path, coverage_page(result), COVERAGE_PAGE)
    except OSError as exc:
        raise UserError(f"cannot write the coverage page {path}: {exc.strerror or exc}") from None


def open_saver(directory: Path | None, model, invariants, symmetric: bool, every: float, stop_at_first: bool,
               max_depth: int | None):
    """The checkpoint saver for a run (None without `directory`); a notice on stderr when it
    continues a saved checkpoint; UserError when the directory cannot serve."""
    if directory is None:
        return None
    if getattr(model, "kernel", None) is None:
        which = " ".join(str(part) for part in (model.name, getattr(model, "variant", None)) if part)
        raise UserError(f"--checkpoint-dir needs a model with a compiled kernel (spec, fetch, kraft), and "
                        f"{which} has none")
    try:
        saver = Saver(directory, RunIdentity.of(model, invariants, symmetric), every, stop_at_first=stop_at_first,
                      max_depth=max_depth)
    except CheckpointError as exc:
        raise UserError(f"checkpoint {directory}: {exc}") from None
    saved = saver.resumed
    if saved is not None:
        click.echo(f"resuming the checkpoint in {directory}: depth {saved.depth}, {saved.distinct:,} distinct states, "
                   f"{saved.seconds:,.1f} s of search so far", err=True)
    return saver


def run_check(model, invariants, symmetric: bool, stop_at_first: bool, max_depth: int | None, saver,
              trace_dir: Path | None, as_json: bool, engine: str, master: str | None, partitions: int | None,
              work_dir: str | None, memory_budget: int | None, progress_file: Path | None,
              junit: Path | None = None, show_coverage: bool = False, coverage_html: Path | None = None,
              reduce: bool = False) -> None:
    """Search `model` for violations of the invariants and for the witnesses among `invariants`,
    print the result (with its coverage when `show_coverage`, and as a page to `coverage_html`),
    save its traces, and exit 0 (no invariant is violated and every property
    was decided), 1 (an invariant is violated, or the search stopped before every property was
    decided) or 2 (a trace, or the JUnit report asked for with `junit`, could not be saved).
    With `reduce` the search is reduced by stubborn sets where the model and properties allow
    (`checker.reduce`); a violation it finds is searched again without the reduction, to its
    depth, for the shortest trace."""
    label = f"{model.name} {model.variant or ''}".strip()
    count_guards([model], show_coverage or coverage_html is not None)
    with search(engine, master, partitions, work_dir, memory_budget, label, [model], symmetric, invariants, saver,
                as_json, progress_file) as (explore, on_level):
        result = reducing(explore, reduce)(model, invariants, stop_at_first=stop_at_first, max_depth=max_depth,
                                           on_level=on_level)

    trace_files, unsaved = {}, None
    try:  # a trace that cannot be written must not cost the verdict: it is printed first
        for name, path in saved_traces(result, model, trace_dir) if trace_dir is not None else ():
            trace_files[name] = path
    except UserError as exc:
        unsaved = exc

    if as_json:
        click.echo(json.dumps(result_to_json(result, trace_files, show_coverage), indent=2))
    else:
        console = stdout_console()
        console.print(summary_table(result))
        for table in property_tables(result, trace_files):
            console.print(table)
        for line in warning_lines(result):
            console.print(line, style="yellow", highlight=False, soft_wrap=True)
        for table in coverage_tables(result) if show_coverage else [action_table(result)]:
            console.print(table)
        for trace in result.violations.values():
            console.print(trace_table(trace, model))
    write_junit(junit, [junit_xml.result_suite(result, trace_files, model)])
    write_coverage_page(coverage_html, result)
    if unsaved is not None:
        raise unsaved
    sys.exit(0 if result.ok and result.decided else EXIT_VIOLATED)

