"""64-bit fingerprints of packed states.

A packed state is a row of int8 slots; its fingerprint mixes every slot into a 64-bit word
(FNV-style multiply and xor, then the splitmix64 finalizer). Zero is reserved for empty slots
of the visited set, so a fingerprint is never 0. The same row gives the same fingerprint in
every process and on every machine, so both engines order states and break ties alike.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

_PRIME = np.uint64(0x100000001B3)
_OFFSET = np.uint64(0xCBF29CE484222325)


@kernel
def fingerprint(row):
    """The row's fingerprint as a signed 64-bit int (the order engines break ties by), never 0."""
    h = _OFFSET
    for i in range(row.shape[0]):
        h = _mixed(h, row[i])
    return _finished(h)


@kernel
def fingerprints(rows, m, out):
    """out[q] = fingerprint(rows[q]) for the first m rows. Four rows are mixed side by side: each
    row's mix is a chain of multiplies, every one waiting on the one before, and four
    independent chains keep the multiplier busy (about three times the rows per second)."""
    width = rows.shape[1]
    q = 0
    while q + 4 <= m:
        a = b = c = d = _OFFSET
        for i in range(width):
            a = _mixed(a, rows[q, i])
            b = _mixed(b, rows[q + 1, i])
            c = _mixed(c, rows[q + 2, i])
            d = _mixed(d, rows[q + 3, i])
        out[q], out[q + 1], out[q + 2], out[q + 3] = _finished(a), _finished(b), _finished(c), _finished(d)
        q += 4
    for r in range(q, m):
        out[r] = fingerprint(rows[r])


@kernel
def _mixed(h, slot):
    """One FNV-1a step: the mix `h` with one more slot of a row folded in."""
    return (h ^ np.uint64(np.uint8(slot))) * _PRIME


@kernel
def _finished(h):
    """The splitmix64 finalizer of a row's mix, as a signed fingerprint; 0 becomes 1."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    fp = np.int64(h)
    return fp if fp != 0 else np.int64(1)
