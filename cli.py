"""The `replcheck` command line: check a protocol variant, list what there is, show a trace.

Exit codes: 0 no checked invariant is violated and every checked property (invariant or
witness) was decided; 1 an invariant is violated, or the search stopped before every property
could be decided; 2 bad input (unknown model, variant or invariant, impossible
bounds, an unreadable or foreign trace file, an unwritable output path); 130 interrupted;
143 terminated (SIGTERM).

This module declares the commands, their options and their help, and imports only what that
takes: click, and the models' declared parameters. Each command's body is in
`checker.commands`, imported (with numba, the models and rich) when the command runs, so that
`replcheck --help` or a mistyped option answers at once.
"""

from __future__ import annotations

import signal

# First, with nothing loaded but `signal`: a Ctrl-C or SIGTERM is only recorded until the command
# line has loaded (Python's own report of one that lands in an import is a traceback, and a
# library may swallow it), then acted on (`_end_of_loading`). A caller that started the process
# with them blocked, to send one at any moment from its start, gets it delivered here. A helper
# process that multiprocessing spawns from a run (`checker.kernel.side_compile`) imports this
# module again, as `__mp_main__`: it leaves the signals as they are (its parent ends it; a
# held SIGTERM would keep it compiling) and says nothing of them on the run's stderr.
_HELD: list[int] = []
_A_RUN = __name__ != "__mp_main__"


def _hold(number, frame):
    _HELD.append(number)


_hold.records_only = True  # checker.interrupts.signalled: no signal raises an interruption here
if _A_RUN:
    _BEFORE = {signum: signal.signal(signum, _hold) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _BEFORE)

import atexit
import errno
import gc
import importlib
import os
import re
import sys
import tempfile
import traceback
from functools import wraps
from pathlib import Path

import click

from model.fetch import tradeoffs
from checker.commands.errors import (EXIT_INTERRUPTED, EXIT_TERMINATED, LAYOUT_OVERFLOW, Interrupted, UserError,
                                     interruption_message)
from checker.commands.command import ReplcheckCommand, TidyErrors
from checker.commands.numbers import MAX_COUNT, MAX_SEED, Seconds, WholeNumber
from checker.commands.paths import NonEmptyPath
from checker.file_roles import INPUT, OUTPUT, OWNED
from checker.output_kinds import CHECKPOINT_DIRECTORY, TRACE_DIRECTORY
from checker.interrupts import (Terminated, ctrl_c, forget_escaped_interruptions, interruption_behind,
                                interruptions_deferred, quiet_swallowed, sigterm_raises)
from checker.jobs.engines import ENGINES, SMALL
from checker.spark.master_url import master_problem
from checker.simulation.weightings import WEIGHTINGS
from model.registry import BUILT_IN, MODELS, GuestError, left_out


def _skip_final_collection() -> None:
    """Run at exit: put every object out of the garbage collector's reach, so that the
    interpreter's last collections do not walk the objects numba and the models leave behind
    (about 0.12 s on a 2-core machine, a tenth of a small run). The process's memory goes back
    to the system when it ends all the same, and other exit handlers run as before."""
    gc.freeze()


atexit.register(_skip_final_collection)


