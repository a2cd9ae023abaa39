"""The `replcheck` command line: check a protocol variant, list what there is, show a trace.

Exit codes: 0 no checked invariant is violated and every checked property (invariant or
witness) was decided; 1 an invariant is violated, or the search stopped before every property
could be decided; 2 bad input (unknown model, variant or invariant, impossible
bounds, an unreadable or foreign trace file, an unwritable output path); 130 interrupted;
143 terminated (SIGTERM).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

from checker.interrupts import Terminated, interruptions_deferred, sigterm_raises

EXIT_VIOLATED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


def verdicts_so_far(reached=None, checked=()) -> dict[str, list[str]]:
    """The `checked` properties sorted by what an interrupted search knew of them after its last
    complete BFS level `reached` (None: none): invariants violated and not yet violated,
    witnesses reached and not yet reached."""
    violated = list(reached.violated) if reached is not None else []
    found = list(reached.reached) if reached is not None else []
    return {"violated": violated,
            "not_yet_violated": [p.name for p in checked if not p.witness and p.name not in violated],
            "reached": found,
            "not_yet_reached": [p.name for p in checked if p.witness and p.name not in found]}


def interruption_message(terminated: bool, reached=None, checked=(), checkpoint=None) -> str:
    """What a stopped run says: Ctrl-C or SIGTERM; how far the search got (`reached`: the last
    BFS level it completed, if any) and which of the `checked` properties were violated (or,
    for witnesses, reached) by then; and where its checkpoint is (`checkpoint`: (directory,
    depth)), else that nothing was kept."""
    stopped = "terminated (SIGTERM)" if terminated else "interrupted by the user"
    if reached is not None:
        stopped += f" after depth {reached.depth} of the search ({reached.distinct_total:,} distinct states, incomplete"
        for key, names in verdicts_so_far(reached, checked).items():
            if names:
                stopped += f"; {key.replace('_', ' ')}: {', '.join(names)}"
        stopped += ")"
    if checkpoint is not None:
        directory, depth = checkpoint
        return (f"{stopped}; checkpoint at depth {depth} saved in {directory}: "
                f"continue with `replcheck resume {directory}`")
    return f"{stopped}; no result or trace was written"


def interruption_json(terminated: bool, reached=None, checked=(), checkpoint=None) -> dict:
    """The same facts as `interruption_message`, as the JSON object `--json` prints."""
    return {"interrupted": "SIGTERM" if terminated else "SIGINT", "complete": False,
            "depth": reached.depth if reached is not None else None,
            "distinct_states": reached.distinct_total if reached is not None else None,
            **verdicts_so_far(reached, checked),
            "checkpoint": ({"directory": str(checkpoint[0]), "depth": checkpoint[1]} if checkpoint is not None
                           else None)}


try:  # importing numba, the models and Spark's helpers takes most of a second: Ctrl-C there is still one line
    with interruptions_deferred():
        import json
        import time
        import traceback
        from contextlib import contextmanager
        from functools import partial
        from pathlib import Path
        from types import SimpleNamespace

        import click
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        from checker.checkpoint.identity import CheckpointError, RunIdentity
        from checker.checkpoint.saver import Saver
        from checker.checkpoint.snapshot import read_snapshot
        from checker.engines import ENGINES, SMALL, engine_session, simulation_session
        from checker.distinguish import distinguish as tell_apart
        from checker.distinguish import first_difference
        from checker.distinction_report import (distinction_explained, distinction_json, distinction_summary,
                                                distinction_table)
        from checker.shorten import shorten
        from checker.simulation import WEIGHTINGS
        from checker.simulation_report import properties_table as simulated_properties
        from checker.simulation_report import simulation_json
        from checker.simulation_report import summary_table as simulation_summary
        from checker.invariant import applies, scope
        from checker.java import EngineUnavailable
        from checker.master_url import master_problem
        from checker.progress import level_progress, prepare_kernels, walk_progress
        from checker.symmetry_choice import choose_symmetry
        from checker.compare import compare_variants
        from checker.sweep import configurations, sweep
        from checker import tradeoffs
        from checker.report import (action_table, bounds_text, claims_text, comparison_markdown, comparison_table,
                                    comparison_to_json, property_tables, result_to_json, summary_table,
                                    sweep_markdown, sweep_table, sweep_to_json, tradeoff_markdown, tradeoff_table,
                                    tradeoff_to_json)
        from invariants.registry import invariants_for, select
        from model.params import ModelError
        from model.registry import MODELS, build_model
        from traces.explain import explain as explain_trace
        from traces.scenario import first_failure, load_scenario
        from traces.scenario import replay as run_replay
        from checker.atomic_file import write_atomically
        from checker import junit as junit_xml
        from checker import manifest
        from traces.pair_picture import pair_svg
        from traces.render import FORMATS, PICTURES, render_file
        from traces.store import TraceFileError, load_trace, one_line, save_trace
        from traces.table import trace_table
except KeyboardInterrupt as interruption:
    terminated = isinstance(interruption, Terminated)
    sys.stderr.write(f"Error: {interruption_message(terminated)}\n")
    sys.exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)


def stdout_console() -> Console:
    """A console for tables on stdout: the terminal's width, or 160 columns when piped, so a
    saved report keeps every replica column."""
    return Console() if sys.stdout.isatty() else Console(width=160)


class UserError(click.ClickException):
    """Bad input: a one-line message on stderr and exit code 2 (a newline in a path or name it
    quotes is escaped)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str):
        super().__init__(one_line(message))


class Interrupted(click.ClickException):
    """The user pressed Ctrl-C (exit code 130) or the process got SIGTERM (143): one line on stderr."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, terminated: bool = False, reached=None, checked=(), checkpoint=None):
        super().__init__(interruption_message(terminated, reached, checked, checkpoint))
        if terminated:
            self.exit_code = EXIT_TERMINATED


class NonEmptyPath(click.Path):
    """A path option or argument that refuses an empty string, which would otherwise mean the
    current directory (`--trace-dir ''` wrote traces into it)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)


