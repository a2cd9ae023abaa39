"""The path type of the command line's path options and arguments (cheap to import)."""

from __future__ import annotations

import click


class NonEmptyPath(click.Path):
    """A path option or argument that refuses an empty string, which would otherwise mean the
    current directory (`--trace-dir ''` wrote traces into it)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)
