"""`replcheck distinguish`: the shortest behaviour that tells two variants apart."""

from __future__ import annotations

import json
import sys
from functools import partial

import click

from checker.atomic_file import write_atomically
from checker.distinction_report import distinction_explained, distinction_json, distinction_summary, distinction_table
from checker.distinguish import distinguish as tell_apart, first_difference
from checker.output_kinds import PAIR_PICTURE, model_run
from checker.progress import prepare_kernels
from invariants.registry import select
from model.params import ModelError
from model.registry import build_model
from traces.store import save_trace
from .common import (applicable, check_report_options, default_output, make_output_dir, render_or_fail,
                     stdout_console, trace_files, with_rules)
from .errors import EXIT_VIOLATED, UserError
from .search import search


def distinguish(model_name, variants, rules, invariant_name, explain, trace_dir, render_format, as_json, partitions, master,
                engine, **bounds):
    """`replcheck distinguish` (cli.py declares its options and help)."""
    names = [v.strip() for v in variants.split(",")]
    if len(names) != 2 or not all(names):
        raise UserError(f"--variants takes two variants, A,B, not {variants!r}")
    check_report_options(as_json, False, render_format, trace_dir)
    try:
        (prop,) = select(model_name, [invariant_name])
        models = [build_model(model_name, with_rules(model_name, v, rules), ghost=prop.needs_ghost, **bounds)
                  for v in names]
    except ModelError as exc:
        raise UserError(str(exc)) from None
    names = [model.variant for model in models]
    if names[0] == names[1]:
        raise UserError(f"--variants names {names[0]} twice: give two different variants")
    if getattr(models[0], "rules", None) and models[0].rules == models[1].rules:
        raise UserError(f"--variants {names[0]} and {names[1]} have the same rules: give two different rule sets")
    applicable(models, [prop], True)
    path = trace_dir / f"{model_name}-{names[0]}-vs-{names[1]}-{prop.name}.json" if trace_dir is not None else None
    if path is not None:  # its trace, the pair picture and the trace's picture, checked before the search
        make_output_dir(trace_dir, {**trace_files(path, model_run(models[0], prop.name), render_format),
                                    path.with_suffix(".pair.svg"): (PAIR_PICTURE, None)}, {})
    prepare_kernels(models)
    with search(engine, master, partitions, None, None, f"{model_name} {names[0]} against {names[1]}") as (explore,
                                                                                                      on_level):
        found = tell_apart(partial(explore, on_level=on_level), models[0], models[1], prop)
    first, second = names
    parted = first_difference(found.first, found.second) if found.first is not None else None
    files = {}
    if found.first is not None and trace_dir is not None:  # A's side is a counterexample of A's model
        try:
            save_trace(found.first, models[0], path)
        except OSError as exc:
            raise UserError(f"cannot write trace file {path}: {exc.strerror}") from None
        files[first] = str(path)
        if render_format:
            render_or_fail(path, render_format, default_output(path, render_format, "lanes"))
        from traces.pair_picture import pair_svg  # matplotlib: only when a picture is drawn

        pair = path.with_suffix(".pair.svg")
        try:
            write_atomically(pair, pair_svg(found.first, models[0], found.second, models[1],
                                            distinction_explained(models, prop, found, parted)), PAIR_PICTURE)
        except OSError as exc:
            raise UserError(f"cannot write picture {pair}: {exc.strerror}") from None
        files["pair picture"] = str(pair)
    if as_json:
        click.echo(json.dumps(distinction_json(models, prop, found, parted, files), indent=2))
    else:
        console = stdout_console()
        console.print(distinction_summary(models, prop, found))
        if found.first is not None:
            console.print(distinction_table(models, found))
            if explain:
                for line in distinction_explained(models, prop, found, parted):
                    console.print("- " + line, highlight=False)
            for variant, path in files.items():
                console.print(f"{variant}: {path}", highlight=False)
    sys.exit(EXIT_VIOLATED if found.first is not None else 0)

