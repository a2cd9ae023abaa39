"""What several commands share: the console for their tables, the model and properties a
command names, symmetry, output directories, saved traces and pictures, JUnit reports.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from checker.ci import junit as junit_xml
from checker.invariant import applies, scope, settings
from checker.output_kinds import RENDERED, TRACE, model_run, planned_refusal
from checker.report import bounds_text
from checker.symmetry_choice import choose_symmetry
from invariants.registry import select
from model.params import ModelError
from model.registry import MODELS, build_model
from model.rules import with_switches
from traces.render import render_file
from traces.store import TraceFileError, save_trace
from .errors import UserError


def stdout_console() -> Console:
    """A console for tables on stdout: the terminal's width, or 160 columns when piped, so a
    saved report keeps every replica column."""
    return Console() if sys.stdout.isatty() else Console(width=160)


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


def another_variants(prop, models) -> bool:
    """The property belongs to other variants of these models (kip966's ELR invariant under
    kip320, say): left out of a default selection without a notice, since `replcheck list`
    says where it applies."""
    def presets(m) -> dict:
        book = MODELS[m.name].rules
        return dict(book.presets) if book is not None else dict.fromkeys(MODELS[m.name].variants)

    return all(any(prop.only_when(settings(m, v, rules)) for v, rules in presets(m).items()) for m in models)


def with_rules(model_name: str, variant: str | None, rules: tuple[str, ...] = ()) -> str | None:
    """The variant with the `--rule` switches (each RULE=CHOICE) added to its name (the model's
    default variant when `variant` is None), to be resolved when the model is built; UserError
    for a model without rules to switch, or a value that is not one RULE=CHOICE (`+` joins
    switches in a variant's name only: `model.rules.with_switches`)."""
    if not rules:
        return variant
    kind = MODELS.get(model_name)
    if kind is None:
        return variant  # build_model names the models there are
    if kind.rules is None:
        raise UserError(f"model {model_name} has no rules to switch"
                        + (f" (its variants are fixed: {', '.join(kind.variants)})" if kind.variants else ""))
    try:
        return with_switches(variant if variant is not None else kind.default_variant, rules)
    except ModelError as exc:
        raise UserError(f"--rule: {exc}") from None


def model_and_properties(model_name: str, variant: str | None, names, bounds: dict, rules: tuple[str, ...] = ()) -> tuple:
    """The model to check (its variant with the `rules` switched) and the named properties
    (every invariant when none is named) that apply to it (`applicable`), with ghost variables
    kept when one needs them; UserError for an unknown model, variant, rule, property or bad
    bounds."""
    variant = with_rules(model_name, variant, rules)
    try:
        properties = select(model_name, names)
        model = build_model(model_name, variant, ghost=any(p.needs_ghost for p in properties), **bounds)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    return model, applicable([model], properties, bool(names))


def count_guards(models, wanted: bool) -> None:
    """Have the searches and walks of `models` count their guards (how often each was tested
    and false, `checker.kernel.guards`) when `wanted` (`--coverage`): their compiled actions
    then keep the counting they otherwise leave out."""
    for model in models:
        kernel = getattr(model, "kernel", None)
        if wanted and kernel is not None:
            kernel.count_guards = True


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


def trace_path(trace_dir: Path, model, name: str, tag: str = "") -> Path:
    """Where a trace of the property `name` found on `model` is saved in `trace_dir`:
    <model>-<variant>-[<tag>-]<name>.json."""
    return trace_dir / f"{model.name}-{model.variant or 'default'}-{tag + '-' if tag else ''}{name}.json"


def make_trace_dir(trace_dir: Path | None, searches, render_format: str | None = None,
                   others: dict[str, Path | None] | None = None) -> None:
    """Before a search: make sure every trace (and with `render_format`, its picture) it may
    save in `trace_dir` can be written there, then create the directory (`make_output_dir`).
    `searches`: (model, tag, property names) for each search the command runs; `others`: the
    command's other output options (option -> path). UserError otherwise."""
    if trace_dir is None:
        return
    planned = {}
    for model, tag, names in searches:
        for name in names:
            planned.update(trace_files(trace_path(trace_dir, model, name, tag), model_run(model, name), render_format))
    make_output_dir(trace_dir, planned, others or {})


def trace_files(path: Path, run: dict, render_format: str | None) -> dict:
    """The files saving a trace of `run` at `path` writes (with `render_format`, its picture
    beside it), each with its kind and run, as `make_output_dir` takes them."""
    planned = {path: (TRACE, run)}
    if render_format:
        planned[default_output(path, render_format, "lanes")] = (RENDERED[render_format], None)
    return planned


def make_output_dir(directory: Path, planned: dict, others: dict[str, Path | None]) -> None:
    """Create the --trace-dir `directory` once the files a command will write there (`planned`:
    path -> (kind, the run of a trace, else None)) are known to be writable: none replaces a
    file but replcheck's own output of its kind, and none is a file another output option
    (`others`) names (`checker.output_kinds.planned_refusal`). UserError otherwise."""
    problem = planned_refusal("--trace-dir", planned, others)
    if problem is not None:
        raise UserError(problem)
    make_dir(directory)


def saved_traces(result, model, trace_dir: Path, tag: str = ""):
    """Save each counterexample of `result` as <model>-<variant>-[<tag>-]<invariant>.json in
    `trace_dir`, yielding (invariant, file) as each is written; UserError when one cannot be."""
    for name, trace in result.violations.items():
        path = trace_path(trace_dir, model, name, tag)
        try:
            save_trace(trace, model, path)
        except OSError as exc:
            raise UserError(f"cannot write trace file {path}: {exc.strerror}") from None
        yield name, str(path)


def save_traces(result, model, trace_dir: Path, tag: str = "") -> dict[str, str]:
    """`saved_traces` as a dict invariant -> file."""
    return dict(saved_traces(result, model, trace_dir, tag))


def write_junit(path: Path | None, suites) -> None:
    """Write the JUnit report of `suites` to `path` (if one was asked for), atomically; a
    one-line UserError when it cannot be written."""
    if path is None:
        return
    try:
        junit_xml.write_report(path, suites)
    except OSError as exc:
        raise UserError(f"cannot write JUnit report {path}: {exc.strerror or exc}") from None


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

