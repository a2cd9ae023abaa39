"""The path type of the command line's path options and arguments (cheap to import)."""

from __future__ import annotations

import click

from checker.file_roles import INPUT, OUTPUT, OWNED

ROLES = (INPUT, OUTPUT, OWNED)


class NonEmptyPath(click.Path):
    """A path option or argument that refuses an empty string, which would otherwise mean the
    current directory (`--trace-dir ''` wrote traces into it), and says what the command does
    with it (`role`: checker.file_roles' INPUT, OUTPUT or OWNED), so that no output replaces an
    input (`checker.commands.command`)."""

    def __init__(self, *, role: str, **options):
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        super().__init__(**options)
        self.role = role

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)
