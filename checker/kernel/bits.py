"""Bit counting on replica sets (bitmasks), compiled."""

from __future__ import annotations

from .jit import kernel


@kernel
def popcount(bits):
    """How many bits are set in `bits`."""
    count = 0
    while bits:
        count += bits & 1
        bits >>= 1
    return count

