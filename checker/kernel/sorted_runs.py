"""Columns of records kept in memory up to a window and in sorted runs on disk beyond it, read
back in key order a bounded slice at a time: a frontier that streams through the spill
directory.

Records are added in blocks (a dict of equal-length arrays, one of them the int64 `key`: a
state's fingerprint, or a candidate's parent fingerprint). While the records in memory take no
more than `window` bytes they stay there; past it they are sorted by key (stably, so records
of one key keep the order they came in) and written to a run, one `.npy` file per column, and
memory starts empty again. `in_key_order` reads everything back in ascending key order: it cuts
the key range into slices that each hold about `window` bytes (keys are fingerprints, spread
evenly over the 64-bit range), and for each slice reads that slice of every run (a binary search
in the run's keys, then a contiguous read) and of memory, and sorts it. So memory holds one
window of records being added, one slice being read, and the runs' keys (8 bytes a record).
A large slice that fits in the window twice (any, without a window) is read by key buckets
(`Blocks.bucketed`), which reads memory in order at the cost of a transient copy of the slice.

Without a window everything stays in memory, and once memory runs short, what passes
`PACKED_FROM` bytes is packed (`PackedRun`): dealt into buckets of the keys' top bits and
compressed, every column but the key, which takes a packed state's row to about a fifth of its
size. A store that holds packed records packs the rest too when it is read, and is read a
bucket at a time (the buckets are dealt already, so each is only sorted), or a finer slice of
`PACKED_SLICE` bytes where a bucket would be larger.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import lz4.block
import numpy as np

from ..memory import memory_is_short

KEY = "key"
"""The column the records are ordered by."""
BUCKETED_FROM = 4
"""`in_key_order` reads a slice of more than this many chunks by key buckets (`Blocks.bucketed`:
faster, for a transient copy of the slice) where the slice and its copy fit in the window (a
memory budget's share; always, without one); otherwise it gathers each chunk from the blocks as
they lie, taking no more memory than the chunk."""
BUCKETS_PER_CHUNK = 4
"""`Blocks.bucketed` deals records into about this many buckets per chunk."""
WINDOW_SHARE = 4
"""Under a memory budget, a store (the frontier being written, the one being read, a level's
candidates) keeps at most this fraction of the budget in memory: a Spark task's visited-set
table takes the budget, and its three stores together three quarters more."""
PACKED_FROM = 1 << 30
"""Without a window, once the records in memory pass this many bytes while the machine has less
than half its memory available (`checker.memory.memory_is_short`), they are packed
(`PackedRun`), and memory starts empty again. A packed state's row (int8 slots, mostly small or
equal from state to state) compresses to about a fifth; packing and reading back slow a search
(a third at four replicas of `fetch`, docs/performance.md), which only one short of memory pays."""
PACKED_SLICE = 1 << 28
"""The most bytes (as records, unpacked) of one slice read back from packed runs, where a bucket
would hold more: what a read holds unpacked at once."""
PACKED_BITS = 8
"""Records are packed in 2**PACKED_BITS buckets of their keys' top bits, and a store that holds
packed records is read a bucket at a time (or a power-of-two part of one)."""
PIECE = 1 << 14
"""Records of one bucket a packed run compresses together."""
LOWEST, HIGHEST = np.iinfo(np.int64).min, np.iinfo(np.int64).max


class SortedRuns:
    """Records (columns of equal length, one of them `KEY`) in memory up to `window` bytes and
    in sorted runs under `directory` beyond it (see the module docstring); with no window, all
    in memory."""

    def __init__(self, window: int | None, directory: str | None):
        self.window, self.parent = window, directory
        self.directory: Path | None = None
        self.memory: list[dict[str, np.ndarray]] = []
        self.memory_bytes = 0
        self.runs: list[DiskRun | PackedRun] = []
        self.count, self.record_bytes = 0, 0

    def __len__(self) -> int:
        return self.count

    @property
    def spilled(self) -> bool:
        """Whether some records are on disk."""
        return any(isinstance(run, DiskRun) for run in self.runs)

    @property
    def packed(self) -> bool:
        """Whether some records are packed in memory."""
        return any(isinstance(run, PackedRun) for run in self.runs)

    def add(self, block: dict[str, np.ndarray]) -> None:
        """Add the records of `block`; spill memory to a run when it passes the window."""
        if not len(block[KEY]):
            return
        self.memory.append(block)
        self.record_bytes = sum(column.nbytes for column in block.values()) // len(block[KEY])
        self.memory_bytes += self.record_bytes * len(block[KEY])
        self.count += len(block[KEY])
        if self.window is not None and self.memory_bytes > self.window:
            self._spill()
        elif self.window is None and self.memory_bytes > PACKED_FROM and memory_is_short():
            self._pack()

    def _spill(self) -> None:
        columns = _joined(self.memory)
        self.memory, self.memory_bytes = [], 0
        order = np.argsort(columns[KEY], kind="stable")
        if self.directory is None:
            self.directory = Path(tempfile.mkdtemp(prefix="replcheck-frontier-", dir=self.parent))
        self.runs.append(DiskRun(self.directory / f"run-{len(self.runs):06d}", columns, order))

    def _pack(self) -> None:
        records = Blocks(self.memory)
        self.memory, self.memory_bytes = [], 0
        self.runs.append(PackedRun(records))

    def slices(self) -> int:
        """How many key slices `in_key_order` reads: enough that each holds about a window
        (without one: one slice; once some records are packed, a bucket each, or a part of one
        where a bucket would pass `PACKED_SLICE` bytes)."""
        if self.window is None:
            if not self.packed:
                return 1
            wanted = -(-self.record_bytes * self.count // PACKED_SLICE)
            return 1 << max(PACKED_BITS, int(wanted - 1).bit_length())  # a bucket each, or part of one
        return max(1, -(-self.record_bytes * self.count // max(self.window, 1)))

    def in_key_order(self, chunk: int | None = None, consume: bool = False) -> Iterator[dict[str, np.ndarray]]:
        """Every record, in ascending key order (stable within a key), as blocks of at most
        `chunk` records (default: one block per slice of the key range); each block's columns
        are new arrays. With `consume` the store lets go of its records in memory as it starts
        (so they are freed as the reading goes), and is to be closed after."""
        for records in self._slices(consume):
            if chunk is None or len(records) <= BUCKETED_FROM * chunk or not self._room_to_copy(len(records)):
                order = np.argsort(records.column(KEY), kind="stable")
                step = chunk or len(order)
                for at in range(0, len(order), step):
                    yield records.take(order[at:at + step])
            else:
                yield from records.bucketed(chunk)

    def _room_to_copy(self, records: int) -> bool:
        """Whether a slice of this many records and a copy of it fit in the window (always,
        without one): the transient copy `Blocks.bucketed` makes."""
        return self.window is None or 2 * records * self.record_bytes <= self.window

    def sorted_slices(self, consume: bool = False) -> Iterator[tuple["Blocks", np.ndarray]]:
        """Every record, a slice of the key range at a time, as (records, order): the slice's
        records (`Blocks`, not joined), and the positions that put them in ascending key order
        (stable within a key). For a reader that needs some columns in key order and the rest of
        only some records: gathering every row in key order would read memory out of order.
        `consume` as for `in_key_order`."""
        for records in self._slices(consume):
            yield records, np.argsort(records.column(KEY), kind="stable")

    def _slices(self, consume: bool) -> Iterator["Blocks"]:
        """Every record, a slice of the key range at a time (`Blocks`, not joined, in the order
        they were added: the runs first, each in key order (a packed one bucket by bucket, each
        in the order they came), then memory)."""
        if self.packed and self.memory:  # what came after the last packing: packed too, to be read by bucket
            self._pack()
        memory = self.memory
        if consume:
            self.memory, self.memory_bytes = [], 0
        bounds = _bounds(self.slices())
        for lo, hi in zip(bounds, bounds[1:]):
            parts = []
            for run in self.runs:
                part = run.read(lo, hi, consume)
                if part is not None:
                    parts.append(part)
            for block in memory:
                inside = _inside(block[KEY], lo, hi) if len(bounds) > 2 else slice(None)
                parts.append({name: column[inside] for name, column in block.items()})
            records = Blocks(parts)
            del parts
            if len(records):
                yield records
            del records

    def close(self) -> None:
        """Forget every record and remove the runs' files."""
        self.memory, self.memory_bytes, self.runs, self.count = [], 0, [], 0
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None


