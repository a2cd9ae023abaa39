"""How every replcheck command treats its command line before it runs (cheap to import: cli.py
builds its commands with these classes).

- An option that takes one value, given twice, is refused: click would keep the last and drop
  the first without a word (`distinguish --invariant A --invariant B` checked only B). Options
  that take several (`check --invariant`) combine as before.
- No output may replace an input: the path options' roles (`checker.commands.paths`) are checked
  against each other (`checker.file_roles.clash`) before the command runs, and while it runs
  nothing it writes may replace a file it read.
- No output replaces anything but replcheck's own output of its kind, and none goes where it
  cannot be written: each output option is checked (`checker.output_kinds.refusal`) before the
  command runs.
- Every error line is tidied (`errors.tidy`): click's own messages quote the user's value whole,
  a 10 MB option value included.
"""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import click

from checker.file_roles import Role, clash, command_files
from checker.output_kinds import refusal
from .errors import UserError, tidy
from .paths import NonEmptyPath


@contextmanager
def tidied_errors():
    """Re-raise a click error from the block with its message tidied (`errors.tidy`)."""
    try:
        yield
    except click.ClickException as exc:
        exc.message = tidy(exc.message)
        raise


class TidyErrors:
    """A command or group whose parsing and running errors are tidied (mix in before click's class)."""

    def make_context(self, *args, **kwargs):
        """click's context for the command line, errors tidied."""
        with tidied_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        """Run the command, errors tidied."""
        with tidied_errors():
            return super().invoke(ctx)


def spelling(param: click.Parameter) -> str:
    """How an error names an option or argument: `--seed`, `--symmetry/--no-symmetry`, `FILE`."""
    if isinstance(param, click.Option):
        return "/".join(param.opts + param.secondary_opts)
    return param.human_readable_name


def repeated(command: click.Command, ctx: click.Context, args: list[str]) -> str | None:
    """Why the command line gives an option that takes one value more than once (None if it
    does not): click's own parser reads the arguments, and the order in which it met the
    options counts each time an option was given."""
    _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    counts = Counter(p for p in order if isinstance(p, click.Option) and not (p.multiple or p.count))
    twice = next((p for p, n in counts.items() if n > 1), None)
    if twice is None:
        return None
    times = "twice" if counts[twice] == 2 else f"{counts[twice]} times"
    return f"{spelling(twice)} is given {times}, but it takes one value: give it once"


def roles(command: click.Command, ctx: click.Context) -> list[Role]:
    """The paths this command line names, each with the role its option plays."""
    return [Role(spelling(p), Path(ctx.params[p.name]), p.type.role, p.type.kind) for p in command.params
            if isinstance(p.type, NonEmptyPath) and ctx.params.get(p.name) is not None]


class ReplcheckCommand(TidyErrors, click.Command):
    """A replcheck command (module docstring): one value per single-valued option, no output
    over an input, tidy errors."""

    def parse_args(self, ctx, args):
        """click's parsing, after refusing a single-valued option given twice."""
        if not ctx.resilient_parsing:
            problem = repeated(self, ctx, args)
            if problem is not None:
                raise click.UsageError(problem, ctx)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command once its paths are known not to clash and its outputs to be writable
        without replacing anything but replcheck's own output, remembering what it reads."""
        named = roles(self, ctx)
        problem = clash(named) or next(filter(None, (refusal(r.option, r.path, r.kind) for r in named
                                                     if r.kind is not None)), None)
        if problem is not None:
            raise UserError(problem)
        with command_files():
            return super().invoke(ctx)