def _load(module: str, function: str):
    """(`function` of `checker.commands.<module>`, the compile notices' context manager),
    imported with Ctrl-C held back until they are loaded (a library may swallow one that lands
    in its import code) and with the cyclic garbage collector paused. What they made is then
    frozen out of the collector's reach (`gc.freeze`; `runs` thaws it when the command ends):
    modules live as long as the process, and walking the objects numba and the models create,
    again at each collection before the search, took 60 ms of a small run on a 2-core
    machine."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        with interruptions_deferred():
            body = getattr(importlib.import_module(f"checker.commands.{module}"), function)
            notices = importlib.import_module("checker.compile_notice").compile_notices
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    return body, notices


def runs(target: str):
    """Make the decorated declaration (its docstring is the command's help) run `target`,
    "module:function" in `checker.commands`, with the command's options as keyword arguments.
    The module is imported when the command runs (`_load`), and every kernel compile in the
    command is announced (`checker.compile_notice`)."""
    module, function = target.split(":")

    def decorate(declared):
        @wraps(declared)
        def run(**options):
            body, notices = _load(module, function)
            try:
                with notices():
                    return body(**options)
            finally:
                gc.unfreeze()
        return run
    return decorate


class TraceGroup(TidyErrors, click.Group):
    """`replcheck trace`, whose subcommands are declared in `checker.commands.trace` (their
    options name what `traces.render` offers, and it imports the models): loaded, with Ctrl-C
    held back, only when the group runs."""

    def list_commands(self, ctx) -> list[str]:
        """The subcommands' names, in click's order."""
        return sorted(self.loaded())

    def get_command(self, ctx, name: str):
        """The subcommand `name` (None when there is none)."""
        return self.loaded().get(name)

    @staticmethod
    def loaded() -> dict:
        """The subcommands, by name."""
        with interruptions_deferred():
            from checker.commands.trace import COMMANDS
        return COMMANDS


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
            func = click.option(f"--{name}/--no-{name}", default=None, help=text, **_guest_only(defaults))(func)
        else:
            kind = click.Choice(p.choices) if p.kind == "choice" else int
            func = click.option(f"--{name}", type=kind, default=None, help=text, **_guest_only(defaults))(func)
    return func


class GuestOption(click.Option):
    """The option of a parameter only model packages' models take (`model.registry.guest`), and
    which of them take it (`models`): `ModelCommand` leaves it off where it clashes."""

    def __init__(self, *args, models: tuple[str, ...] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.models = models


def _guest_only(models) -> dict:
    """click.option's arguments that make a model parameter's option a GuestOption when only
    packages' `models` take it (none when a built-in model does)."""
    return {} if any(name in BUILT_IN for name in models) else {"cls": GuestOption, "models": tuple(models)}


class ModelCommand(ReplcheckCommand):
    """A command whose model parameters come from model packages too: where one of replcheck's
    own options takes a package's parameter's name (`--seed`, `--json`), that option is left off
    the command and the models that take it are left out with one line each
    (`model.registry.left_out`), so that the command keeps its own option."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        own = {"--help"} | {name for p in self.params if not isinstance(p, GuestOption)
                            for name in (p.name, *p.opts, *p.secondary_opts)}
        for p in [p for p in self.params if isinstance(p, GuestOption)]:
            if own & {p.name, *p.opts, *p.secondary_opts}:
                self.params.remove(p)
                for model in p.models:
                    if model in MODELS:
                        left_out(GuestError(MODELS.pop(model).package, f"its parameter {p.opts[0]} is taken by "
                                                                       f"replcheck's own option on `{self.name}`"))


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


MAX_MEMORY = 2**50
"""The largest --memory-budget: a pebibyte, above any machine's memory (a task's visited set is
kept in memory up to it)."""


def _memory_size(ctx, param, value: str | None) -> int | None:
    """--memory-budget: bytes, with an optional K, M, G or T suffix (powers of 1024), at most
    MAX_MEMORY."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", value, re.IGNORECASE)
    if not match:
        raise UserError(f"--memory-budget {value!r} is not a size (for example 512M or 4G)")
    number, unit = float(match.group(1)), match.group(2).upper()
    size = number * 1024 ** " KMGT".index(unit or " ")
    if not 1 <= size <= MAX_MEMORY:
        raise UserError(f"--memory-budget {value!r} is not a size from 1 byte to {MAX_MEMORY // 2**50}P")
    return int(size)


TRACE_DIR = NonEmptyPath(role=OUTPUT, kind=TRACE_DIRECTORY, path_type=Path)
"""The type of a --trace-dir option: a directory the command writes traces (and pictures) into
(a file there is refused in one line by `checker.output_kinds`, as every output's problems are)."""
CHECKPOINT_DIR = NonEmptyPath(role=OWNED, kind=CHECKPOINT_DIRECTORY, path_type=Path)
"""The type of --checkpoint-dir and of resume's DIRECTORY: a checkpoint directory, kept whole."""


def engine_options(func):
    """--engine, --master, --partitions, --work-dir and --symmetry."""
    func = click.option("--symmetry/--no-symmetry", default=None,
                        help="store one state per orbit under renaming replicas (default: on whenever every checked "
                             "property is symmetric; counts are then orbits, as TLC's SYMMETRY)")(func)
    return spark_options(func)


