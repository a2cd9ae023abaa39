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
        memory holds no more than `CHUNK` fingerprints of each; the two files are removed."""
        path = self._path()
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.int64, shape=(len(a) + len(b),))
        i = j = k = 0
        while i < len(a) or j < len(b):
            # up to the smaller of the two runs' next CHUNK-th fingerprints: at most CHUNK of each
            bound = min(x[min(at + CHUNK, len(x)) - 1] for x, at in ((a, i), (b, j)) if at < len(x))
            i2, j2 = int(np.searchsorted(a, bound, "right")), int(np.searchsorted(b, bound, "right"))
            chunk = np.sort(np.concatenate([a[i:i2], b[j:j2]]))
            out[k:k + len(chunk)] = chunk
            i, j, k = i2, j2, k + len(chunk)
        out.flush()
        del out
        for old in (a, b):
            os.unlink(old.filename)
        return np.load(path, mmap_mode="r")