def _default_text(value) -> str:
    """A parameter's default as the CLI takes it (flags as on/off)."""
    return {True: "on", False: "off"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def bound_options(func):
    """Every model parameter as an option (default None: the model's own default applies)."""
    seen = {}
    for kind in MODELS.values():
        for p in kind.params:
            seen.setdefault(p.name, (p, {}))[1][kind.name] = _default_text(p.default)
    for name, (p, defaults) in reversed(seen.items()):
        if len(set(defaults.values())) == 1:
            where = f"{'/'.join(defaults)}; default {next(iter(defaults.values()))}"
        else:
            where = "; ".join(f"{model} default {value}" for model, value in defaults.items())
        text = f"{p.help} [{where}]"
        if p.kind == "flag":
            func = click.option(f"--{name}/--no-{name}", default=None, help=text)(func)
        else:
            kind = click.Choice(p.choices) if p.kind == "choice" else int
            func = click.option(f"--{name}", type=kind, default=None, help=text)(func)
    return func


def _valid_master(ctx, param, value: str | None) -> str | None:
    if value is None:
        return None
    problem = master_problem(value)
    if problem:
        raise UserError(f"--master {problem}")
    return value


def _local_directory(ctx, param, value: str | None) -> str | None:
    """--work-dir: a directory this machine can write (or create), not a URL."""
    if value is None:
        return None
    if "://" in value:
        raise UserError(f"--work-dir {value!r} is a URL; give a local directory (each task keeps its scratch "
                        "files on its own machine's disk)")
    path = Path(value).absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise UserError(f"--work-dir {value!r}: {existing} is not a directory")
    try:  # os.access says yes to root even where nothing can be written (/proc)
        os.rmdir(tempfile.mkdtemp(prefix=".replcheck-probe-", dir=existing))
    except OSError as exc:
        raise UserError(f"--work-dir {value!r}: cannot write in {existing} ({exc.strerror})") from None
    return str(path)


def _memory_size(ctx, param, value: str | None) -> int | None:
    """--memory-budget: bytes, with an optional K, M, G or T suffix (powers of 1024)."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", value, re.IGNORECASE)
    if not match:
        raise UserError(f"--memory-budget {value!r} is not a size (for example 512M or 4G)")
    number, unit = float(match.group(1)), match.group(2).upper()
    size = int(number * 1024 ** " KMGT".index(unit or " "))
    if size <= 0:
        raise UserError(f"--memory-budget {value!r} is not a positive size")
    return size


def engine_options(func):
    """--engine, --master, --partitions, --work-dir and --symmetry."""
    func = click.option("--symmetry/--no-symmetry", default=None,
                        help="store one state per orbit under renaming replicas (default: on whenever every checked "
                             "property is symmetric; counts are then orbits, as TLC's SYMMETRY)")(func)
    return spark_options(func)


def spark_options(func):
    """--engine, --master, --partitions, --work-dir, and --progress."""
    func = click.option("--progress", "progress_file", type=NonEmptyPath(dir_okay=False, path_type=Path),
                        default=None, metavar="FILE",
                        help="append each BFS level (states, frontier, rate, memory, projected end) to FILE as one "
                             "JSON object per line, for dashboards")(func)
    func = click.option("--work-dir", default=None, metavar="DIR", callback=_local_directory,
                        help="spark: where each task keeps its scratch files (every level's routes, for the traces), "
                             "a local directory on every executor's machine; removed when the run ends; default: "
                             "Spark's local directories")(func)
    func = click.option("--memory-budget", default=None, metavar="SIZE", callback=_memory_size,
                        help="spark: the most memory each task's visited set may take (e.g. 512M, 4G); past it the "
                             "task writes sorted runs of fingerprints to --work-dir, so the visited set is bounded "
                             "by disk; default: no limit")(func)
    func = click.option("--partitions", type=click.IntRange(1, 4096), default=None,
                        help="spark: number of shards of the frontier and visited set (default: cores)")(func)
    func = click.option("--master", default=None, callback=_valid_master,
                        help="spark: master URL (local[N], spark://host:7077, yarn, k8s://...); default: the "
                             f"embedded local[*], where a search that ends within {SMALL:,} states runs in the "
                             "driver process and Spark is not started (give --master to always use Spark)")(func)
    return click.option("--engine", type=click.Choice(ENGINES), default="spark", show_default=True,
                        help="spark (PySpark, embedded local[*] by default) or local (one Python process)")(func)


def applicable(models, properties, named: bool, everywhere: bool = True) -> list:
    """The properties that apply to every model (`checker.invariant.applies`), or with
    `everywhere` off to at least one (a comparison shows 'n/a' for the others). One the user
    named that does not apply is a one-line error; default ones that do not are left out, with
    a notice on stderr that says what they read (`checker.invariant.scope`), unless they belong
    to another variant (`another_variants`)."""
    fits = all if everywhere else any
    left_out = [p for p in properties if not fits(applies(p, m) for m in models)]
    if not left_out:
        return list(properties)
    kept = [p for p in properties if p not in left_out]
    told = left_out if named else [p for p in left_out if not another_variants(p, models)]
    if not told:
        return kept
    names = ", ".join(p.name for p in told)
    verb, pronoun, reads = ("does", "it", "reads") if len(told) == 1 else ("do", "they", "read")
    why = f"{pronoun} {reads} {scope(told[0])}"
    if named:
        raise UserError(f"{names} {verb} not apply to these settings: {why}")
    click.echo(f"not checked, since {names} {verb} not apply here ({why})", err=True)
    return kept


def model_options(verb: str):
    """--model, --variant, every bound, and --invariant: what `check` and `simulate` ask of a
    model (`verb`: what the command does with it)."""
    def decorate(func):
        func = click.option("--invariant", "invariant_names", multiple=True, metavar="NAME",
                            help="invariant or witness to check (repeatable; default: every invariant of the "
                                 "model)")(func)
        func = bound_options(func)
        func = click.option("--variant", default=None,
                            help="protocol variant (`replcheck list` names them; default: the model's, kip320)")(func)
        return click.option("--model", "model_name", default="spec", show_default=True, help=f"model to {verb}")(func)
    return decorate


def model_and_properties(model_name: str, variant: str | None, names, bounds: dict) -> tuple:
    """The model to check and the named properties (every invariant when none is named) that
    apply to it (`applicable`), with ghost variables kept when one needs them; UserError for an
    unknown model, variant, property or bad bounds."""
    try:
        properties = select(model_name, names)
        model = build_model(model_name, variant, ghost=any(p.needs_ghost for p in properties), **bounds)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    return model, applicable([model], properties, bool(names))


def another_variants(prop, models) -> bool:
    """The property belongs to other variants of these models (kip966's ELR invariant under
    kip320, say): left out of a default selection without a notice, since `replcheck list`
    says where it applies."""
    return all(any(prop.only_when({**m.parameters(), "variant": v}) for v in MODELS[m.name].variants)
               for m in models)


def buildable(model_name: str, variant: str, ghost: bool, configs: list) -> tuple[list, list]:
    """The sweep's configurations that make a model, and their models. A combination the model
    refuses (a majority quorum with unclean election, say) is skipped with a notice on stderr;
    when none is left, the first refusal is the error."""
    kept, models, refused = [], [], []
    for config in configs:
        try:
            models.append(build_model(model_name, variant, ghost=ghost, **config))
            kept.append(config)
        except ModelError as exc:
            refused.append((config, exc))
    if not kept:
        raise refused[0][1]
    for config, exc in refused:
        click.echo(f"skipped {bounds_text(config)}: {exc}", err=True)
    return kept, models


def symmetry_for(models, invariants, asked: bool | None) -> bool:
    """Whether to use symmetry reduction (see `checker.symmetry_choice`); a notice goes to stderr."""
    try:
        chosen, notice = choose_symmetry(models, invariants, asked)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    if notice:
        Console(stderr=True).print(notice, highlight=False)
    return chosen


@contextmanager
def search(engine: str, master: str | None, partitions: int | None, work_dir: str | None, memory_budget: int | None,
           label: str, models=(), symmetry: bool = False, checked=(), saver=None, as_json: bool = False,
           progress_file: Path | None = None):
    """Yield (explore, on_level): the engine's explore function (with `symmetry` and the
    checkpoint `saver` applied) and a progress callback. The first use of a model's compiled
    kernel on this machine shows as a compile step. An engine that cannot start, or a damaged
    checkpoint, is a one-line UserError; Ctrl-C is Interrupted (exit 130), saying how far the
    search got, which `checked` properties (invariants and witnesses) it had found violated or
    reached, and where its checkpoint is
    (also as a JSON object on stdout with `as_json`). Each level is appended to `progress_file`
    as a JSON line, if one is given."""
    reached = []
    if engine == "local" and memory_budget is not None:
        raise UserError("--memory-budget applies to --engine spark (the local engine keeps its visited set in memory)")

    def recorded(on_level):
        def on_level_recorded(stats, frontier):
            reached[:] = [stats]
            on_level(stats, frontier)
        return on_level_recorded

    try:
        with engine_session(engine, master=master, partitions=partitions, work_dir=work_dir,
                            memory_budget=memory_budget) as explore, \
                level_progress(f"{label} ({engine})", progress_file,
                               saver.resumed.levels if saver is not None and saver.resumed else ()) as on_level:
            prepare_kernels(models)
            yield partial(explore, symmetry=symmetry, saver=saver), recorded(on_level)
    except EngineUnavailable as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        if exc.filename is None or progress_file is None or Path(exc.filename) != progress_file:
            raise
        raise UserError(f"cannot write progress file {progress_file}: {exc.strerror}") from None
    except CheckpointError as exc:
        raise UserError(f"checkpoint {saver.directory}: {exc}") from None
    except KeyboardInterrupt as exc:
        terminated, last = isinstance(exc, Terminated), reached[0] if reached else None
        kept = (saver.directory, saver.committed) if saver is not None and saver.committed is not None else None
        if as_json:
            click.echo(json.dumps(interruption_json(terminated, last, checked, kept), indent=2))
        raise Interrupted(terminated, last, checked, kept) from None


def report_options(trace_help: str):
    """--trace-dir, --render, --json and --markdown, shared by compare and sweep."""
    def decorate(func):
        func = click.option("--markdown", "as_markdown", is_flag=True, help="print the table as Markdown")(func)
        func = click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of the table")(func)
        func = click.option("--render", "render_format", type=click.Choice(["svg", "html"]), default=None,
                            help="also render each kept trace (needs --trace-dir)")(func)
        return click.option("--trace-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
                            help=trace_help)(func)
    return decorate


def check_report_options(as_json: bool, as_markdown: bool, render_format: str | None, trace_dir: Path | None) -> None:
    """Refuse contradictory output options with a one-line UserError."""
    if as_json and as_markdown:
        raise UserError("choose one of --json and --markdown")
    if render_format and trace_dir is None:
        raise UserError("--render needs --trace-dir (where the traces and pictures go)")


def make_dir(path: Path | None) -> None:
    """Create an output directory (if one was asked for); UserError when that is impossible."""
    if path is not None:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create directory {path}: {exc.strerror}") from None


def saved_traces(result, model, trace_dir: Path, tag: str = ""):
    """Save each counterexample of `result` as <model>-<variant>-[<tag>-]<invariant>.json in
    `trace_dir`, yielding (invariant, file) as each is written; UserError when one cannot be."""
    for name, trace in result.violations.items():
        path = trace_dir / f"{model.name}-{model.variant or 'default'}-{tag + '-' if tag else ''}{name}.json"
        try:
            save_trace(trace, model, path)
        except OSError as exc:
            raise UserError(f"cannot write trace file {path}: {exc.strerror}") from None
        yield name, str(path)


def save_traces(result, model, trace_dir: Path, tag: str = "") -> dict[str, str]:
    """`saved_traces` as a dict invariant -> file."""
    return dict(saved_traces(result, model, trace_dir, tag))


def _junit_target(ctx, param, value: Path | None) -> Path | None:
    """--junit FILE: refused at once (one line, exit 2) when FILE could not be written, so that
    a search is not run for a report that would be lost: a directory, or a place where no new
    file can be made (a missing directory, /proc, a read-only disk)."""
    if value is None:
        return None
    try:
        junit_xml.probe(value)
    except OSError as exc:
        raise UserError(f"--junit {value}: cannot write a report there ({exc.strerror or exc})") from None
    return value


def junit_option(func):
    """--junit FILE: also write the verdicts as a JUnit XML report (`checker.junit` says how
    each verdict maps onto a testcase), for CI servers."""
    return click.option("--junit", type=NonEmptyPath(path_type=Path), default=None, metavar="FILE",
                        callback=_junit_target,
                        help="also write a JUnit XML report to FILE for CI: one testcase per property checked (per "
                             "expectation for verify), a violated invariant (a surprise) as a failure; see "
                             "docs/ci.md")(func)


def write_junit(path: Path | None, suites) -> None:
    """Write the JUnit report of `suites` to `path` (if one was asked for), atomically; a
    one-line UserError when it cannot be written."""
    if path is None:
        return
    try:
        junit_xml.write_report(path, suites)
    except OSError as exc:
        raise UserError(f"cannot write JUnit report {path}: {exc.strerror or exc}") from None


class ReplcheckGroup(click.Group):
    """The command group, with Ctrl-C anywhere in a command (building a model, loading kernels,
    writing a report) reported as Interrupted rather than click's bare "Aborted!" and exit 1,
    and SIGTERM handled the same way (exit 143). With --debug, the traceback behind a one-line
    error is printed before it."""

    def invoke(self, ctx):
        try:
            try:
                with sigterm_raises():
                    return super().invoke(ctx)
            except KeyboardInterrupt as exc:
                raise Interrupted(isinstance(exc, Terminated)) from None
        except click.ClickException as exc:
            cause = exc.__cause__ or exc.__context__
            if ctx.params.get("debug") and cause is not None:
                traceback.print_exception(type(cause), cause, cause.__traceback__, file=sys.stderr)
            raise


@click.group(cls=ReplcheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="print the Python traceback behind an error message")
def main(debug):
    """replcheck: a model checker for Kafka's partition replication protocols."""