def spark_options(func):
    """--engine, --threads, --master, --partitions, --work-dir, and --progress."""
    func = click.option("--progress", "progress_file",
                        type=NonEmptyPath(role=OUTPUT, kind="progress log", path_type=Path),
                        default=None, metavar="FILE",
                        help="append each BFS level (states, frontier, rate, memory, projected end) to FILE as one "
                             "JSON object per line, for dashboards")(func)
    func = click.option("--work-dir", default=None, metavar="DIR", callback=_local_directory,
                        help="spark: where each task keeps its scratch files (every level's routes, for the traces), "
                             "a local directory on every executor's machine; removed when the run ends; default: "
                             "Spark's local directories")(func)
    func = click.option("--memory-budget", default=None, metavar="SIZE", callback=_memory_size,
                        help="spark: the most memory each task's visited set may take (e.g. 512M, 4G), and a quarter "
                             "of it each of its frontier and its level's candidates; past it the task writes sorted "
                             "runs to --work-dir, so they are bounded by disk; default: no limit")(func)
    func = click.option("--partitions", type=click.IntRange(1, 4096), default=None,
                        help="spark: number of shards of the frontier and visited set (default: cores)")(func)
    func = click.option("--master", default=None, callback=_valid_master,
                        help="spark: master URL (local[N], spark://host:7077, yarn, k8s://...); default: the "
                             f"embedded local[*], where a search that ends within {SMALL:,} states runs in the "
                             "driver process and Spark is not started (give --master to always use Spark)")(func)
    func = click.option("--threads", type=click.IntRange(1, 1024), default=None, expose_value=False,
                        callback=_use_threads,
                        help="local: threads that expand each BFS level side by side (default: one per core this "
                             "process may use); every count finds the same states and traces")(func)
    return click.option("--engine", type=click.Choice(ENGINES), default="spark", show_default=True,
                        help="spark (PySpark, embedded local[*] by default) or local (one Python process, "
                             "--threads threads)")(func)


def _use_threads(ctx, param, value):
    """--threads: the local engine's threads for this process (`checker.kernel.expansion.use_threads`)."""
    if value is not None:
        from checker.kernel.expansion import use_threads

        use_threads(value)
    return value


def rule_option(func):
    """--rule RULE=CHOICE, repeatable: switch one of the variant's rules."""
    return click.option("--rule", "rules", multiple=True, metavar="RULE=CHOICE",
                        help="switch one of the variant's rules to another choice (repeatable; `replcheck list` "
                             "names each model's rules and choices): --variant kip966 --rule hw-advance=plain")(func)


def model_options(verb: str):
    """--model, --variant, every bound, and --invariant: what `check` and `simulate` ask of a
    model (`verb`: what the command does with it)."""
    def decorate(func):
        func = click.option("--invariant", "invariant_names", multiple=True, metavar="NAME",
                            help="invariant or witness to check (repeatable; default: every invariant of the "
                                 "model)")(func)
        func = bound_options(func)
        func = rule_option(func)
        func = click.option("--variant", default=None,
                            help="protocol variant (`replcheck list` names them; default: the model's, kip320)")(func)
        return click.option("--model", "model_name", default="spec", show_default=True, help=f"model to {verb}")(func)
    return decorate


def report_options(trace_help: str):
    """--trace-dir, --render, --json and --markdown, shared by compare and sweep."""
    def decorate(func):
        func = click.option("--markdown", "as_markdown", is_flag=True, help="print the table as Markdown")(func)
        func = click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of the table")(func)
        func = click.option("--render", "render_format", type=click.Choice(["svg", "html"]), default=None,
                            help="also render each kept trace (needs --trace-dir)")(func)
        return click.option("--trace-dir", type=TRACE_DIR,
                            default=None, help=trace_help)(func)
    return decorate


def junit_option(func):
    """--junit FILE: also write the verdicts as a JUnit XML report (`checker.ci.junit` says how
    each verdict maps onto a testcase), for CI servers."""
    return click.option("--junit", type=NonEmptyPath(role=OUTPUT, kind="junit", path_type=Path), default=None,
                        metavar="FILE",
                        help="also write a JUnit XML report to FILE for CI: one testcase per property checked (per "
                             "expectation for verify), a violated invariant (a surprise) as a failure; see "
                             "docs/ci.md")(func)


UNWRITABLE = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES)
"""The errors of a full disk or quota, or of a place that cannot be written: where no command
said what it could not write (the kernel cache mostly goes on without writing, or falls back on
the temporary directory), one line names the file."""


