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
        h = (h ^ np.uint64(np.uint8(row[i]))) * _PRIME
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    fp = np.int64(h)
    return fp if fp != 0 else np.int64(1)