def checkpoint_options(func):
    """--checkpoint-dir and --checkpoint-every."""
    func = click.option("--checkpoint-every", type=click.FloatRange(min=0), default=60.0, show_default=True,
                        metavar="SECONDS", help="save a checkpoint at the first level boundary after this many seconds "
                                                "(also at the end, and on Ctrl-C or SIGTERM)")(func)
    return click.option("--checkpoint-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
                        help="keep the search's checkpoint here; if it already holds one of this same run, continue "
                             "from it (see `replcheck resume`)")(func)


def open_saver(directory: Path | None, model, invariants, symmetric: bool, every: float, stop_at_first: bool,
               max_depth: int | None):
    """The checkpoint saver for a run (None without `directory`); a notice on stderr when it
    continues a saved checkpoint; UserError when the directory cannot serve."""
    if directory is None:
        return None
    if getattr(model, "kernel", None) is None:
        raise UserError(f"--checkpoint-dir needs a model with a compiled kernel (spec, fetch), and {model.name} has none")
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


@main.command()
@model_options("explore")
@click.option("--continue", "keep_going", is_flag=True,
              help="explore everything and report the shortest trace of every violated invariant and reached "
                   "witness")
@click.option("--max-depth", type=click.IntRange(min=0), default=None, help="explore at most this many transitions")
@click.option("--trace-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
              help="save each counterexample here as <model>-<variant>-<invariant>.json")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of tables")
