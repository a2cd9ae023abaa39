"""What an engine talks to while it searches with checkpoints on: it journals each level's
states as they are found, saves the frontier when a checkpoint is due, and commits manifests."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Callable

import numpy as np

from ..interrupts import interruptions_deferred
from . import files
from .identity import CheckpointError, RunIdentity, difference
from .snapshot import Snapshot, read_snapshot, write_snapshot


class Saver:
    """Checkpoints of one run in `directory`, every `every` seconds of search at the first level
    boundary after that, at the end of the run and when it is interrupted.

    Opening checks what the directory holds: a checkpoint of the same run is `resumed` (files
    written after it by a run that was killed are removed); one of another run is refused,
    naming the difference."""

    def __init__(self, directory, identity: RunIdentity, every: float, *, stop_at_first: bool,
                 max_depth: int | None):
        self.path = Path(directory).absolute()  # Spark's executors need not share the driver's working directory
        self.identity, self.every = identity, every
        self.stop_at_first, self.max_depth = stop_at_first, max_depth
        if os.path.lexists(self.path) and not self.path.is_dir():
            raise CheckpointError("it is not a directory")
        self.created = not self.path.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CheckpointError(f"cannot create it: {exc.strerror}") from None
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise CheckpointError("it is not writable")
        resumed = read_snapshot(self.path)
        if resumed is not None and (other := difference(resumed.identity, identity)):
            raise CheckpointError(f"it holds a checkpoint of another run ({other}): continue that one with "
                                  f"`replcheck resume {self.path}`, or choose another directory")
        self.rewind()

    def rewind(self) -> None:
        """Make the directory's checkpoint (if any) the one to continue from, `resumed`, and
        remove the files written after it (by a run that was killed, or an attempt that
        failed)."""
        self.resumed = read_snapshot(self.path)
        if self.resumed is not None:
            files.remove_levels_after(self.path, self.resumed.depth)
            files.remove_frontiers_except(self.path, self.resumed.depth if self.resumed.frontier else None)
        else:
            files.remove_levels_after(self.path, -1)
            files.remove_frontiers_except(self.path, None)
        self.committed = self.resumed.depth if self.resumed is not None else None
        self.level_digests = self.resumed.level_digests if self.resumed is not None else []
        self.last_commit = time.monotonic()

    def abandon(self) -> None:
        """After a failure (a full disk): remove the directory where this run created it and
        committed no checkpoint to it, so that nothing half-written is left; a checkpoint
        committed before stays as it is."""
        if self.created and self.committed is None:
            shutil.rmtree(self.path, ignore_errors=True)

    @property
    def directory(self) -> str:
        """The directory as a string, for Spark's tasks to write their parts into."""
        return str(self.path)

    def due(self) -> bool:
        """Whether the level about to be searched should end with a checkpoint."""
        return time.monotonic() - self.last_commit >= self.every

    def journal(self, depth: int, part: int, fps, parents, codes) -> None:
        """Save one shard's states found at `depth` (see `files.write_level_part`)."""
        files.write_level_part(self.path, depth, part, fps, parents, codes)

    def frontier(self, depth: int, part: int, fps, states) -> None:
        """Save one shard's frontier at `depth` (see `files.write_frontier_part`)."""
        files.write_frontier_part(self.path, depth, part, fps, states)

    def snapshot(self, **fields) -> Snapshot:
        """A manifest of this run: `fields` are the search's own (depth, counters, ...)."""
        return Snapshot(identity=self.identity, stop_at_first=self.stop_at_first, max_depth=self.max_depth, **fields)

    def commit(self, snapshot: Snapshot) -> None:
        """Make `snapshot` the checkpoint (its journal, and its frontier if it has one, are
        saved), with the SHA-256 of its part files, then drop frontiers it no longer needs.
        Ctrl-C waits until this is done."""
        with interruptions_deferred():
            snapshot = self.digested(snapshot)
            write_snapshot(self.path, snapshot)
            files.remove_frontiers_except(self.path, snapshot.depth if snapshot.frontier else None)
            files.remove_levels_after(self.path, snapshot.depth)
        self.committed, self.last_commit = snapshot.depth, time.monotonic()
        self.level_digests = snapshot.level_digests

    def digested(self, snapshot: Snapshot) -> Snapshot:
        """`snapshot` with the SHA-256 of its part files: those of the levels committed before
        as recorded then, the others (and the frontier's) read from the directory."""
        kept = self.level_digests
        levels = kept + [files.part_digests(self.path, "levels", d) for d in range(len(kept), snapshot.depth + 1)]
        frontier = files.part_digests(self.path, "frontier", snapshot.depth) if snapshot.frontier else {}
        return snapshot.with_digests(levels, frontier)

    def commit_interrupted(self, snapshot: Snapshot | None, save_frontier: Callable[[], None]) -> None:
        """On Ctrl-C or SIGTERM: save the last complete level's frontier (`save_frontier`) and
        commit `snapshot`, holding further signals back meanwhile. A failure leaves the previous
        checkpoint in place."""
        if snapshot is None or snapshot.depth == self.committed:
            return
        with interruptions_deferred():
            try:
                if snapshot.frontier:
                    save_frontier()
                self.commit(snapshot)
            except Exception:  # the previous checkpoint still stands; the interruption is what gets reported
                files.remove_frontier(self.path, snapshot.depth)

    def read_levels(self) -> list[files.LevelStates]:
        """The journal of the resumed checkpoint, level by level; CheckpointError unless its part
        files are those the manifest records, each level's parents are states of the level
        before, the counts are the manifest's, and the states it names are in the journal."""
        saved = self.resumed
        levels = [files.read_level(self.path, d, n, saved.level_digests[d]) for d, n in enumerate(saved.parts)]
        for depth, (level, stats) in enumerate(zip(levels, saved.levels)):
            if len(level.fps) != stats.new_states:
                raise CheckpointError(f"level {depth} of its journal holds {len(level.fps):,} states, its manifest "
                                      f"says {stats.new_states:,}")
            parents = levels[depth - 1].fps if depth else level.fps
            if not np.isin(level.parents, parents).all():
                raise CheckpointError("its journal names a parent it does not hold")
        named = np.array([*saved.found.values(), *saved.broken.values()], np.int64)
        if not np.isin(named, np.concatenate([level.fps for level in levels])).all():
            raise CheckpointError("its manifest names a state its journal does not hold")
        return levels

    def read_frontier(self, width: int | None, last: files.LevelStates):
        """(fingerprints, states) of the resumed checkpoint's frontier; CheckpointError unless
        they are the states of its `last` level."""
        fps, states = files.read_frontier(self.path, self.resumed.depth, width, self.resumed.frontier_digests)
        if not np.array_equal(np.sort(fps), np.sort(last.fps)):
            raise CheckpointError(f"its frontier is not the states of its level {self.resumed.depth}")
        return fps, states