class DiskRun:
    """A sorted run on disk: one `.npy` file per column under its own directory, its keys also
    in memory (to find a slice)."""

    def __init__(self, directory: Path, columns: dict[str, np.ndarray], order: np.ndarray):
        """Write `columns` in the order `order` (which sorts their keys) under `directory`."""
        self.directory = directory
        directory.mkdir()
        for name, column in columns.items():
            np.save(directory / f"{name}.npy", column[order])
        self.keys = np.ascontiguousarray(columns[KEY][order])

    def read(self, lo: int, hi: int, consume: bool = False) -> dict[str, np.ndarray] | None:
        """Its records with lo <= key < hi, in key order, as new arrays (None if none; the files
        stay until the store closes)."""
        a, b = _between(self.keys, lo, hi)
        if b == a:
            return None
        return {path.stem: np.array(np.load(path, mmap_mode="r")[a:b]) for path in self.directory.iterdir()}


class PackedRun:
    """Records packed in memory: dealt into the 2**`PACKED_BITS` buckets of their keys' top
    bits, each bucket's records in the order they came, and every column but the key
    compressed (LZ4) up to `PIECE` records of one bucket at a time."""

    def __init__(self, records: "Blocks"):
        """Pack `records` (letting go of each block once dealt)."""
        dealt, edges = records.dealt(PACKED_BITS)
        self.kinds = {name: (column.dtype, column.shape[1:]) for name, column in dealt.items() if name != KEY}
        self.keys = dealt.pop(KEY)
        self.edges = edges
        self.pieces: list[list[dict[str, bytes]]] = []  # per bucket, its pieces in order
        for lo, hi in zip(edges[:-1], edges[1:]):
            self.pieces.append([{name: lz4.block.compress(column[at:min(at + PIECE, hi)], store_size=True)
                                 for name, column in dealt.items()} for at in range(lo, hi, PIECE)])

    def read(self, lo: int, hi: int, consume: bool = False) -> dict[str, np.ndarray] | None:
        """Its records with lo <= key < hi, in the order they came, unpacked into new arrays (None
        if none); with `consume` the buckets wholly inside the range are let go (a store reads
        up the keys)."""
        first = int(_bucket_of(np.array([lo], np.int64), PACKED_BITS)[0])
        last = int(_bucket_of(np.array([min(hi - 1, HIGHEST)], np.int64), PACKED_BITS)[0]) + 1
        a, b = int(self.edges[first]), int(self.edges[last])
        if b == a:
            return None
        columns = {KEY: self.keys[a:b].copy()}
        for name, (dtype, shape) in self.kinds.items():
            columns[name] = np.concatenate([np.frombuffer(lz4.block.decompress(piece[name]), dtype)
                                            for bucket in range(first, last)
                                            for piece in self.pieces[bucket]]).reshape(-1, *shape)
        if consume:
            for bucket in range(first, last):
                if _bucket_floor(bucket) >= lo and _bucket_floor(bucket + 1) <= hi:
                    self.pieces[bucket] = []
        inside = _inside(columns[KEY], lo, hi)
        return columns if inside.all() else {name: column[inside] for name, column in columns.items()}