class ReplcheckGroup(TidyErrors, click.Group):
    """The command group, with Ctrl-C anywhere in a command (building a model, loading kernels,
    writing a report) reported as Interrupted rather than click's bare "Aborted!" and exit 1,
    SIGTERM handled the same way (exit 143), and a full disk or an unwritable place one line
    (exit 2). With --debug, the traceback behind a one-line error is printed before it. Its
    commands are `ModelCommand`s: one value per single-valued option, no output over an input,
    tidy errors, no model package's option over replcheck's own."""

    command_class = ModelCommand

    def main(self, *args, **kwargs):
        """click's main, ending with the exit code the command chose even where a Ctrl-C escaped
        generated source on its way to being reported (`forget_escaped_interruptions`)."""
        try:
            return super().main(*args, **kwargs)
        finally:
            forget_escaped_interruptions()

    def __call__(self, *args, **kwargs):
        """The program (`replcheck`, `python -m cli`; tests call `main` instead): a run that ended
        by Ctrl-C or SIGTERM, having said so, runs the exit handlers and ends there, without the
        interpreter's teardown, where objects an interrupted in-process compile left half made
        (llvmlite's) may crash the process (SIGSEGV) instead of letting it exit 130 or 143."""
        try:
            return self.main(*args, **kwargs)
        except SystemExit as stop:
            if stop.code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
                atexit._run_exitfuncs()
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(stop.code)
            raise

    def make_context(self, *args, **kwargs):
        """click's context for the command line, with a Ctrl-C or SIGTERM that comes while it is
        made (between `_end_of_loading` and `invoke`) reported as one in a command is."""
        try:
            with sigterm_raises():
                return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise Interrupted(isinstance(exc, Terminated)) from None

    def invoke(self, ctx):
        try:
            try:
                with sigterm_raises():
                    return super().invoke(ctx)
            except KeyboardInterrupt as exc:
                raise Interrupted(isinstance(exc, Terminated)) from None
            except click.ClickException:
                raise  # already a one-line error, an interrupted search's report included
            except GuestError as exc:  # a model package failed where no command looked for it
                raise UserError(str(exc)) from exc
            except Exception as exc:
                interruption = interruption_behind(exc)
                if interruption is not None:
                    raise Interrupted(isinstance(interruption, Terminated)) from None
                if isinstance(exc, OSError) and exc.errno in UNWRITABLE:
                    raise UserError(f"cannot write {exc.filename or 'a file'}: {exc.strerror}") from exc
                said = [line.strip() for line in str(exc).splitlines() if LAYOUT_OVERFLOW in line]
                if said:  # raised by a compiled step, here or in a Spark task
                    raise UserError(f"a state did not fit the packed layout its bounds sized ({said[-1]}): "
                                    "a replcheck bug, please report the command") from exc
                raise
        except click.ClickException as exc:
            cause = exc.__cause__ or exc.__context__
            if ctx.params.get("debug") and cause is not None:
                traceback.print_exception(type(cause), cause, cause.__traceback__, file=sys.stderr)
            raise


@click.group(cls=ReplcheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="print the Python traceback behind an error message")
def main(debug):
    """replcheck: a model checker for Kafka's partition replication protocols."""


def coverage_html_option(func):
    """--coverage-html FILE."""
    return click.option("--coverage-html", "coverage_html",
                        type=NonEmptyPath(role=OUTPUT, kind="coverage page", path_type=Path), default=None,
                        metavar="FILE",
                        help="also write the coverage as one HTML page to FILE: the actions and events with bars, "
                             "and each action's share of the steps level by level (see docs/coverage.md)")(func)


def coverage_option(func):
    """--coverage."""
    return click.option("--coverage", "show_coverage", is_flag=True,
                        help="show what the search exercised: per action, and per replica that takes it, the states "
                             "in which it was enabled, the steps fired, the new states found and the first depth at "
                             "which it fired (in --json: `coverage`); see docs/coverage.md")(func)


def checkpoint_options(func):
    """--checkpoint-dir and --checkpoint-every."""
    func = click.option("--checkpoint-every", type=Seconds(zero_ok=True), default=60.0, show_default=True,
                        metavar="SECONDS", help="save a checkpoint at the first level boundary after this many seconds "
                                                "(also at the end, and on Ctrl-C or SIGTERM)")(func)
    return click.option("--checkpoint-dir", type=CHECKPOINT_DIR,
                        default=None, help="keep the search's checkpoint here; if it already holds one of this same run, continue "
                             "from it (see `replcheck resume`)")(func)


