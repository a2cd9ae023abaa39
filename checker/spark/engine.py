"""The Spark engine: the same breadth-first search as `checker.local`, sharded over the tasks
of one Spark barrier stage that live as long as the search.

Each task (`checker.spark.shard`) owns the states whose fingerprint maps to it and keeps their
visited set and frontier in its own memory for the whole search; a level moves only new
candidates, directly from task to task (`checker.spark.peer_exchange`). The driver
(`checker.spark.coordinator`) sends one order per level and receives per task the counts,
the smallest violating fingerprints and its own seconds of work: never states. Routes (parent
fingerprint and action per state) stay with the tasks, on disk, until a trace is rebuilt by
asking their owners, one level at a time. docs/spark-engine.md says why this design.

The same tie rules as the local engine give the same counts, verdicts and traces, whatever
the partition count. A lost task (a killed Python worker, a lost executor) loses the attempt,
not the run: the search starts again from its last checkpoint (`saver`), or from the initial
states without one, and reaches the identical answer.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from collections import defaultdict
from contextlib import contextmanager, suppress
from functools import partial
from typing import Callable, Sequence

import numpy as np

from ..checkpoint.identity import CheckpointError
from ..fingerprint import fingerprint
from ..interrupts import raise_if_swallowed
from ..invariant import Invariant
from .context import interruption_behind
from .java import EngineUnavailable
from .master_url import embedded
from ..kernel.guards import GUARD_SAMPLE
from ..local import representative_of
from ..model import Model
from ..path import trace_ending_with_step, trace_from_fingerprints
from ..coverage import Coverage, restored_coverage
from ..kernel.guards import NO_GUARDS
from ..result import CheckResult, LevelStats, found_so_far
from .shard_ops import shard_ops
from .coordinator import Coordinator, TaskFailed, TaskLost, driver_host, task_slots
from .shard import PHASES, owner, search_task
from ..stopping import stop_reason
from .workers import end_python_workers

ATTEMPTS = 3
"""Attempts at one search before a lost task fails the run."""


def explore_spark(
    sc,
    model: Model,
    invariants: Sequence[Invariant],
    *,
    partitions: int | None = None,
    stop_at_first: bool = True,
    max_depth: int | None = None,
    on_level: Callable[[LevelStats, int], None] | None = None,
    symmetry: bool = False,
    saver=None,
    work_dir: str | None = None,
    memory_budget: int | None = None,
    on_start: Callable[[list[int]], None] | None = None,
) -> CheckResult:
    """Explore like `checker.local.explore`, on the SparkContext `sc`, with the state space in
    `partitions` shards (default: the context's default parallelism) held by as many tasks as
    the cluster runs at once, at most one per shard. A model with a compiled kernel is expanded
    by that kernel, one state per orbit under replica renaming with `symmetry`. With a
    checkpoint `saver` the tasks journal each level in its directory (which they must all
    reach), and the search continues from its checkpoint if it has one. Tasks keep their
    scratch files under `work_dir` (default: Spark's local directories; `_tasks_files` says
    where exactly, and how they are removed); with `memory_budget` (bytes) each task keeps at
    most that much visited set in memory and spills the rest there in sorted runs. `on_start`
    is called with the tasks' Python worker process ids when an attempt starts."""
    if saver is not None and getattr(model, "kernel", None) is None:
        raise CheckpointError(f"checkpoints need a model with a compiled kernel, and {model.name} has none")
    check_budget(model, memory_budget)
    started = time.perf_counter()
    shards = partitions or sc.defaultParallelism
    tasks = min(shards, task_slots(sc))
    with _tasks_files(sc, work_dir, saver) as scratch:
        coordinator = Coordinator(driver_host(sc))
        try:
            for attempt in range(1, ATTEMPTS + 1):
                body = partial(search_task, tasks=tasks, partitions=shards, model=model, properties=list(invariants),
                               symmetry=symmetry, journal=saver.directory if saver is not None else None,
                               work_dir=scratch, memory_budget=memory_budget)
                try:
                    coordinator.start(sc, tasks, body)  # the tasks start while the driver takes level 0
                    search = SparkSearch(model, list(invariants), symmetry, saver, started,
                                         {"master": sc.master, "partitions": shards, "tasks": tasks})
                    coordinator.welcome(search.start)
                    if on_start:
                        on_start(list(coordinator.pids))
                    return search.run(coordinator, stop_at_first, max_depth, on_level)
                except TaskFailed as failed:
                    raise EngineUnavailable(f"a task of the Spark search failed: {failed}") from None
                except TaskLost as lost:
                    coordinator.drop()
                    if coordinator.job is not None:
                        coordinator.job.thread.join()
                    if attempt == ATTEMPTS:
                        raise EngineUnavailable(f"Spark lost a task of the search {ATTEMPTS} times; the last time: "
                                                f"{lost}") from None
                    if saver is not None:
                        saver.rewind()
        finally:
            coordinator.close()


@contextmanager
def _tasks_files(sc, work_dir: str | None, saver):
    """Where the search's tasks make their scratch directories, for the block, and what the
    driver removes of the tasks' files when it ends. A killed task runs no clean-up of its own,
    and a live one may still write, so on an embedded master an interrupted search (Ctrl-C,
    SIGTERM) first ends the tasks' Python workers, then takes the checkpoint back to its last
    manifest (`saver`, if any: the journal written after it, and the temporary files of parts
    being written, go). With a `work_dir` there, the tasks' directories are inside one of this
    search's own, named here at random (the tasks make it) and removed with everything in it
    when the block ends, whatever ends it; another run's scratch in the same `work_dir` is
    never touched. Elsewhere `work_dir` itself: Spark's local directories (None) go with the
    context, and a cluster's tasks, on other machines, remove their own when they end (one
    that Spark kills first leaves its directory there)."""
    here = embedded(sc.master)
    own = os.path.join(work_dir, f"replcheck-search-{secrets.token_hex(8)}") if here and work_dir else None
    try:
        yield own or work_dir
    except BaseException as exc:
        if here and interruption_behind(exc) is not None:
            end_python_workers(sc._gateway)
            if saver is not None:
                with suppress(CheckpointError):  # the next run's opening tries again; the interruption is the news
                    saver.rewind()
        raise
    finally:
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)


