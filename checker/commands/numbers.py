"""The command line's numeric option types, each with the limit the checker can take named in
its error (cheap to import)."""

from __future__ import annotations

import math

import click

MAX_SECONDS = 365 * 24 * 3600
"""The longest duration an option takes: a year. Longer is no run anyone waits for, and a
deadline past it (or an infinite one) is a run that never ends on its own."""

MAX_SEED = 2**64 - 1
"""The largest simulation seed: walks draw from a 64-bit generator (SplitMix64), seeded with it."""

MAX_COUNT = 2**63 - 1
"""The most walks, or BFS levels, an option may ask for: a signed 64-bit count."""


class Seconds(click.ParamType):
    """A duration in seconds: a finite number, above 0 (or from 0, with `zero_ok`), at most
    MAX_SECONDS; NaN and infinity are refused."""

    name = "seconds"

    def __init__(self, zero_ok: bool = False):
        self.zero_ok = zero_ok

    def convert(self, value, param, ctx):
        """The number of seconds `value` stands for (click calls this with the option's text)."""
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number) or not (number >= 0 if self.zero_ok else number > 0) or number > MAX_SECONDS:
            low = "from 0" if self.zero_ok else "above 0"
            self.fail(f"{value} is not a number of seconds {low} and at most {MAX_SECONDS:,} (a year)", param, ctx)
        return number