@junit_option
@checkpoint_options
@engine_options
def check(model_name, variant, invariant_names, keep_going, max_depth, trace_dir, as_json, checkpoint_dir,
          checkpoint_every, engine, master, partitions, work_dir, memory_budget, progress_file, symmetry, junit=None,
          **bounds):
    """Explore every reachable state of a model, check its invariants and answer its witnesses.

    Exits 0 when no invariant is violated and every property was decided, 1 when an invariant
    is violated or something stayed undecided, 2 when a trace could not be saved (the result
    is printed all the same).
    """
    model, invariants = model_and_properties(model_name, variant, invariant_names, bounds)
    make_dir(trace_dir)
    symmetric = symmetry_for([model], invariants, symmetry)
    saver = open_saver(checkpoint_dir, model, invariants, symmetric, checkpoint_every, not keep_going, max_depth)
    run_check(model, invariants, symmetric, not keep_going, max_depth, saver, trace_dir, as_json,
              engine, master, partitions, work_dir, memory_budget, progress_file, junit)


@main.command()
@model_options("walk")
@click.option("--walks", type=int, default=None,
              help="run this many walks (numbered from 0; default 10,000 unless --seconds is given)")
@click.option("--seconds", type=float, default=None, help="run walks until this many seconds have passed")
@click.option("--max-depth", type=int, default=50, show_default=True, help="the most steps of one walk")
@click.option("--swarm", is_flag=True, help="each walk leaves out a random subset of the action kinds (swarm testing)")
@click.option("--weights", type=click.Choice(WEIGHTINGS), default="mixed", show_default=True,
              help="uniform: a walk draws an enabled action kind, then one of its steps, each alike; random: each "
                   "walk draws its own weight for each kind and each replica's steps of it; mixed: odd-numbered "
                   "walks random, even ones uniform")
