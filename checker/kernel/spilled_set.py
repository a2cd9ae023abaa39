"""A visited set bounded by disk, not memory: a compiled hash table up to a memory budget, and
sorted runs of fingerprints on disk beyond it (the way TLC's disk fingerprint set works).

When the table passes its budget its fingerprints are sorted and written to a new run file,
and the table starts empty again. Runs are memory-mapped, so the operating system keeps in
memory what fits and reads the rest from disk. A batch of fingerprints is looked up in the runs
sorted, one binary search per fingerprint and run; when there are more than `MAX_RUNS` runs they
are merged into one, so a lookup never reads more than `MAX_RUNS + 1` of them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from .visited_set import SHARDS, VisitedSet

MAX_RUNS = 4
"""Runs kept before the two newest are merged into one."""
CHUNK = 1 << 22
"""Fingerprints of a run read into memory at a time while merging (32 MiB)."""


def smallest_budget(room: int) -> int:
    """The least memory budget a table can keep to: its empty size (64 tables of their
    smallest size) twice over, so that it holds something before it spills."""
    return 2 * SHARDS * max(1024, 4 * room) * 8


class SpilledSet:
    """Visited fingerprints, in memory up to `budget` bytes of table and in sorted runs under
    `directory` beyond that. The same operations as `VisitedSet`'s bulk ones."""

    def __init__(self, room: int, budget: int, directory: str):
        if budget < smallest_budget(room):
            raise ValueError(f"a memory budget of {budget:,} bytes is below the least a shard's visited set "
                             f"needs, {smallest_budget(room):,} bytes")
        self.room, self.budget = room, budget
        self.directory = Path(tempfile.mkdtemp(prefix="replcheck-visited-", dir=directory))
        self.memory = VisitedSet(1 << 16, room)
        self.runs: list[np.ndarray] = []
        self.files = 0

    def __len__(self) -> int:
        return len(self.memory) + sum(len(run) for run in self.runs)

    def contains_all(self, fps: np.ndarray) -> np.ndarray:
        """Which of `fps` are in the set (a boolean mask); the set is unchanged."""
        return self.memory.contains_all(fps) | self._on_disk(fps)

    def admit(self, fps: np.ndarray) -> np.ndarray:
        """Insert `fps` in their order; a boolean mask of those that were new (of a fingerprint
        given twice, the first). Spills the table to a run when it passes the budget."""
        new = np.zeros(len(fps), bool)
        fresh = np.flatnonzero(~self._on_disk(fps))
        new[fresh] = self.memory.admit(fps[fresh])
        if self.memory.nbytes > self.budget:
            self._spill()
        return new

    def _on_disk(self, fps: np.ndarray) -> np.ndarray:
        found = np.zeros(len(fps), bool)
        if not self.runs or not len(fps):
            return found
        order = np.argsort(fps)
        wanted = fps[order]
        for run in self.runs:
            at = np.minimum(np.searchsorted(run, wanted), len(run) - 1)
            found[order] |= run[at] == wanted
        return found

    def _spill(self) -> None:
        """Write the table's fingerprints to a new sorted run, empty it, and merge the runs
        when there are too many."""
        run = np.sort(self.memory.fingerprints())
        self.memory = VisitedSet(1 << 16, self.room)
        path = self._path()
        np.save(path, run)
        self.runs.append(np.load(path, mmap_mode="r"))
        while len(self.runs) > MAX_RUNS:
            a, b = self.runs.pop(), self.runs.pop()
            self.runs.append(self._merged(a, b))

    def _path(self) -> Path:
        self.files += 1
        return self.directory / f"run-{self.files:06d}.npy"

    def _merged(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """One sorted run of the runs `a` and `b` (disjoint), merged a chunk at a time so that
        memory holds no more than `CHUNK` fingerprints of each; the two files are removed.
        The runs are read, and the merged run written, with plain file reads and writes, not
        through memory maps: a merge passes over every fingerprint of both runs once, and pages
        of a mapping stay resident in this process until it is unmapped."""
        path = self._path()
        with _Reader(a) as ra, _Reader(b) as rb, open(path, "wb") as out:
            np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.int64)),
                                                       "fortran_order": False, "shape": (len(a) + len(b),)})
            while ra.left or rb.left:
                # up to the smaller of the two runs' next CHUNK-th fingerprints: at most CHUNK of each
                bound = min(reader.last_of_next(CHUNK) for reader in (ra, rb) if reader.left)
                np.sort(np.concatenate([ra.upto(bound), rb.upto(bound)])).tofile(out)
        for old in (a, b):
            os.unlink(old.filename)
        return np.load(path, mmap_mode="r")


class _Reader:
    """A sorted run's fingerprints read forward from its file, a chunk at a time."""

    def __init__(self, run: np.memmap):
        self.run, self.at, self.left = run, 0, len(run)
        self.file = open(run.filename, "rb")

    def __enter__(self) -> "_Reader":
        return self

    def __exit__(self, *exc) -> None:
        self.file.close()

    def _read(self, start: int, count: int) -> np.ndarray:
        self.file.seek(self.run.offset + 8 * start)
        return np.fromfile(self.file, np.int64, count)

    def last_of_next(self, count: int) -> int:
        """The last of the next `count` fingerprints (or of those left)."""
        return int(self._read(self.at + min(count, self.left) - 1, 1)[0])

    def upto(self, bound: int) -> np.ndarray:
        """The next fingerprints up to `bound` (included), which become read."""
        chunk = self._read(self.at, min(CHUNK, self.left))
        taken = chunk[:int(np.searchsorted(chunk, bound, "right"))]
        self.at, self.left = self.at + len(taken), self.left - len(taken)
        return taken