def reduce_option(func):
    """--reduce: explore one order of steps that commute (stubborn sets, docs/reduction.md)."""
    return click.option("--reduce", is_flag=True,
                        help="explore one order of the steps that commute (stubborn sets): the same verdicts on "
                             "fewer states; a violation found is searched again without it for the shortest trace "
                             "(the fetch model; see docs/reduction.md)")(func)


@main.command()
@model_options("explore")
@click.option("--continue", "keep_going", is_flag=True,
              help="explore everything and report the shortest trace of every violated invariant and reached "
                   "witness")
@click.option("--max-depth", type=WholeNumber(0, MAX_COUNT, "a 64-bit count"), default=None,
              help="explore at most this many transitions")
@click.option("--trace-dir", type=TRACE_DIR, default=None,
              help="save each counterexample here as <model>-<variant>-<invariant>.json")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of tables")
@reduce_option
@coverage_option
@coverage_html_option
@junit_option
@checkpoint_options
@engine_options
@runs("check:check")
def check():
    """Explore every reachable state of a model, check its invariants and answer its witnesses.

    Exits 0 when no invariant is violated and every property was decided, 1 when an invariant
    is violated or something stayed undecided, 2 when a trace could not be saved (the result
    is printed all the same).
    """


@main.command()
@model_options("walk")
@click.option("--walks", type=WholeNumber(1, MAX_COUNT, "a 64-bit count"), default=None,
              help="run this many walks (numbered from 0; default 10,000 unless --seconds is given)")
@click.option("--seconds", type=Seconds(), default=None, help="run walks until this many seconds have passed")
@click.option("--max-depth", type=int, default=50, show_default=True, help="the most steps of one walk")
@click.option("--swarm", is_flag=True, help="each walk leaves out a random subset of the action kinds (swarm testing)")
@click.option("--weights", type=click.Choice(WEIGHTINGS), default="mixed", show_default=True,
              help="uniform: a walk draws an enabled action kind, then one of its steps, each alike; random: each "
                   "walk draws its own weight for each kind and each replica's steps of it; mixed: odd-numbered "
                   "walks random, even ones uniform")
@click.option("--steer", default="auto", show_default=True, metavar="INVARIANT|auto|none",
              help="steer walks toward this invariant's violation by its milestones: walks start again from the "
                   "furthest milestone states reached so far; auto: the first checked invariant that has "
                   "milestones; none: every walk from the initial state")
@click.option("--seed", type=WholeNumber(0, MAX_SEED, "the walks' generator is 64-bit"), default=0, show_default=True,
              help="the simulation's seed: the same seed and --walks give the same walks on either engine")