@click.option("--seed", type=int, default=0, show_default=True,
              help="the simulation's seed: the same seed and --walks give the same walks on either engine")
@click.option("--trace-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
              help="save each shortened counterexample here as <model>-<variant>-<invariant>.json")
@click.option("--render", "render_format", type=click.Choice(["svg", "html"]), default=None,
              help="also draw each saved trace (needs --trace-dir)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of tables")
@click.option("--partitions", type=click.IntRange(1, 4096), default=None,
              help="spark: number of walker tasks (default: cores)")
@click.option("--master", default=None, callback=_valid_master,
              help="spark: master URL (local[N], spark://host:7077, ...); default: the embedded local[*]")
@click.option("--engine", type=click.Choice(ENGINES), default="spark", show_default=True,
              help="spark (walkers as Spark tasks) or local (one Python process)")
@junit_option
def simulate(model_name, variant, invariant_names, walks, seconds, max_depth, swarm, weights, seed, trace_dir,
             render_format, as_json, partitions, master, engine, junit=None, **bounds):
    """Random walks from the initial state, for answers past exhaustive reach: each walk takes
    random enabled steps up to --max-depth, and every invariant and witness is checked on every
    state. A violation is shortened (delta debugging, then a bounded BFS where the bounds allow)
    before it is shown. Finding nothing proves nothing: only `check` can say a property holds.

    Exits 0 when no invariant was found violated, 1 when one was, 2 when a trace could not be
    saved."""
    if walks is not None and walks < 1:
        raise UserError(f"--walks must be at least 1, not {walks}")
    if seconds is not None and not seconds > 0:
        raise UserError(f"--seconds must be more than 0, not {seconds:g}")
    if not 1 <= max_depth <= 100_000:
        raise UserError(f"--max-depth must be from 1 to 100000, not {max_depth}")
    if seed < 0:
        raise UserError(f"--seed must be 0 or more, not {seed}")
    check_report_options(as_json, False, render_format, trace_dir)
    if walks is None and seconds is None:
        walks = 10_000
    model, properties = model_and_properties(model_name, variant, invariant_names, bounds)
    make_dir(trace_dir)
    options = {"seed": seed, "max_depth": max_depth, "swarm": swarm, "weights": weights}
    try:
        prepare_kernels([model])
        label = f"simulating {model.name} {model.variant or ''} ({engine})".replace("  ", " ")
        with simulation_session(engine, master=master, partitions=partitions) as simulate_on, \
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
                                              files), indent=2))
    else:
        console = stdout_console()
        console.print(simulation_summary(model, tally, elapsed, options, engine_text))
        console.print(simulated_properties(properties, tally, shortened, files))
        for short in shortened.values():
            console.print(trace_table(short.trace, model))
    write_junit(junit, [junit_xml.simulation_suite(model, properties, {n: s.trace for n, s in shortened.items()},
                                                   tally.walks, elapsed, files)])
    if unsaved is not None:
        raise unsaved
    violated = any(name in tally.found and not by_name[name].witness for name in by_name)
    sys.exit(EXIT_VIOLATED if violated else 0)


@main.command()
@click.option("--model", "model_name", default="spec", show_default=True, help="model whose variants to tell apart")
@click.option("--variants", required=True, metavar="A,B", help="the two variants: A should fail, B hold")
@bound_options
@click.option("--invariant", "invariant_name", required=True, metavar="NAME", help="the invariant that tells them apart")
@click.option("--explain", is_flag=True, help="say at which step the variants part, and by which rules")
@click.option("--trace-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
              help="save the behaviour under A, a counterexample of A, here as <model>-<A>-vs-<B>-<invariant>.json, "
                   "and both variants' lanes, A above B, as <...>.pair.svg (--json gives both variants' states)")
@click.option("--render", "render_format", type=click.Choice(["svg", "html"]), default=None,
              help="also draw the saved trace (needs --trace-dir)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of tables")
@click.option("--partitions", type=click.IntRange(1, 4096), default=None,
              help="spark: number of shards of the pairs' frontier and visited set (default: cores)")
@click.option("--master", default=None, callback=_valid_master,
              help="spark: master URL; default: the embedded local[*], where a search that ends within "
                   f"{SMALL:,} pairs runs in the driver process")
@click.option("--engine", type=click.Choice(ENGINES), default="spark", show_default=True,
              help="spark (PySpark, embedded local[*] by default) or local (one Python process)")
def distinguish(model_name, variants, invariant_name, explain, trace_dir, render_format, as_json, partitions, master,
                engine, **bounds):
    """The shortest behaviour, as one sequence of events both variants allow, after which the
    invariant fails under A while it has held all along under B: a breadth-first search over
    pairs of states (an event enabled in only one variant is not shared, so a pair never takes
    it), on either engine. Exits 1 when such a behaviour exists, 0 when the two are
    indistinguishable by the invariant at these bounds, 2 on bad input."""
    names = [v.strip() for v in variants.split(",")]
    if len(names) != 2 or not all(names):
        raise UserError(f"--variants takes two variants, A,B, not {variants!r}")
    if names[0] == names[1]:
        raise UserError(f"--variants names {names[0]} twice: give two different variants")
    check_report_options(as_json, False, render_format, trace_dir)
    try:
        (prop,) = select(model_name, [invariant_name])
        models = [build_model(model_name, v, ghost=prop.needs_ghost, **bounds) for v in names]
    except ModelError as exc:
        raise UserError(str(exc)) from None
    applicable(models, [prop], True)
    make_dir(trace_dir)
    prepare_kernels(models)
    with search(engine, master, partitions, None, None, f"{model_name} {names[0]} against {names[1]}") as (explore,
                                                                                                      on_level):
        found = tell_apart(partial(explore, on_level=on_level), models[0], models[1], prop)
    first, second = names
    parted = first_difference(found.first, found.second) if found.first is not None else None
    files = {}
    if found.first is not None and trace_dir is not None:  # A's side is a counterexample of A's model
        path = trace_dir / f"{model_name}-{first}-vs-{second}-{prop.name}.json"
        try:
            save_trace(found.first, models[0], path)
        except OSError as exc:
            raise UserError(f"cannot write trace file {path}: {exc.strerror}") from None
        files[first] = str(path)
        if render_format:
            render_or_fail(path, render_format, default_output(path, render_format, "lanes"))
        pair = path.with_suffix(".pair.svg")
        try:
            write_atomically(pair, pair_svg(found.first, models[0], found.second, models[1],
                                            distinction_explained(models, prop, found, parted)))
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


