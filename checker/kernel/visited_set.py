"""The visited set: 64-bit fingerprints in open-addressing hash tables (8 bytes a slot).

The set is split into `SHARDS` tables by a fingerprint's top bits. Each table grows on its
own, by half its size, so growing one costs a transient 1/SHARDS of the set rather than a
second copy of all of it; and a table's size is any number of slots (a fingerprint's home slot
is found by multiplying, not masking), so the set is never more than 1.5 times larger than
its load limit asks. The tables start at staggered sizes, so they grow at different times and
the set as a whole stays between 53% and 80% full, about 66% (12 bytes a fingerprint), instead
of all tables growing at once.

Slot value 0 means empty (fingerprints are never 0). A table is kept at most `MAX_LOAD` full,
with room for one more batch of insertions beyond that (`room`), so a probe always ends.
"""

from __future__ import annotations

import numpy as np

from .address import table_at
from .jit import kernel
from .prefetch import prefetch

SHARD_BITS = 6
SHARDS = 1 << SHARD_BITS
HOME_SHIFT = 64 - SHARD_BITS - 32
"""A fingerprint's home slot comes from the 32 bits just below its shard bits."""
MAX_LOAD = 0.8
GROWTH = 1.5
ADDRESS, SIZE, COUNT, LIMIT = range(4)
"""Columns of `VisitedSet.shards`, one row per table: its address and size in slots, the
fingerprints it holds, and how many it may hold before it must grow."""


@kernel
def shard_of(fp):
    """The table that holds `fp`: its top SHARD_BITS bits."""
    return (fp >> (64 - SHARD_BITS)) & (SHARDS - 1)


@kernel
def home(table, fp):
    """The first slot of `table` probed for `fp`: 32 bits below the shard bits, scaled to its size."""
    return (((fp >> HOME_SHIFT) & 0xFFFFFFFF) * table.shape[0]) >> 32


@kernel
def table_of(shards, fp):
    """The table that holds `fp`."""
    s = shard_of(fp)
    return table_at(shards[s, ADDRESS], shards[s, SIZE])


@kernel
def _slot(table, fp):
    """The slot holding `fp`, or the empty slot where it belongs (linear probing)."""
    size = table.shape[0]
    i = home(table, fp)
    while table[i] != 0 and table[i] != fp:
        i += 1
        if i == size:
            i = 0
    return i


@kernel
def add(shards, fp):
    """Insert `fp` into its table and count it; True when it was not there before."""
    table = table_of(shards, fp)
    i = _slot(table, fp)
    if table[i] == fp:
        return False
    table[i] = fp
    shards[shard_of(fp), COUNT] += 1
    return True


@kernel
def any_full(shards):
    """Whether some table has reached its load limit (the search stops for the driver to grow it)."""
    for s in range(shards.shape[0]):
        if shards[s, COUNT] >= shards[s, LIMIT]:
            return True
    return False


@kernel
def contains(shards, fp):
    """Whether `fp` is in the set."""
    table = table_of(shards, fp)
    return table[_slot(table, fp)] == fp


AHEAD = 16
"""How far ahead of the fingerprint being looked up the bulk operations prefetch its slot, so
that many cache misses are under way at once."""


@kernel
def _prefetch_home(shards, fp):
    table = table_of(shards, fp)
    prefetch(table, home(table, fp))


@kernel
def _contains_all(shards, fps, out):
    n = fps.shape[0]
    for k in range(min(AHEAD, n)):
        _prefetch_home(shards, fps[k])
    for k in range(n):
        if k + AHEAD < n:
            _prefetch_home(shards, fps[k + AHEAD])
        out[k] = contains(shards, fps[k])


@kernel
def _admit_until_full(shards, fps, start, new):
    """Insert fps[start:] in order until a table reaches its load limit, marking in `new` the
    ones that were not there before; the position reached. The load limit is looked at once
    every AHEAD insertions: each table has room for that many beyond it."""
    n = fps.shape[0]
    for k in range(start, min(start + AHEAD, n)):
        _prefetch_home(shards, fps[k])
    for k in range(start, n):
        if (k - start) % AHEAD == 0 and any_full(shards):
            return k
        if k + AHEAD < n:
            _prefetch_home(shards, fps[k + AHEAD])
        new[k] = add(shards, fps[k])
    return n


@kernel
def _rehash(old, new):
    for fp in old:
        if fp != 0:
            new[_slot(new, fp)] = fp


class VisitedSet:
    """The fingerprints seen so far. `shards` goes to the compiled search loop as it is (see
    ADDRESS, SIZE, COUNT, LIMIT); this object keeps the tables it points at alive. `room` is the
    most fingerprints one batch of the loop can add."""

    def __init__(self, expected: int, room: int):
        self.room = max(room, AHEAD)
        self.smallest = max(1024, 4 * room)
        self.shards = np.zeros((SHARDS, 4), np.int64)
        # Staggered sizes: fingerprints spread evenly, so equal tables would all grow in the same level.
        size = max(self.smallest, int(expected / SHARDS / MAX_LOAD))
        self.tables = [self._table(s, int(size * GROWTH ** (s / SHARDS))) for s in range(SHARDS)]

    def __len__(self) -> int:
        return int(self.shards[:, COUNT].sum())

    def _table(self, s: int, size: int) -> np.ndarray:
        table = np.zeros(size, np.int64)
        self.shards[s, ADDRESS], self.shards[s, SIZE] = table.ctypes.data, len(table)
        self.shards[s, LIMIT] = min(int(MAX_LOAD * len(table)), len(table) - self.room)
        return table

    def grow_full(self) -> None:
        """Give every table at its load limit half as many slots again."""
        for s in np.flatnonzero(self.shards[:, COUNT] >= self.shards[:, LIMIT]):
            bigger = self._table(s, int(GROWTH * len(self.tables[s])))
            _rehash(self.tables[s], bigger)
            self.tables[s] = bigger

    def add_all(self, fps: np.ndarray) -> None:
        """Insert many fingerprints (a resumed search's visited states), growing tables as needed."""
        self.admit(fps)

    @property
    def nbytes(self) -> int:
        """The memory its tables take."""
        return sum(table.nbytes for table in self.tables)

    def fingerprints(self) -> np.ndarray:
        """Every fingerprint in the set, in no particular order."""
        return np.concatenate([table[table != 0] for table in self.tables])

    def contains_all(self, fps: np.ndarray) -> np.ndarray:
        """Which of `fps` are in the set (a boolean mask); the set is unchanged."""
        out = np.zeros(len(fps), np.bool_)
        _contains_all(self.shards, np.require(fps, np.int64, ["C"]), out)
        return out

    def admit(self, fps: np.ndarray) -> np.ndarray:
        """Insert `fps` in their order, growing tables as needed; a boolean mask of those that
        were new (of a fingerprint given twice, the first)."""
        fps = np.require(fps, np.int64, ["C"])
        new = np.zeros(len(fps), np.bool_)
        position = 0
        while position < len(fps):
            self.grow_full()
            position = _admit_until_full(self.shards, fps, position, new)
        return new

    def add(self, fp: int) -> bool:
        """Insert one fingerprint from Python (initial states); True when it is new."""
        if any_full(self.shards):
            self.grow_full()
        return bool(add(self.shards, np.int64(fp)))
