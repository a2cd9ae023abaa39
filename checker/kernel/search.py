"""The local engine on a compiled kernel: breadth-first search over packed states.

The visited set holds 64-bit fingerprints only (`visited_set`); each discovered state keeps
its parent's discovery index (4 bytes) and the action code that reached it (2 bytes), and the
frontier is kept as packed rows. Each level is expanded in ascending fingerprint order, so a
new state's recorded route is the smallest (parent fingerprint, action), and the reported
violation of an invariant is the violating state with the smallest fingerprint at the first
level where it fails: the same rules as the Spark engine, hence the same traces.

The frontier is a store (`sorted_runs.SortedRuns`) of rows, fingerprints and discovery
indices: in memory, or with a memory budget, in memory up to a quarter of it and in sorted runs
in a scratch directory beyond, read back a slice of the fingerprint range at a time, so that
memory holds the visited set and the routes (6 bytes a state) plus a bounded window.

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
from ..interrupts import raise_if_swallowed
from ..invariant import StepProperty
from ..coverage import Coverage, empty_counts, new_counts, restored_coverage
from ..result import CheckResult, LevelStats, found_so_far
from ..stopping import stop_reason
from .expansion import BIG, CHUNK, expand_all, local_threads, visited_room
from .fingerprint import fingerprint
from .guards import GUARD_SAMPLE, empty_tally
from .steps import actor_of, kind_of
from .sorted_runs import KEY, WINDOW_SHARE, SortedRuns
from .symmetry import permutations
from .traces import Reducer, journal_paths, path_by_codes, trace_to
from .visited_set import VisitedSet

NO_PARENT = np.uint32(0xFFFFFFFF)
ROWS, INDEX = "rows", "index"
"""A frontier's columns besides its fingerprints (`KEY`): packed rows, discovery indices."""


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
                   saver=None, memory_budget: int | None = None, work_dir: str | None = None) -> CheckResult:
    """Explore every state reachable from the model's initial states on its compiled kernel
    (see the module docstring), one state per orbit under replica renaming with `symmetry`.
    Same meaning of the options and the same result as `checker.local.explore`; with a
    checkpoint `saver` the search is journalled, and continues from its checkpoint if it has one.
    With `memory_budget` (bytes) each frontier keeps at most a quarter of it in memory and the
    rest in `work_dir` (default: the system's temporary directory)."""
    from ..gc_pause import gc_paused

    window = None if memory_budget is None else max(1, memory_budget // WINDOW_SHARE)
    search = KernelSearch(model, properties, symmetry, saver, window, work_dir)
    try:
        with gc_paused():
            return search.run(stop_at_first, max_depth, on_level)
    finally:
        search.close()


class KernelSearch:
    """One search: the visited set, the discovered states' routes, the frontier, the counters."""

    def __init__(self, model, properties, symmetry: bool, saver, window: int | None = None, scratch: str | None = None):
        self.started = time.perf_counter()
        self.window, self.scratch = window, scratch
        self.threads = local_threads()
        self.frontier = self.store()
        self.retired: SortedRuns | None = None  # the frontier just expanded, kept until the next checkpoint is ready
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
        self.visited = VisitedSet(1 << 16, visited_room(kernel))
        self.discovered = Discovered()
        self.found: dict[str, int] = {}      # invariant -> discovery index of its reported state
        self.found_fps: dict[str, int] = {}  # ... and that state's fingerprint
        self.broken: dict[str, int] = {}     # step property -> discovery index of the state it breaks from
        self.broken_fps: dict[str, int] = {}
        self.coverage = Coverage(kernel.action_kinds, kernel.acting_replicas(), kernel.guards, kernel.count_guards,
                                 GUARD_SAMPLE)
        self.depth, self.base, self.growth, self.offset = 0, 0, 3.0, 0.0
        self.exhausted = False

    def store(self) -> SortedRuns:
        """An empty frontier: rows (`ROWS`) keyed by fingerprint, with their discovery indices
        (`INDEX`), in memory up to the window and in sorted runs under the scratch directory
        beyond it."""
        return SortedRuns(self.window, self.scratch)

    def close(self) -> None:
        """Remove the frontiers' files."""
        for store in (self.frontier, self.retired):
            if store is not None:
                store.close()

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
            on_level(self.result.levels[-1], len(self.frontier))
        last = self.checkpoint()
        try:
            while not (stopped := stop_reason(exhausted=self.exhausted, found={**self.found, **self.broken},
                                              properties=self.properties, stop_at_first=stop_at_first,
                                              depth=self.depth, max_depth=max_depth)):
                raise_if_swallowed()
                self.expand_level()
                if self.exhausted:
                    continue
                last = self.checkpoint()
                self.retire()
                if saver is not None and saver.due():
                    last[1]()
                    saver.commit(last[0])
                if on_level:
                    on_level(self.result.levels[-1], len(self.frontier))
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
        rows = np.array(rows, np.int8).reshape(len(rows), kernel.width)
        fps = np.array(fps, np.int64)
        indices = np.arange(len(fps), dtype=np.int64)
        self.frontier.add({KEY: fps, ROWS: rows, INDEX: indices})
        self.discovered.add_level(0, np.full(len(rows), NO_PARENT), np.zeros(len(rows), np.uint16))
        if self.saver is not None:
            self.saver.journal(0, 0, fps, fps, np.zeros(len(rows), np.uint16))
        finds = {}
        self._note_violations(finds, self._violation_masks(rows), fps, indices)
        self._found(finds)
        self.coverage.add_initial(len(rows))
        self.exhausted = len(rows) == 0
        self.result.levels.append(LevelStats(0, len(rows), 0, len(self.visited), self.elapsed(), 0.0,
                                             **self.found_so_far()))

    def expand_level(self) -> None:
        """Expand the frontier into the next level, `CHUNK` states at a time in ascending
        fingerprint order (so only a chunk of it is copied out of the store at once), journalling
        the new states."""
        kernel, result = self.kernel, self.result
        front, self.frontier = self.frontier, self.store()
        self.retired = front  # closed once the next checkpoint is ready, or when the search ends
        expanding, base = len(front), self.base + len(front)  # the new level's first discovery index
        fired, enabled = empty_counts(len(kernel.action_kinds))
        tally = empty_tally(kernel.guards, guards=bool(kernel.count_guards))
        generated, found, finds = 0, 0, {}
        journal = self.saver is not None  # the level's fingerprints and parents' are for the journal alone
        fps, parents, parent_fps, codes = [], [], [], []
        for part in front.in_key_order(CHUNK, consume=self.saver is None):
            level = expand_all(kernel, part[ROWS], part[KEY], self.inv_mask, self.step_mask, self.perms,
                               self.visited, int(self.growth * len(part[KEY])), self.threads)
            generated, fired, enabled = generated + level.generated, fired + level.fired, enabled + level.enabled
            tally += level.tally
            for prop in self.step_properties:  # chunks ascend: the first that breaks it has its smallest parent
                b = kernel.step_property_names.index(prop.name)
                if prop.name not in self.broken and level.step_parent[b] >= 0:
                    self.broken[prop.name] = int(part[INDEX][level.step_parent[b]])
                    self.broken_fps[prop.name] = int(part[KEY][level.step_parent[b]])
            indices = base + found + np.arange(len(level.fps), dtype=np.int64)
            found += len(level.fps)
            self.frontier.add({KEY: level.fps, ROWS: level.rows, INDEX: indices})
            self._note_violations(finds, level.viol, level.fps, indices)
            parents.append(part[INDEX][level.parent].astype(np.uint32))
            codes.append(level.code)
            if journal:
                fps.append(level.fps)
                parent_fps.append(part[KEY][level.parent])
        self.coverage.add_steps(self.depth + 1, expanding, fired, enabled, tally)
        result.generated_states += generated
        n_out = len(self.frontier)
        if n_out == 0:
            self.exhausted = True
            return
        parents, codes = np.concatenate(parents), np.concatenate(codes)
        if journal:
            self.saver.journal(self.depth + 1, 0, np.concatenate(fps), np.concatenate(parent_fps), codes)
        self.depth += 1
        self.growth = n_out / expanding
        self.discovered.add_level(base, parents, codes)
        self.coverage.add_new(new_counts(kind_of(codes), actor_of(codes), len(kernel.action_kinds)))
        self.base = base
        self._found(finds)
        result.levels.append(LevelStats(self.depth, n_out, generated, len(self.visited), self.elapsed(), 0.0,
                                        **self.found_so_far()))

    def retire(self) -> None:
        """Remove the frontier last expanded: the checkpoint that a Ctrl-C would save no longer needs it."""
        if self.retired is not None:
            self.retired.close()
            self.retired = None

    def found_so_far(self) -> dict[str, tuple[str, ...]]:
        """The invariants violated and the witnesses reached so far, by name (LevelStats' fields)."""
        return found_so_far({*self.found, *self.broken}, self.result.witnesses)

    def _violation_masks(self, rows: np.ndarray) -> np.ndarray:
        masks = np.zeros(len(rows), np.int64)
        self.kernel.search.violated_rows(rows, self.kernel.layout, self.inv_mask, masks)
        return masks

    def _note_violations(self, finds: dict, masks: np.ndarray, fps: np.ndarray, indices: np.ndarray) -> None:
        """Keep in `finds` (invariant -> (fingerprint, discovery index)), for each invariant not
        yet violated, the smallest-fingerprint violating state of these new states (`masks`: their
        violated-invariant bits) or of those noted before."""
        for inv in self.invariants:
            if inv.name in self.found:
                continue
            hit = np.flatnonzero((masks >> self.kernel.invariant_names.index(inv.name)) & 1)
            if len(hit):
                at = hit[np.argmin(fps[hit])]
                finds[inv.name] = min(finds.get(inv.name, (BIG, 0)), (int(fps[at]), int(indices[at])))

    def _found(self, finds: dict) -> None:
        """The level's first violations (`_note_violations`) become found."""
        for name, (fp, index) in finds.items():
            self.found[name], self.found_fps[name] = index, fp

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
        return self.snapshot(frontier=True), partial(self._save_frontier, self.depth, self.frontier)

    def _save_frontier(self, depth: int, frontier: SortedRuns) -> None:
        """Save the `frontier` (of level `depth`) in the checkpoint, gathered whole in memory."""
        parts = list(frontier.in_key_order())
        fps = np.concatenate([p[KEY] for p in parts]) if parts else np.zeros(0, np.int64)
        rows = np.concatenate([p[ROWS] for p in parts]) if parts else np.zeros((0, self.kernel.width), np.int8)
        self.saver.frontier(depth, 0, fps, rows)

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
        if saved.frontier:
            fps, rows = self.saver.read_frontier(kernel.width, previous)
            self.frontier.add({KEY: previous.fps, ROWS: rows[_positions(fps, previous.fps)],
                               INDEX: self.base + np.arange(len(previous.fps), dtype=np.int64)})
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