@main.command()
@click.argument("directory", type=NonEmptyPath(file_okay=False, path_type=Path))
@click.option("--max-depth", type=click.IntRange(min=0), default=None,
              help="explore at most this many transitions (default: the limit the run was started with)")
@click.option("--trace-dir", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
              help="save each counterexample here as <model>-<variant>-<invariant>.json")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of tables")
@click.option("--checkpoint-every", type=click.FloatRange(min=0), default=60.0, show_default=True,
              metavar="SECONDS", help="save a checkpoint at the first level boundary after this many seconds")
@spark_options
def resume(directory, max_depth, trace_dir, as_json, checkpoint_every, engine, master, partitions, work_dir,
           memory_budget, progress_file):
    """Continue a search from the checkpoint in DIRECTORY (written by `check --checkpoint-dir`
    on either engine, at any partition count) to the result an uninterrupted run gives. The
    model, bounds, invariants and symmetry are the checkpoint's; a checkpoint of a run that
    ended is reported again. Exit codes as for `check`."""
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
    make_dir(trace_dir)
    depth = saved.max_depth if max_depth is None else max_depth
    saver = open_saver(directory, model, invariants, wanted.symmetry, checkpoint_every, saved.stop_at_first, depth)
    run_check(model, invariants, wanted.symmetry, saved.stop_at_first, depth, saver, trace_dir, as_json,
              engine, master, partitions, work_dir, memory_budget, progress_file)


def run_check(model, invariants, symmetric: bool, stop_at_first: bool, max_depth: int | None, saver,
              trace_dir: Path | None, as_json: bool, engine: str, master: str | None, partitions: int | None,
              work_dir: str | None, memory_budget: int | None, progress_file: Path | None,
              junit: Path | None = None) -> None:
    """Search `model` for violations of the invariants and for the witnesses among `invariants`,
    print the result, save its traces, and exit 0 (no invariant is violated and every property
    was decided), 1 (an invariant is violated, or the search stopped before every property was
    decided) or 2 (a trace, or the JUnit report asked for with `junit`, could not be saved)."""
    label = f"{model.name} {model.variant or ''}".strip()
    with search(engine, master, partitions, work_dir, memory_budget, label, [model], symmetric, invariants, saver,
                as_json, progress_file) as (explore, on_level):
        result = explore(model, invariants, stop_at_first=stop_at_first, max_depth=max_depth, on_level=on_level)

    trace_files, unsaved = {}, None
    try:  # a trace that cannot be written must not cost the verdict: it is printed first
        for name, path in saved_traces(result, model, trace_dir) if trace_dir is not None else ():
            trace_files[name] = path
    except UserError as exc:
        unsaved = exc

    if as_json:
        click.echo(json.dumps(result_to_json(result, trace_files), indent=2))
    else:
        console = stdout_console()
        console.print(summary_table(result))
        for table in property_tables(result, trace_files):
            console.print(table)
        console.print(action_table(result))
        for trace in result.violations.values():
            console.print(trace_table(trace, model))
    write_junit(junit, [junit_xml.result_suite(result, trace_files, model)])
    if unsaved is not None:
        raise unsaved
    sys.exit(0 if result.ok and result.decided else EXIT_VIOLATED)


@main.command()
@click.option("--model", "model_name", default="spec", show_default=True, help="model whose variants to compare")
@click.option("--variants", default=None, metavar="V1,V2,...", help="variants to compare (default: all of the model's)")
@bound_options
@click.option("--invariant", "invariant_names", multiple=True, metavar="NAME",
              help="invariant or witness to check (repeatable; default: every invariant of the model)")
@report_options("keep each shortest counterexample here as <model>-<variant>-<invariant>.json")
@junit_option
@engine_options
def compare(model_name, variants, invariant_names, trace_dir, render_format, as_json, as_markdown, engine, master,
            partitions, work_dir, memory_budget, progress_file, symmetry, junit=None, **bounds):
    """Compare protocol variants side by side: every invariant under every variant, explored to
    the end under the same bounds. Exits 0 once the comparison is made, whatever the verdicts."""
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
        models = {v: build_model(model_name, v, ghost=ghost, **bounds) for v in chosen}
    except ModelError as exc:
        raise UserError(str(exc)) from None
    invariants = applicable(models.values(), invariants, bool(invariant_names), everywhere=False)
    make_dir(trace_dir)

    symmetric = symmetry_for(list(models.values()), invariants, symmetry)
    with search(engine, master, partitions, work_dir, memory_budget, model_name, models.values(), symmetric,
                progress_file=progress_file) as (explore, on_level):
        results = compare_variants(explore, models, invariants, on_level)

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
        click.echo(json.dumps(comparison_to_json(results, trace_files), indent=2))
    elif as_markdown:
        click.echo(comparison_markdown(results), nl=False)
    else:
        console = stdout_console()
        console.print(comparison_table(results))
        for (variant, name), path in trace_files.items():
            picture = pictures.get((variant, name))
            console.print(f"{variant} {name}: {path}" + (f" (picture: {picture})" if picture else ""), highlight=False)
    every = [name for r in results for name in r.invariants]  # a property n/a under a variant is skipped there
    write_junit(junit, [junit_xml.result_suite(r, {n: p for (v, n), p in trace_files.items() if v == r.variant},
                                               models[r.variant], properties=every) for r in results])


