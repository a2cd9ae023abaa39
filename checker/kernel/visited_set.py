"""The visited set: 64-bit fingerprints in an open-addressing hash table (8 bytes a slot).

Slot value 0 means empty (fingerprints are never 0). The table is kept at most 70% full:
`needs_room` tells the search loop when to stop and let the driver `grow` it.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

MAX_LOAD = 0.7


@kernel
def home(table, fp):
    """The first slot probed for `fp`."""
    return (fp ^ (fp >> 29)) & (table.shape[0] - 1)


@kernel
def _slot(table, fp):
    """The slot holding `fp`, or the empty slot where it belongs (linear probing)."""
    mask = table.shape[0] - 1
    i = home(table, fp)
    while table[i] != 0 and table[i] != fp:
        i = (i + 1) & mask
    return i


@kernel
def add(table, fp):
    """Insert `fp`; True when it was not there before."""
    i = _slot(table, fp)
    if table[i] == fp:
        return False
    table[i] = fp
    return True


@kernel
def contains(table, fp):
    """Whether `fp` is in the table."""
    return table[_slot(table, fp)] == fp


@kernel
def _rehash(old, new):
    for fp in old:
        if fp != 0:
            new[_slot(new, fp)] = fp


def new_table(expected: int) -> np.ndarray:
    """An empty table with room for `expected` fingerprints."""
    size = 1 << max(10, int(expected / MAX_LOAD).bit_length())
    return np.zeros(size, np.int64)


def needs_room(table: np.ndarray, count: int, adding: int) -> bool:
    """Whether adding `adding` more fingerprints to a table holding `count` would pass the load limit."""
    return count + adding > MAX_LOAD * table.shape[0]


def grow(table: np.ndarray, count: int, adding: int) -> np.ndarray:
    """A table holding the same fingerprints with room for `adding` more."""
    bigger = new_table(2 * (count + adding))
    _rehash(table, bigger)
    return bigger
