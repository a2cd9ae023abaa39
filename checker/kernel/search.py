"""The local engine on a compiled kernel: breadth-first search over packed states.

The visited set holds 64-bit fingerprints only (`visited_set`); each discovered state keeps
its parent's discovery index (4 bytes) and the action code that reached it (2 bytes), and the
frontier is kept as packed rows. Each level is expanded in ascending fingerprint order, so a
new state's recorded route is the smallest (parent fingerprint, action), and the reported
violation of an invariant is the violating state with the smallest fingerprint at the first
level where it fails: the same rules as the Spark engine, hence the same traces.

With a checkpoint `Saver` each level's states are journalled as they are found, and the search
can start from a saved checkpoint instead of the initial states (see `checker.checkpoint`).
"""

from __future__ import annotations

import bisect
import time
from functools import partial
from typing import Callable

import numpy as np

from ..checkpoint.identity import CheckpointError
from ..invariant import StepProperty
from ..coverage import Coverage, new_counts, restored_coverage
from ..result import CheckResult, LevelStats, found_so_far
from ..stopping import stop_reason
from .expansion import expand_all
from .fingerprint import fingerprint
from .guards import GUARD_SAMPLE
from .steps import actor_of, kind_of
from .symmetry import permutations
from .traces import Reducer, journal_paths, path_by_codes, trace_to
from .visited_set import VisitedSet

NO_PARENT = np.uint32(0xFFFFFFFF)


class Discovered:
    """Every state found so far, by discovery index: its parent's index and its action code,
    one array pair per BFS level."""

    def __init__(self):
        self.bases: list[int] = []
        self.parents: list[np.ndarray] = []
        self.codes: list[np.ndarray] = []

    def add_level(self, base: int, parents: np.ndarray, codes: np.ndarray) -> None:
        """Record a level whose states have indices base, base+1, ..."""
        self.bases.append(base)
        self.parents.append(parents.astype(np.uint32, copy=False))
        self.codes.append(codes.astype(np.uint16, copy=False))

    def path(self, index: int) -> tuple[int, list[int]]:
        """(initial state's index, action codes from it) of the recorded route to `index`."""
        codes = []
        while True:
            level = bisect.bisect_right(self.bases, index) - 1
            at = index - self.bases[level]
            parent = self.parents[level][at]
            if parent == NO_PARENT:
                return index, codes[::-1]
            codes.append(int(self.codes[level][at]))
            index = int(parent)


def _masks(names, chosen) -> int:
    return sum(1 << names.index(name) for name in chosen)


def explore_kernel(model, properties, *, stop_at_first: bool = True, max_depth: int | None = None,
                   on_level: Callable[[LevelStats, int], None] | None = None, symmetry: bool = False,
                   saver=None) -> CheckResult:
    """Explore every state reachable from the model's initial states on its compiled kernel
    (see the module docstring), one state per orbit under replica renaming with `symmetry`.
    Same meaning of the options and the same result as `checker.local.explore`; with a
    checkpoint `saver` the search is journalled, and continues from its checkpoint if it has one."""
    from ..local import gc_paused

    with gc_paused():
        return KernelSearch(model, properties, symmetry, saver).run(stop_at_first, max_depth, on_level)


