"""The command line's numeric option types, each refusing a value past what the checker can take
with one error line (exit 2) that names the limit (cheap to import)."""

from __future__ import annotations

import math

import click

from .errors import UserError

MAX_SECONDS = 365 * 24 * 3600
"""The longest duration an option takes: a year. Longer is no run anyone waits for, and a
deadline past it (or an infinite one) is a run that never ends on its own."""

MAX_SEED = 2**64 - 1
"""The largest simulation seed: walks draw from a 64-bit generator (SplitMix64), seeded with it."""

MAX_COUNT = 2**63 - 1
"""The most walks, or BFS levels, an option may ask for: a signed 64-bit count."""


def option_name(param) -> str:
    """How an error names the option: its long spelling."""
    return max(param.opts, key=len) if param is not None and param.opts else "the value"


class WholeNumber(click.ParamType):
    """A whole number from `low` to `high` (`why`, if given, says where the upper limit comes from)."""

    name = "integer"

    def __init__(self, low: int, high: int, why: str = ""):
        self.low, self.high, self.why = low, high, why

    def convert(self, value, param, ctx):
        """`value` as a whole number within the limits, else a one-line UserError naming them."""
        try:
            number = value if isinstance(value, int) and not isinstance(value, bool) else int(str(value), 10)
        except ValueError:
            number = None
        if number is None or not self.low <= number <= self.high:
            why = f" ({self.why})" if self.why else ""
            raise UserError(f"{option_name(param)} must be a whole number from {self.low:,} to {self.high:,}{why}, "
                            f"not {value!r}")
        return number


class Seconds(click.ParamType):
    """A duration in seconds: a finite number, above 0 (or from 0, with `zero_ok`), at most
    MAX_SECONDS; NaN and infinity are refused."""

    name = "seconds"

    def __init__(self, zero_ok: bool = False):
        self.zero_ok = zero_ok

    def convert(self, value, param, ctx):
        """The number of seconds `value` stands for, else a one-line UserError naming the limits."""
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or not (number >= 0 if self.zero_ok else number > 0) or number > MAX_SECONDS:
            low = "from 0" if self.zero_ok else "above 0"
            raise UserError(f"{option_name(param)} must be a number of seconds {low} and at most {MAX_SECONDS:,} "
                            f"(a year), not {value!r}")
        return number
