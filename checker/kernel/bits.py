"""Bit counting on replica sets and kind masks (bitmasks), compiled."""

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


@kernel
def nth_bit(bits, n):
    """The position of the n-th set bit of `bits` (counting from 0, lowest first)."""
    position = 0
    while True:
        if bits & 1:
            if n == 0:
                return position
            n -= 1
        bits >>= 1
        position += 1
