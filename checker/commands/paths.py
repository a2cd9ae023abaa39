"""The path type of the command line's path options and arguments (cheap to import)."""

from __future__ import annotations

import click

from checker.file_roles import INPUT, OUTPUT, OWNED
from checker.output_kinds import CHECKPOINT_DIRECTORY, TRACE_DIRECTORY

ROLES = (INPUT, OUTPUT, OWNED)


class NonEmptyPath(click.Path):
    """A path option or argument that refuses an empty string, which would otherwise mean the
    current directory (`--trace-dir ''` wrote traces into it), and says what the command does
    with it (`role`: checker.file_roles' INPUT, OUTPUT or OWNED), so that no output replaces an
    input (`checker.commands.command`). An output or owned path names what it holds (`kind`: a
    word of `checker.output_kinds`), so that it is checked before the command runs; None where
    the command checks it itself (`trace render -o`, whose kind is its --format)."""

    def __init__(self, *, role: str, kind: str | None = None, **options):
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        super().__init__(**options)
        self.role, self.kind = role, kind
        if kind in (TRACE_DIRECTORY, CHECKPOINT_DIRECTORY):  # a file there is refused by output_kinds, in one line
            self.name = "directory"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)