def check_budget(model, memory_budget: int | None) -> None:
    """EngineUnavailable, in one line, for a memory budget that no task can keep to."""
    kernel = getattr(model, "kernel", None)
    if memory_budget is None or kernel is None:
        return
    from ..kernel.spilled_set import smallest_budget
    from ..kernel.expansion import visited_room

    least = smallest_budget(visited_room(kernel))
    if memory_budget < least:
        raise EngineUnavailable(f"--memory-budget {memory_budget:,} bytes is below the least a task's visited set "
                                f"needs for this model: {least:,} bytes ({least / 2**20:.1f} MiB)")


class SparkSearch:
    """The driver's record of one attempt at a search: the counters, the verdicts found, the
    per-level figures and the checkpoint manifests; it steers the tasks through a Coordinator."""

    def __init__(self, model, properties, symmetry: bool, saver, started: float, engine_options: dict):
        self.model, self.properties, self.symmetry, self.saver = model, properties, symmetry, saver
        self.started, self.offset = started, 0.0
        self.result = CheckResult.of(model, properties, "spark", engine_options=engine_options, symmetry=symmetry)
        self.ops = shard_ops(model, properties, symmetry)
        kernel = getattr(model, "kernel", None)
        if kernel is not None:
            self.coverage = Coverage(kernel.action_kinds, kernel.acting_replicas(), kernel.guards, kernel.count_guards,
                                     GUARD_SAMPLE)
        else:
            self.coverage = Coverage(tuple(model.action_kinds()))
        self.found: dict[str, tuple[int, int]] = {}   # invariant -> (smallest violating fingerprint, its depth)
        self.broken: dict[str, tuple[tuple, int]] = {}  # step property -> ((parent fp, action), parent's depth)
        resumed = saver.resumed if saver is not None else None
        if resumed is None:
            self.start = "fresh"
            self._level_zero()
        else:
            self.start = self._resume(resumed)

    def _level_zero(self) -> None:
        fps, states = self.ops.initial()
        for name, hit in self.ops.violated(states).items():
            if hit.any():
                self.found[name] = (int(fps[hit].min()), 0)
        if self.saver is not None:
            self.saver.journal(0, 0, fps, fps, np.zeros(len(fps), np.uint16))
        self.distinct, self.frontier, self.depth, self.exhausted = len(fps), len(fps), 0, len(fps) == 0
        self.coverage.add_initial(len(fps))
        self.parts = [1]
        self.result.levels.append(LevelStats(0, len(fps), 0, len(fps), self.elapsed(), 0.0,
                                             **found_so_far(self.found, self.result.witnesses)))

    def _resume(self, resumed):
        """Take the checkpoint's counters (its journal and frontier checked here first); the
        tasks' start order."""
        saver = self.saver
        levels = saver.read_levels()
        if resumed.frontier:
            saver.read_frontier(self.ops.width, levels[-1])

        def depth_of(fp: int) -> int:
            return next(d for d, level in enumerate(levels) if (level.fps == fp).any())

        self.found = {name: (fp, depth_of(fp)) for name, fp in resumed.found.items()}
        self.broken = {name: ((fp, None), depth_of(fp)) for name, fp in resumed.broken.items()}
        kernel = getattr(self.model, "kernel", None)
        self.coverage = restored_coverage(resumed.coverage, kernel.guards if kernel is not None else NO_GUARDS)
        # counted on every level, in the same sample of states, or not at all
        self.coverage.guards_counted &= kernel is None or (kernel.count_guards
                                                           and self.coverage.guard_sample == GUARD_SAMPLE)
        self.distinct, self.depth, self.exhausted = resumed.distinct, resumed.depth, resumed.exhausted
        self.offset = resumed.seconds
        self.frontier = resumed.levels[-1].new_states
        self.result.levels = list(resumed.levels)
        self.result.generated_states = resumed.generated
        self.parts = list(resumed.parts)
        return ("resume", saver.directory, resumed.depth, resumed.frontier, list(resumed.parts))

    def elapsed(self) -> float:
        """Seconds of search so far, including those of the runs a checkpoint continues."""
        return self.offset + time.perf_counter() - self.started

    def snapshot(self, frontier: bool):
        """The checkpoint manifest of the search as it stands."""
        return self.saver.snapshot(
            depth=self.depth, exhausted=self.exhausted, levels=list(self.result.levels),
            generated=self.result.generated_states, coverage=self.coverage.to_doc(),
            found={n: fp for n, (fp, _) in self.found.items()},
            broken={n: step[0] for n, (step, _) in self.broken.items()}, parts=list(self.parts),
            frontier=frontier, engine="spark")

    def run(self, coordinator: Coordinator, stop_at_first: bool, max_depth: int | None, on_level) -> CheckResult:
        """Search level by level until `stop_reason` gives one; the result with its traces."""
        saver = self.saver
        if on_level:
            on_level(self.result.levels[-1], self.frontier)
        while not (stopped := stop_reason(exhausted=self.exhausted, found={**self.found, **self.broken},
                                          properties=self.properties, stop_at_first=stop_at_first,
                                          depth=self.depth, max_depth=max_depth)):
            raise_if_swallowed()
            due = saver is not None and saver.due()
            self._absorb(coordinator.ask(("level", self.depth + 1, due)))
            if self.exhausted:
                continue
            if due:
                saver.commit(self.snapshot(True))
            if on_level:
                on_level(self.result.levels[-1], self.frontier)
        if saver is not None:
            final = self.snapshot(not self.exhausted)
            if final.frontier and self.depth != saver.committed:
                coordinator.ask(("save-frontier", self.depth))
            saver.commit(final)
        result = self._finished(stopped, coordinator)
        coordinator.finish()
        return result

    def _absorb(self, reports) -> None:
        """Add one level's task reports to the search's figures."""
        result = self.result
        generated = sum(r.generated for r in reports)
        result.generated_states += generated
        self.coverage.add_steps(self.depth + 1, sum(r.expanded for r in reports),
                                np.sum([r.fired for r in reports], axis=0, dtype=np.int64),
                                np.sum([r.enabled for r in reports], axis=0, dtype=np.int64),
                                np.sum([r.tally for r in reports], axis=0, dtype=np.int64))
        for phase, seconds in zip(PHASES, np.max([r.phases for r in reports], axis=0).tolist()):
            result.phase_seconds[phase] = result.phase_seconds.get(phase, 0.0) + seconds
        for prop in self.properties:
            hits = [r.broken[prop.name] for r in reports if prop.name in r.broken]
            if hits and prop.name not in self.broken:
                self.broken[prop.name] = (min(hits), self.depth)
        new = sum(r.new for r in reports)
        if new == 0:
            self.exhausted = True
            return
        self.depth += 1
        self.parts.append(len(reports))
        self.frontier = new
        self.distinct = sum(r.visited for r in reports)
        self.coverage.add_new(np.sum([r.new_counts for r in reports], axis=0, dtype=np.int64))
        for prop in self.properties:
            hits = [r.violations[prop.name] for r in reports if prop.name in r.violations]
            if hits and prop.name not in self.found:
                self.found[prop.name] = (min(hits), self.depth)
        result.levels.append(LevelStats(self.depth, new, generated, self.distinct, self.elapsed(),
                                        max(r.seconds for r in reports),
                                        **found_so_far({*self.found, *self.broken}, result.witnesses)))

    def _finished(self, stopped: str, coordinator: Coordinator) -> CheckResult:
        """The result: counts, verdicts, and the shortest trace of each violation and reached
        witness, from routes asked of the tasks that own them."""
        result, model = self.result, self.model
        result.stopped, result.distinct_states, result.depth = stopped, self.distinct, self.depth
        result.coverage, result.actions = self.coverage, self.coverage.actions()
        targets = {**{n: (fp, depth) for n, (fp, depth) in self.found.items()},
                   **{n: (step[0], depth) for n, (step, depth) in self.broken.items()}}
        paths = _paths(coordinator, targets, result.engine_options["partitions"], result.engine_options["tasks"])
        kernel = getattr(model, "kernel", None)
        if kernel is not None:
            from ..kernel.symmetry import permutations
            from ..kernel.traces import Reducer, journal_paths, trace_to

            reducer = Reducer(kernel, permutations(kernel.replicas, self.symmetry))
        representative = representative_of(model, self.symmetry) if kernel is None else None
        key = (lambda state: fingerprint(representative(state))) if representative else fingerprint
        for prop in self.properties:
            if prop.name not in paths:
                continue
            path, breaking = paths[prop.name], prop.name in self.broken and prop.name not in self.found
            if kernel is not None:
                bit = kernel.step_property_names.index(prop.name) if breaking else None
                with journal_paths(self.start != "fresh"):
                    result.violations[prop.name] = trace_to(model, reducer, prop.name, path, bit)
            elif breaking:
                result.violations[prop.name] = trace_ending_with_step(model, prop, path, key)
            else:
                result.violations[prop.name] = trace_from_fingerprints(model, prop.name, path, key)
        result.seconds = self.elapsed()
        return result


def _paths(coordinator: Coordinator, targets: dict[str, tuple[int, int]], partitions: int,
           tasks: int) -> dict[str, list[int]]:
    """For each named (fingerprint, depth), the fingerprints from an initial state to it: the
    routes are walked back one level at a time, asking only the tasks that own the states."""
    paths = {name: [fp] for name, (fp, _) in targets.items()}
    depth = {name: d for name, (_, d) in targets.items()}
    for d in range(max(depth.values(), default=0), 0, -1):
        here = [name for name in paths if depth[name] == d]
        if not here:
            continue
        wanted: dict[int, set[int]] = defaultdict(set)
        for name in here:
            wanted[int(owner(paths[name][-1], partitions, tasks))].add(paths[name][-1])
        routes = {}
        for answer in coordinator.ask_each({t: ("routes", d, sorted(fps)) for t, fps in wanted.items()}):
            routes.update(answer)
        for name in here:
            paths[name].append(routes[paths[name][-1]][0])
            depth[name] = d - 1
    return {name: path[::-1] for name, path in paths.items()}