def sweep_options(func):
    """Every model parameter as `--name V1,V2,...` (flags also take `both`)."""
    seen = {}
    for kind in MODELS.values():
        for p in kind.params:
            seen.setdefault(p.name, p)
    for name, p in reversed(seen.items()):
        func = click.option(f"--{name}", default=None, metavar="LIST",
                            help=f"{p.help}: comma-separated values" + (" (on, off or both)" if p.kind == "flag" else ""))(func)
    return func


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


@main.command(name="sweep")
@click.option("--model", "model_name", default="fetch", show_default=True, help="model to sweep")
@click.option("--variant", default=None, help="protocol variant (default: the model's)")
@sweep_options
@click.option("--invariant", "invariant_names", multiple=True, metavar="NAME",
              help="invariant or witness to check (repeatable; default for fetch: acked-survives and "
                   "committed-survives)")
@report_options("keep each shortest loss here, named by variant, configuration and invariant")
@junit_option
@engine_options
def sweep_command(model_name, variant, invariant_names, trace_dir, render_format, as_json, as_markdown, engine, master,
                  partitions, work_dir, memory_budget, progress_file, symmetry, junit=None, **settings):
    """Check every combination of the given settings: which configurations can lose
    acknowledged or committed data, and the shortest way they do. Exits 0 once the sweep is made."""
    kind = MODELS.get(model_name)
    if kind is None:
        raise UserError(f"unknown model {model_name!r} (choose from {', '.join(MODELS)})")
    check_report_options(as_json, as_markdown, render_format, trace_dir)
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
    make_dir(trace_dir)
    symmetric = symmetry_for(models, invariants, symmetry)
    with search(engine, master, partitions, work_dir, memory_budget, f"{model_name} sweep", models, symmetric,
                progress_file=progress_file) as (explore, on_level):
        runs = sweep(explore, list(zip(configs, models)), invariants, on_level)
    kept = []  # each run's saved traces, for the JUnit report
    if trace_dir is not None:
        for (config, result), model in zip(runs, models):
            tag = "_".join(f"{k.replace('_', '-')}={v}" for k, v in config.items())
            kept.append(save_traces(result, model, trace_dir, tag))
            for path in kept[-1].values():
                if render_format:
                    render_or_fail(Path(path), render_format, default_output(Path(path), render_format, "lanes"))
    names = [i.name for i in invariants]
    if as_json:
        click.echo(json.dumps(sweep_to_json(runs), indent=2))
    elif as_markdown:
        click.echo(sweep_markdown(runs, names), nl=False)
    else:
        stdout_console().print(sweep_table(runs, names))
    write_junit(junit, [junit_xml.result_suite(result, kept[i] if kept else {}, model, config, names)
                        for i, ((config, result), model) in enumerate(zip(runs, models))])


@main.command(name="tradeoffs")
@click.option("--flush", type=click.Choice(["sync", "async"]), default="sync", show_default=True,
              help="sync: every append is on disk (what Raft assumes); async: Kafka's default page cache")
@click.option("--max-records", type=click.IntRange(1, 8), default=tradeoffs.BOUNDS["max_records"], show_default=True,
              help="producer writes in one behaviour")
@click.option("--max-epoch", type=click.IntRange(1, 8), default=tradeoffs.BOUNDS["max_epoch"], show_default=True,
              help="highest leader epoch")
@click.option("--max-crashes", type=click.IntRange(2, 6), default=tradeoffs.BOUNDS["max_crashes"], show_default=True,
              help="broker crashes in one behaviour (at least 2: two brokers down)")
@report_options("keep each 'yes' trace here as fetch-kip320-<setup>-<property>.json")
@engine_options
def tradeoffs_command(flush, max_records, max_epoch, max_crashes, trace_dir, render_format, as_json, as_markdown,
                      engine, master, partitions, work_dir, memory_budget, progress_file, symmetry):
    """ISR against a majority quorum at replication factor 3, acks=all: can committed or
    acknowledged data be lost, and can the partition acknowledge writes with 1 or 2 brokers down?
    Each "yes" comes with its shortest trace, each "no" from an exhaustive search; the source
    articles' claims are read off the table. Exits 0 once the table is made."""
    check_report_options(as_json, as_markdown, render_format, trace_dir)
    bounds = {**tradeoffs.BOUNDS, "flush": flush, "max_records": max_records, "max_epoch": max_epoch,
              "max_crashes": max_crashes}
    properties = select("fetch", [q.prop for q in tradeoffs.QUESTIONS])
    try:
        models = tradeoffs.setup_models(lambda **settings: build_model("fetch", "kip320", ghost=True, **settings),
                                        bounds)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    make_dir(trace_dir)
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