class Blocks:
    """Records in several blocks (dicts of equal-length columns), numbered across the blocks in
    order, read without joining the blocks first."""

    def __init__(self, blocks: list[dict[str, np.ndarray]]):
        self.blocks = [block for block in blocks if len(block[KEY])]
        self.starts = np.cumsum([0] + [len(block[KEY]) for block in self.blocks])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def column(self, name: str) -> np.ndarray:
        """One column of every record, in order (a new array where there are several blocks)."""
        if len(self.blocks) == 1:
            return self.blocks[0][name]
        return np.concatenate([block[name] for block in self.blocks])

    def take(self, at: np.ndarray) -> dict[str, np.ndarray]:
        """The records at positions `at`, in that order, as new arrays: each block's share is
        gathered from it alone."""
        if len(self.blocks) == 1:
            return {name: column[at] for name, column in self.blocks[0].items()}
        which = np.searchsorted(self.starts, at, "right") - 1
        by_block = np.argsort(which, kind="stable")
        edges = np.searchsorted(which[by_block], np.arange(len(self.blocks) + 1))
        out = {name: np.empty((len(at), *column.shape[1:]), column.dtype) for name, column in self.blocks[0].items()}
        for b, block in enumerate(self.blocks):
            mine = by_block[edges[b]:edges[b + 1]]
            if len(mine):
                local = at[mine] - self.starts[b]
                for name, column in block.items():
                    out[name][mine] = column[local]
        return out

    def dealt(self, bits: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """(columns, edges): every record dealt into buckets by the top `bits` bits of its key,
        bucket i's records at edges[i]:edges[i + 1] in the order they came (each block let go
        once dealt). Dealing writes each bucket's records one after another: a pass over memory
        in order, where gathering them by key would be a cache miss a record."""
        count = len(self)
        buckets = np.concatenate([_bucket_of(block[KEY], bits) for block in self.blocks])
        edges = np.concatenate([[0], np.cumsum(np.bincount(buckets, minlength=1 << bits))])
        place = np.empty(count, np.int64)  # each record's position, bucket by bucket
        place[np.argsort(buckets, kind="stable")] = np.arange(count)  # a radix sort
        del buckets
        dealt = {name: np.empty((count, *column.shape[1:]), column.dtype) for name, column in self.blocks[0].items()}
        for b in range(len(self.blocks)):
            block, self.blocks[b] = self.blocks[b], None
            into = place[self.starts[b]:self.starts[b + 1]]
            for name, column in block.items():
                _records(dealt[name])[into] = _records(column)
            del block
        self.blocks = []
        return dealt, edges

    def bucketed(self, chunk: int) -> Iterator[dict[str, np.ndarray]]:
        """Every record in ascending key order (stable within a key), as new blocks of at most
        `chunk` records, letting go of each block as it is read. Gathering records in key order
        straight from the blocks reads memory at random, a cache miss a record; so the records
        are first dealt, block by block, into buckets of consecutive keys (their top bits: keys
        are fingerprints, spread evenly), which writes each bucket's records one after another,
        and then each group of buckets, small enough to stay in the CPU's caches, is sorted."""
        count = len(self)
        bits = min(16, max(1, int(np.ceil(np.log2(count * BUCKETS_PER_CHUNK / chunk)))))
        dealt, edges = self.dealt(bits)
        sizes = np.diff(edges)
        first = 0
        while first < len(sizes):
            last = first + 1
            while last < len(sizes) and edges[last + 1] - edges[first] <= chunk:
                last += 1
            lo, hi = int(edges[first]), int(edges[last])
            order = lo + np.argsort(dealt[KEY][lo:hi], kind="stable")
            for at in range(0, len(order), chunk):
                yield {name: column[order[at:at + chunk]] for name, column in dealt.items()}
            first = last


def _bucket_of(keys: np.ndarray, bits: int) -> np.ndarray:
    """The top `bits` bits of each key taken as unsigned (so buckets ascend with the keys)."""
    unsigned = keys.view(np.uint64) ^ np.uint64(1 << 63)
    return (unsigned >> np.uint64(64 - bits)).astype(np.uint16)


def _bucket_floor(bucket: int) -> int:
    """The smallest key of packed bucket `bucket` (for the bucket past the last: past HIGHEST)."""
    return LOWEST + (bucket << (64 - PACKED_BITS))


def _records(column: np.ndarray) -> np.ndarray:
    """`column` seen as one item per record (a row of several values as one opaque item), so
    that moving records copies each as a whole."""
    if column.ndim == 1:
        return column
    column = np.ascontiguousarray(column)
    return column.reshape(len(column), -1).view(np.dtype((np.void, column[0].nbytes))).reshape(len(column))


def _joined(blocks: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    if len(blocks) == 1:
        return dict(blocks[0])
    return {name: np.concatenate([block[name] for block in blocks]) for name in blocks[0]}


def _bounds(slices: int) -> list[int]:
    """Keys cutting the 64-bit range into `slices` equal parts: slice i holds the keys k with
    bounds[i] <= k < bounds[i + 1], and the last one the highest key too."""
    span = (1 << 64) // slices
    return [LOWEST + i * span for i in range(slices)] + [HIGHEST + 1]


def _inside(keys: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Which of `keys` (in any order) have lo <= key < hi."""
    mask = keys >= lo
    return mask & (keys < hi) if hi <= HIGHEST else mask


def _between(keys: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """The positions in the sorted `keys` of those with lo <= key < hi."""
    a = int(np.searchsorted(keys, lo, "left")) if lo > LOWEST else 0
    b = int(np.searchsorted(keys, hi, "left")) if hi <= HIGHEST else len(keys)
    return a, b