@click.option("--trace-dir", type=TRACE_DIR, default=None,
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
@coverage_option
@junit_option
@runs("simulate:simulate")
def simulate():
    """Random walks from the initial state, for answers past exhaustive reach: each walk takes
    random enabled steps up to --max-depth, and every invariant and witness is checked on every
    state. A violation is shortened (delta debugging, then a bounded BFS where the bounds allow)
    before it is shown. Finding nothing proves nothing: only `check` can say a property holds.

    Exits 0 when no invariant was found violated, 1 when one was, 2 when a trace could not be
    saved."""


@main.command()
@click.option("--model", "model_name", default="spec", show_default=True, help="model whose variants to tell apart")
@click.option("--variants", required=True, metavar="A,B", help="the two variants: A should fail, B hold")
@rule_option
@bound_options
@click.option("--invariant", "invariant_name", required=True, metavar="NAME", help="the invariant that tells them apart")
@click.option("--explain", is_flag=True, help="say at which step the variants part, and by which rules")
@click.option("--trace-dir", type=TRACE_DIR, default=None,
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
@runs("distinguish:distinguish")
def distinguish():
    """The shortest behaviour, as one sequence of events both variants allow, after which the
    invariant fails under A while it has held all along under B: a breadth-first search over
    pairs of states (an event enabled in only one variant is not shared, so a pair never takes
    it), on either engine. Exits 1 when such a behaviour exists, 0 when the two are
    indistinguishable by the invariant at these bounds, 2 on bad input."""


@main.command()
@click.argument("directory", type=CHECKPOINT_DIR)
@click.option("--max-depth", type=WholeNumber(0, MAX_COUNT, "a 64-bit count"), default=None,
              help="explore at most this many transitions (default: the limit the run was started with)")
@click.option("--trace-dir", type=TRACE_DIR, default=None,
              help="save each counterexample here as <model>-<variant>-<invariant>.json")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of tables")
@coverage_option
@coverage_html_option
@click.option("--checkpoint-every", type=Seconds(zero_ok=True), default=60.0, show_default=True,
              metavar="SECONDS", help="save a checkpoint at the first level boundary after this many seconds")
@spark_options
@runs("check:resume")
def resume():
    """Continue a search from the checkpoint in DIRECTORY (written by `check --checkpoint-dir`
    on either engine, at any partition count) to the result an uninterrupted run gives. The
    model, bounds, invariants and symmetry are the checkpoint's; a checkpoint of a run that
    ended is reported again. Exit codes as for `check`."""


@main.command()
@click.option("--model", "model_name", default="spec", show_default=True, help="model whose variants to compare")
@click.option("--variants", default=None, metavar="V1,V2,...", help="variants to compare (default: all of the model's)")
@rule_option
@bound_options
@click.option("--invariant", "invariant_names", multiple=True, metavar="NAME",
              help="invariant or witness to check (repeatable; default: every invariant of the model)")
@report_options("keep each shortest counterexample here as <model>-<variant>-<invariant>.json")
@reduce_option
@coverage_option
@junit_option
@engine_options
@runs("compare:compare")
def compare():
    """Compare protocol variants side by side: every invariant under every variant, explored to
    the end under the same bounds. Exits 0 once the comparison is made, whatever the verdicts."""


def sweep_options(func):
    """Every model parameter as `--name V1,V2,...` (flags also take `both`)."""
    seen = {}
    for kind in MODELS.values():
        for p in kind.params:
            seen.setdefault(p.name, (p, []))[1].append(kind.name)
    for name, (p, models) in reversed(seen.items()):
        func = click.option(f"--{name}", default=None, metavar="LIST", **_guest_only(models),
                            help=f"{p.help}: comma-separated values" + (" (on, off or both)" if p.kind == "flag" else ""))(func)
    return func


@main.command()
@click.option("--model", "model_name", default="fetch", show_default=True, help="model whose rules to ablate")
@click.option("--variant", default=None, help="the variant whose rules to switch (default: the model's)")
@rule_option
@bound_options
@click.option("--invariant", "invariant_name", required=True, metavar="NAME", help="the invariant the rules are for")
@click.option("--minimal", is_flag=True,
              help="instead: the smallest sets of the variant's rules that make the invariant hold on top of --base")
@click.option("--base", default=None, metavar="VARIANT",
              help="with --minimal: the rule set the variant's rules are switched on top of (default: the model's "
                   "oldest variant)")
@click.option("--alternatives", is_flag=True,
              help="switch each rule to every other choice, not only to the one it replaced")
@report_options("keep each rule set's shortest counterexample here as <model>-<rule set>-<invariant>.json")
@reduce_option
@junit_option
@click.option("--symmetry/--no-symmetry", default=None,
              help="store one state per orbit under renaming replicas (default: on whenever the invariant allows it)")
@click.option("--work-dir", default=None, metavar="DIR", callback=_local_directory,
              help="spark: where a search on every task keeps its scratch files (see --memory-budget); default: "
                   "Spark's local directories")
@click.option("--memory-budget", default=None, metavar="SIZE", callback=_memory_size,
              help="spark: for a search past 10,000,000 states, run on every task, the most memory each task's "
                   "visited set may take (e.g. 4G), and a quarter of it each of its frontier and candidates; "
                   "past it the task spills to --work-dir; default: no limit")
@click.option("--master", default=None, callback=_valid_master,
              help="spark: master URL; default: the embedded local[*]")
@click.option("--engine", type=click.Choice(ENGINES), default="spark", show_default=True,
              help="spark (each search one Spark task, side by side; a search past 10,000,000 states again on "
                   "every task) or local (one search after another here)")
@runs("ablate:ablate")
def ablate():
    """Which of a variant's rules an invariant needs: the variant, then the variant with each
    rule switched back to the choice it replaced in Kafka's history (or, with --alternatives, to
    every other choice), one rule at a time, each searched to the invariant's shortest
    counterexample or to the end. A rule is needed where switching it alone breaks an invariant
    the variant keeps. With --minimal: every set of the rules on which the variant and --base
    differ, smallest first, for the smallest sets that make the invariant hold (a superset of a
    holding set is skipped, and a set under which a smaller set's counterexample replays is
    violated without a search; docs/ablation.md). Exits 0 once the ablation is made, whatever
    the verdicts; 2 on bad input."""


@main.command(name="sweep")
@click.option("--model", "model_name", default="fetch", show_default=True, help="model to sweep")
@click.option("--variant", default=None, help="protocol variant (default: the model's)")
@rule_option
@sweep_options
@click.option("--invariant", "invariant_names", multiple=True, metavar="NAME",
              help="invariant or witness to check (repeatable; default for fetch: acked-survives and "
                   "committed-survives)")
@report_options("keep each shortest loss here, named by variant, configuration and invariant")
@reduce_option
@coverage_option
@junit_option
@engine_options
@runs("sweep:sweep_command")
def sweep_command():
    """Check every combination of the given settings: which configurations can lose
    acknowledged or committed data, and the shortest way they do. Exits 0 once the sweep is made."""


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
@runs("tradeoffs:tradeoffs_command")
def tradeoffs_command():
    """ISR against a majority quorum at replication factor 3, acks=all: can committed or
    acknowledged data be lost, and can the partition acknowledge writes with 1 or 2 brokers down?
    Each "yes" comes with its shortest trace, each "no" from an exhaustive search; the source
    articles' claims are read off the table. Exits 0 once the table is made."""


@main.command()
@click.argument("file", type=NonEmptyPath(role=INPUT, path_type=Path))
@runs("replay:replay")
def replay():
    """Replay a published scenario (or a saved trace) step by step: LEO and HW of every replica
    after each step, the invariants checked after each. Exits 0 when the story unfolds as the
    file expects (including the expected violation at the expected step; a trace's at its last
    step), 1 when it does not."""


@main.command("list")
@runs("listing:list_models")
def list_models():
    """List the models, their variants, rules, parameters, invariants and witnesses."""


@main.group(cls=TraceGroup)
def trace():
    """Read saved counterexample traces."""


@main.command()
@click.argument("manifest_file", metavar="MANIFEST", type=NonEmptyPath(role=INPUT, path_type=Path))
@junit_option
@reduce_option
@runs("verify:verify")
def verify():
    """Check a manifest of known verdicts (TOML, [[expect]] entries: model, variant, rules,
    bounds, property, outcome, steps; docs/ci.md): each expectation is answered by an exhaustive search
    on the local engine, expectations with the same model, variant and bounds sharing one
    search, and a table sets what was expected against what was found. Exits 0 when every
    expectation matched, 1 on any surprise (another outcome, or another shortest trace length),
    2 on bad input (one line naming the file and the entry's line)."""

def _end_of_loading() -> None:
    """Once the command line has loaded: Ctrl-C stops the run (`checker.interrupts.ctrl_c`,
    Python's own handler that also remembers it), SIGTERM's handler is back (each command makes
    it stop the run too: `sigterm_raises`), and a Ctrl-C or SIGTERM that came while it loaded
    ends the run with its one line (exit 130 or 143). One that lands where Python cannot raise it
    is not reported as an error of its own (`quiet_swallowed`).

    Ctrl-C stops the run even where the process began with it ignored, as a background job of a
    shell script does (the shell ignores SIGINT for it, and Python keeps an ignored SIGINT
    ignored): a search runs for minutes or hours, and a Ctrl-C sent to it, by a terminal or by
    `kill -INT`, is meant to stop it, as SIGTERM does."""
    sys.unraisablehook = quiet_swallowed
    signal.signal(signal.SIGINT, ctrl_c)
    signal.signal(signal.SIGTERM, _BEFORE[signal.SIGTERM])
    if _HELD:
        terminated = signal.SIGTERM in _HELD
        sys.stderr.write(f"Error: {interruption_message(terminated)}\n")
        sys.exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)


if _A_RUN:
    _end_of_loading()

if __name__ == "__main__":
    main()