@main.command()
@click.argument("file", type=NonEmptyPath(path_type=Path))
def replay(file):
    """Replay a published scenario step by step: LEO and HW of every replica after each step,
    the invariants checked after each. Exits 0 when the story unfolds as the file expects
    (including the expected violation at the expected step), 1 when it does not."""
    try:
        scenario = load_scenario(file)
    except TraceFileError as exc:
        raise UserError(str(exc)) from None
    result = run_replay(scenario)
    model = scenario.model
    table = Table(title=Text(f"{scenario.name}  ({scenario.source})"), title_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("step")
    lanes0 = model.lanes(result.states[0])
    for name in lanes0:
        table.add_column(f"{name} LEO/HW", justify="center")
    table.add_column("failing")
    for i, state in enumerate(result.states):
        text = "initial state" if i == 0 else model.describe_step(scenario.steps[i - 1][0], result.states[i - 1], state)
        note = scenario.steps[i - 1][1] if i else ""
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


@main.command("list")
def list_models():
    """List the models, their variants, parameters, invariants and witnesses."""
    console = stdout_console()
    for kind in MODELS.values():
        console.print(f"[bold]{kind.name}[/]: {kind.summary}")
        if kind.variants:
            console.print("  variants:")
            for name, meaning in kind.variants.items():
                default = " (default)" if name == kind.default_variant else ""
                console.print(f"    [cyan]{name}[/]{default}: {meaning}")
        console.print("  parameters:")
        for p in kind.params:
            default = ("on" if p.default else "off") if p.kind == "flag" else p.default
            console.print(f"    --{p.name} ({p.domain}, default {default}): {p.help}")
        properties = list(invariants_for(kind.name).values())
        for heading, witness in (("invariants", False), ("witnesses (checked only when named)", True)):
            listed = [p for p in properties if p.witness == witness]
            if listed:
                console.print(f"  {heading}:")
            for prop in listed:
                reads = f" (reads {scope(prop)})" if scope(prop) else ""
                named = getattr(prop, "named_only", "")
                named = f" [dim](checked only when named: {named})[/]" if named else ""
                console.print(f"    [cyan]{prop.name}[/]: {prop.summary}{reads}{named}")


@main.group()
def trace():
    """Read saved counterexample traces."""


@trace.command("show")
@click.argument("file", type=NonEmptyPath(path_type=Path))
@click.option("--explain", is_flag=True, help="add a plain-language account of what happened")
def trace_show(file, explain):
    """Print a trace as a step table: one row per step, one column per replica."""
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


@trace.command("render")
@click.argument("file", type=NonEmptyPath(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True, help="output format")
@click.option("--picture", type=click.Choice(PICTURES), default="lanes", show_default=True,
              help="svg/png: replica lanes, or the trace graph")
@click.option("-o", "--output", type=NonEmptyPath(dir_okay=False, path_type=Path), default=None,
              help="output file (default: beside FILE, named by picture and format)")
def trace_render(file, fmt, picture, output):
    """Render a trace: lanes picture (svg, png), trace graph (dot, graphml, json) or an HTML page."""
    out = output or default_output(Path(file), fmt, picture)
    if out.resolve() == Path(file).resolve():
        raise UserError(f"{out} is the trace file itself: choose another output with -o")
    render_or_fail(Path(file), fmt, out, picture)
    click.echo(str(out))


def default_output(source: Path, fmt: str, picture: str) -> Path:
    """<trace>.html, <trace>.lanes.svg, <trace>.graph.svg, <trace>.graph.dot, ... beside the trace."""
    kind = "" if fmt == "html" else ".lanes" if fmt in ("svg", "png") and picture == "lanes" else ".graph"
    return source.with_name(f"{source.stem}{kind}.{fmt}")


def render_or_fail(source: Path, fmt: str, out: Path, picture: str = "lanes") -> None:
    """render_file with its failures turned into one-line user errors (exit 2)."""
    try:
        render_file(source, fmt, out, picture)
    except TraceFileError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


@main.command()
@click.argument("manifest_file", metavar="MANIFEST", type=NonEmptyPath(path_type=Path))
@junit_option
def verify(manifest_file, junit):
    """Check a manifest of known verdicts (TOML, [[expect]] entries: model, variant, bounds,
    property, outcome, steps; docs/ci.md): each expectation is answered by an exhaustive search
    on the local engine, expectations with the same model, variant and bounds sharing one
    search, and a table sets what was expected against what was found. Exits 0 when every
    expectation matched, 1 on any surprise (another outcome, or another shortest trace length),
    2 on bad input (one line naming the file and the entry's line)."""
    try:
        groups = manifest.load(manifest_file)
    except manifest.ManifestError as exc:
        raise UserError(str(exc)) from None
    started = time.monotonic()
    label = f"verify {manifest_file}"
    with search("local", None, None, None, None, label, [g.model for g in groups]) as (explore, on_level):
        results = [explore(g.model, g.properties, stop_at_first=False, on_level=on_level,
                           symmetry=choose_symmetry([g.model], g.properties, None)[0]) for g in groups]
    elapsed = time.monotonic() - started
    answered = sorted(((e, result, result.seconds / len(g.expectations))
                       for g, result in zip(groups, results) for e in g.expectations), key=lambda row: row[0].number)
    surprises = sum(e.surprised(result) for e, result, _ in answered)
    console = stdout_console()
    console.print(expectation_table(manifest_file, answered))
    searches = f"{len(groups)} search" + "es" * (len(groups) != 1)
    console.print(f"{len(answered)} expectation{'s' * (len(answered) != 1)}, {len(answered) - surprises} as "
                  f"expected, {surprises} surprise{'s' * (surprises != 1)} ({searches}, {elapsed:.1f} s)",
                  highlight=False)
    write_junit(junit, [junit_xml.manifest_suite(label, answered, str(manifest_file))])
    sys.exit(EXIT_VIOLATED if surprises else 0)


def expectation_table(manifest_file: Path, answered) -> Table:
    """`verify`'s table: one row per expectation (`answered`: (expectation, the result of its
    search, ...) in manifest order) with its line, model, variant, bounds as written, property,
    the expected and the found outcome, and a SURPRISE mark where they differ; notes last."""
    table = Table(title=Text(f"{manifest_file}: expected against found (engine local)"), title_justify="left")
    notes = any(e.note for e, _, _ in answered)
    columns = ("line", "model", "variant", "bounds", "property", "expected", "found", "") + (("note",) if notes else ())
    for column in columns:
        table.add_column(column, justify="right" if column == "line" else "left",
                         no_wrap=column not in ("bounds", "note"))
    for expectation, result, _ in answered:
        surprised = expectation.surprised(result)
        table.add_row(str(expectation.line or f"#{expectation.number}"), expectation.model, expectation.variant or "-",
                      bounds_text(expectation.given) or "defaults", expectation.prop, expectation.expected,
                      manifest.found_text(*expectation.found(result)),
                      "[bold red]SURPRISE[/]" if surprised else "[green]as expected[/]",
                      *([Text(expectation.note, style="dim")] if notes else []), style="red" if surprised else None)
    return table

if __name__ == "__main__":
    main()