class KernelSearch:
    """One search: the visited set, the discovered states' routes, the frontier, the counters."""

    def __init__(self, model, properties, symmetry: bool, saver):
        self.started = time.perf_counter()
        self.model, self.kernel, self.saver = model, model.kernel, saver
        kernel = self.kernel
        self.properties = list(properties)
        self.result = CheckResult.of(model, properties, "local", symmetry=symmetry)
        self.invariants = [p for p in properties if not isinstance(p, StepProperty)]
        self.step_properties = [p for p in properties if isinstance(p, StepProperty)]
        self.inv_mask = _masks(kernel.invariant_names, [p.name for p in self.invariants])
        self.step_mask = _masks(kernel.step_property_names, [p.name for p in self.step_properties])
        self.perms = permutations(kernel.replicas, symmetry)
        self.reducer = Reducer(kernel, self.perms)
        self.visited = VisitedSet(1 << 16, kernel.max_successors * kernel.search.BATCH)
        self.discovered = Discovered()
        self.found: dict[str, int] = {}      # invariant -> discovery index of its reported state
        self.found_fps: dict[str, int] = {}  # ... and that state's fingerprint
        self.broken: dict[str, int] = {}     # step property -> discovery index of the state it breaks from
        self.broken_fps: dict[str, int] = {}
        self.coverage = Coverage(kernel.action_kinds, kernel.acting_replicas(), kernel.guards, kernel.count_guards,
                                 GUARD_SAMPLE)
        self.depth, self.base, self.growth, self.offset = 0, 0, 3.0, 0.0
        self.exhausted = False

    def elapsed(self) -> float:
        """Seconds of search so far, including those of the runs a checkpoint continues."""
        return self.offset + time.perf_counter() - self.started

    def run(self, stop_at_first: bool, max_depth: int | None, on_level) -> CheckResult:
        """Search level by level until `stop_reason` gives one; the result with its traces."""
        saver = self.saver
        if saver is not None and saver.resumed is not None:
            self.restore()
        else:
            self.start()
        if on_level:
            on_level(self.result.levels[-1], len(self.front))
        last = self.checkpoint()
        try:
            while not (stopped := stop_reason(exhausted=self.exhausted, found={**self.found, **self.broken},
                                              properties=self.properties, stop_at_first=stop_at_first,
                                              depth=self.depth, max_depth=max_depth)):
                self.expand_level()
                if self.exhausted:
                    continue
                last = self.checkpoint()
                if saver is not None and saver.due():
                    last[1]()
                    saver.commit(last[0])
                if on_level:
                    on_level(self.result.levels[-1], len(self.front))
        except KeyboardInterrupt:
            if saver is not None:
                saver.commit_interrupted(*last)
            raise
        if saver is not None:
            final = self.snapshot(frontier=not self.exhausted)
            if final.frontier and final.depth != saver.committed:
                last[1]()
            saver.commit(final)
        return self.finish(stopped)

    def start(self) -> None:
        """Level 0: the initial states (orbit representatives with symmetry)."""
        kernel = self.kernel
        rows, fps = [], []
        for state in self.model.initial_states():
            row = self.reducer.representative(kernel.encode(state))
            fp = fingerprint(row)
            if self.visited.add(fp):
                rows.append(row)
                fps.append(fp)
        self.front = np.array(rows, np.int8).reshape(len(rows), kernel.width)
        self.front_fps = np.array(fps, np.int64)
        self.discovered.add_level(0, np.full(len(rows), NO_PARENT), np.zeros(len(rows), np.uint16))
        if self.saver is not None:
            self.saver.journal(0, 0, self.front_fps, self.front_fps, np.zeros(len(rows), np.uint16))
        self._note_violations(self._violation_masks(self.front))
        self.coverage.add_initial(len(rows))
        self.exhausted = len(rows) == 0
        self.result.levels.append(LevelStats(0, len(rows), 0, len(self.visited), self.elapsed(), 0.0,
                                             **self.found_so_far()))

    def expand_level(self) -> None:
        """Expand the frontier into the next level, journalling its states."""
        kernel, result = self.kernel, self.result
        level = expand_all(kernel, self.front, self.front_fps, self.inv_mask, self.step_mask, self.perms,
                           self.visited, int(self.growth * len(self.front)))
        n_out = len(level.fps)
        self.coverage.add_steps(self.depth + 1, len(self.front), level.fired, level.enabled, level.tally)
        result.generated_states += level.generated
        for prop in self.step_properties:
            b = kernel.step_property_names.index(prop.name)
            if prop.name not in self.broken and level.step_parent[b] >= 0:
                self.broken[prop.name] = self.base + int(level.step_parent[b])
                self.broken_fps[prop.name] = int(self.front_fps[level.step_parent[b]])
        if n_out == 0:
            self.exhausted = True
            return
        if self.saver is not None:
            self.saver.journal(self.depth + 1, 0, level.fps, self.front_fps[level.parent], level.code)
        self.depth += 1
        self.growth = n_out / len(self.front)
        self.discovered.add_level(self.base + len(self.front), level.parent.astype(np.uint32) + np.uint32(self.base),
                                  level.code)
        self.coverage.add_new(new_counts(kind_of(level.code), actor_of(level.code), len(kernel.action_kinds)))
        self.base += len(self.front)
        self.front, self.front_fps = level.rows, level.fps
        self._note_violations(level.viol)
        result.levels.append(LevelStats(self.depth, n_out, level.generated, len(self.visited), self.elapsed(), 0.0,
                                        **self.found_so_far()))

    def found_so_far(self) -> dict[str, tuple[str, ...]]:
        """The invariants violated and the witnesses reached so far, by name (LevelStats' fields)."""
        return found_so_far({*self.found, *self.broken}, self.result.witnesses)

    def _violation_masks(self, rows) -> np.ndarray:
        search, lay = self.kernel.search, self.kernel.layout
        return np.array([search.violations(row, lay, self.inv_mask) for row in rows], np.int64)

    def _note_violations(self, masks: np.ndarray) -> None:
        """For each invariant not yet violated, the frontier's violating state with the smallest
        fingerprint (`masks`: the frontier's violated-invariant bits)."""
        for inv in self.invariants:
            if inv.name in self.found:
                continue
            hit = np.flatnonzero((masks >> self.kernel.invariant_names.index(inv.name)) & 1)
            if len(hit):
                at = hit[np.argmin(self.front_fps[hit])]
                self.found[inv.name], self.found_fps[inv.name] = self.base + int(at), int(self.front_fps[at])

    def snapshot(self, frontier: bool):
        """The checkpoint manifest of the search as it stands (None without a saver)."""
        if self.saver is None:
            return None
        return self.saver.snapshot(
            depth=self.depth, exhausted=self.exhausted, levels=list(self.result.levels),
            generated=self.result.generated_states, coverage=self.coverage.to_doc(),
            found=dict(self.found_fps), broken=dict(self.broken_fps),
            parts=[1] * (self.depth + 1), frontier=frontier, engine="local")

    def checkpoint(self):
        """(manifest, a function saving the frontier) of the search as it stands: what a
        checkpoint at this level boundary commits; (None, None) without a saver."""
        if self.saver is None:
            return None, None
        return self.snapshot(frontier=True), partial(self.saver.frontier, self.depth, 0, self.front_fps, self.front)

    def restore(self) -> None:
        """Continue from the saver's checkpoint: its journal becomes the visited set and the
        routes, its frontier the frontier."""
        saved, kernel = self.saver.resumed, self.kernel
        levels = self.saver.read_levels()
        self.visited = VisitedSet(sum(len(level.fps) for level in levels), self.visited.room)
        previous = None
        for level in levels:
            self.visited.add_all(level.fps)
            if previous is None:
                parents = np.full(len(level.fps), NO_PARENT)
            else:
                parents = self.base + _positions(previous.fps, level.parents)
                self.base += len(previous.fps)
            self.discovered.add_level(self.base, parents, level.codes)
            previous = level
        if len(self.visited) != saved.distinct:
            raise CheckpointError(f"its journal holds {len(self.visited):,} states, its manifest {saved.distinct:,}")
        self.front = np.zeros((0, kernel.width), np.int8)
        self.front_fps = previous.fps
        if saved.frontier:
            fps, rows = self.saver.read_frontier(kernel.width, previous)
            self.front = rows[_positions(fps, previous.fps)]
        self.depth, self.exhausted, self.offset = saved.depth, saved.exhausted, saved.seconds
        self.result.levels = list(saved.levels)
        self.result.generated_states = saved.generated
        self.coverage = restored_coverage(saved.coverage, kernel.guards)
        # counted on every level, in the same sample of states, or not at all
        self.coverage.guards_counted &= kernel.count_guards and self.coverage.guard_sample == GUARD_SAMPLE
        for name, fp in saved.found.items():
            self.found[name], self.found_fps[name] = _index_of(levels, fp), fp
        for name, fp in saved.broken.items():
            self.broken[name], self.broken_fps[name] = _index_of(levels, fp), fp
        if len(saved.levels) > 1 and saved.levels[-2].new_states:
            self.growth = saved.levels[-1].new_states / saved.levels[-2].new_states

    def finish(self, stopped: str) -> CheckResult:
        """The result of a search that stopped for reason `stopped`: counts, verdicts, and the
        shortest trace of each violation and reached witness."""
        kernel, result = self.kernel, self.result
        result.stopped = stopped
        result.distinct_states = len(self.visited)
        result.depth = self.depth
        result.coverage = self.coverage
        result.actions = self.coverage.actions()
        initials = [kernel.encode(s) for s in self.model.initial_states()]

        def fps_to(index: int) -> list[int]:
            root, codes = self.discovered.path(index)
            return path_by_codes(kernel, self.reducer, initials[root], codes)

        with journal_paths(self.saver is not None and self.saver.resumed is not None):
            for prop in self.properties:
                if prop.name in self.found:
                    result.violations[prop.name] = trace_to(self.model, self.reducer, prop.name,
                                                            fps_to(self.found[prop.name]))
                elif prop.name in self.broken:
                    result.violations[prop.name] = trace_to(self.model, self.reducer, prop.name,
                                                            fps_to(self.broken[prop.name]),
                                                            kernel.step_property_names.index(prop.name))
        result.seconds = self.elapsed()
        return result


def _positions(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of `wanted` is in `keys` (distinct fingerprints; every one of `wanted` is
    there, which `Saver` checked when it read the journal)."""
    order = np.argsort(keys, kind="stable")
    return order[np.searchsorted(keys[order], wanted)]


def _index_of(levels, fp: int) -> int:
    """The discovery index of fingerprint `fp` in a journal read level by level."""
    base = 0
    for level in levels:
        hit = np.flatnonzero(level.fps == fp)
        if len(hit):
            return base + int(hit[0])
        base += len(level.fps)
    raise CheckpointError("its manifest names a state its journal does not hold")
