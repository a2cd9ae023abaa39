"""The Spark engine: the same breadth-first search as `checker.local`, with the frontier and
the visited set sharded across Spark executors by state fingerprint.

Per level the driver builds two stages (see `checker.spark_tasks` and docs/spark-engine.md):
expand the frontier on the executors and shuffle the successors to their owning partitions,
then merge them into the co-partitioned previous level. Only counts, the smallest violating
fingerprints and the next frontier's size come back to the driver; it never holds the state
set. Each level is persisted and checkpointed (locally, or reliably under `checkpoint_dir`),
so lineage never grows. The same tie-breaking rules as the local engine give the same counts,
verdicts and traces, whatever the partition count.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Callable, Sequence

import numpy as np

from .fingerprint import fingerprint
from .invariant import Invariant, StepProperty
from .model import Model
from .path import trace_ending_with_step, trace_from_fingerprints
from .result import ActionCount, CheckResult, LevelStats, found_so_far
from .local import representative_of
from .stopping import stop_reason
from .checkpoint.files import LevelStates
from .checkpoint.identity import CheckpointError
from .kernel import steps
from .kernel.symmetry import permutations
from .kernel.traces import Reducer, trace_to


def _initial_level(sc, model, partitions, reducer, representative, saver):
    """Level 0: the initial states (orbit representatives with symmetry; packed rows for a kernel
    model), each owned by its fingerprint's partition, as its own parent; journalled with
    checkpoints on."""
    if reducer is None:
        reduce = representative or (lambda state: state)
        states = {fingerprint(reduce(s)): reduce(s) for s in model.initial_states()}
        encode = model.encode
    else:
        rows = [reducer.representative(model.kernel.encode(s)) for s in model.initial_states()]
        states = {reducer.fingerprint(row): row for row in rows}
        encode = None
    fps = np.array(sorted(states), np.int64)
    if saver is not None:
        saver.journal(0, 0, fps, fps, np.zeros(len(fps), np.uint16))
    frontier = ([encode(states[fp]) for fp in fps.tolist()] if encode is not None else
                np.array([states[fp] for fp in fps.tolist()], np.int8).reshape(len(fps), model.kernel.width))
    level = LevelStates(fps, fps, np.zeros(len(fps), np.uint16))
    return states, _sharded(sc, partitions, level, level, frontier)


def _restored_level(sc, model, partitions, saver):
    """The last level of the saver's checkpoint, sharded over `partitions` (whatever the engine
    and partition count that wrote it): every journalled state with its parent and code, and
    the saved frontier."""
    levels = saver.read_levels()
    everything = LevelStates(*(np.concatenate([getattr(level, name) for level in levels])
                               for name in LevelStates._fields))
    if len(everything.fps) != saver.resumed.distinct:
        raise CheckpointError(f"its journal holds {len(everything.fps):,} states, its manifest "
                              f"{saver.resumed.distinct:,}")
    kernel = getattr(model, "kernel", None)
    if saver.resumed.frontier:
        fps, frontier = saver.read_frontier(kernel.width if kernel is not None else None, levels[-1])
    else:
        fps = np.empty(0, np.int64)
        frontier = np.zeros((0, kernel.width), np.int8) if kernel is not None else []
    return _sharded(sc, partitions, everything, LevelStates(fps, fps, fps), frontier)


def _sharded(sc, partitions, visited: LevelStates, front: LevelStates, frontier):
    """An RDD of one Shard per partition: the `visited` states it owns (sorted by fingerprint,
    with parents and codes) and its share of the frontier (fingerprints `front.fps`, encoded
    states `frontier`)."""
    from .spark_tasks import Shard, same_partition

    order, front_order = np.argsort(visited.fps), np.argsort(front.fps)
    owners, front_owners = visited.fps[order] % partitions, front.fps[front_order] % partitions
    shards = []
    for p in range(partitions):
        mine, front_mine = order[owners == p], front_order[front_owners == p]
        states = (frontier[front_mine] if isinstance(frontier, np.ndarray) else
                  [frontier[i] for i in front_mine.tolist()])
        shards.append((p, Shard(visited.fps[mine], visited.parents[mine], visited.codes[mine], front.fps[front_mine],
                                states)))
    return sc.parallelize(shards, partitions).partitionBy(partitions, same_partition)


def _co_partitioned_union(level, candidates):
    """`level.union(candidates)` without a pass through Python: both are partitioned alike, so
    Spark pairs partition p of one with partition p of the other (nothing moves). PySpark would
    first re-serialise both sides because their serializer objects differ (auto-batched pickle
    and batched pickle); both are read the same way (each frame a pickled list), so declaring
    the candidates' reader equal to the level's is enough."""
    candidates._jrdd_deserializer = level._jrdd_deserializer
    union = level.union(candidates)
    assert union.partitioner == level.partitioner, "the level and its candidates must be co-partitioned"
    return union


def _materialise(rdd, checkpoint: bool):
    """Persist the level, cut its lineage, and compute it (counting in the JVM, so no Python
    pass reads the cached data back)."""
    from pyspark import StorageLevel

    rdd.persist(StorageLevel.MEMORY_AND_DISK)
    if checkpoint:
        rdd.checkpoint()
    else:
        rdd.localCheckpoint()
    rdd._jrdd.count()
    return rdd


def explore_spark(
    sc,
    model: Model,
    invariants: Sequence[Invariant],
    *,
    partitions: int | None = None,
    stop_at_first: bool = True,
    max_depth: int | None = None,
    on_level: Callable[[LevelStats, int], None] | None = None,
    reliable_checkpoints: bool = False,
    symmetry: bool = False,
    saver=None,
) -> CheckResult:
    """Explore like `checker.local.explore`, on the SparkContext `sc` with `partitions` shards
    (default: the context's default parallelism). `reliable_checkpoints` checkpoints each level
    to the context's checkpoint directory instead of executor-local storage. A model with a
    compiled kernel is expanded by that kernel on the executors, one state per orbit under
    replica renaming with `symmetry` (which needs a kernel). With a checkpoint `saver` the
    executors journal each level in its directory (which they must all reach), and the search
    continues from its checkpoint if it has one."""
    from .spark_tasks import KeyedDict, expand, expand_kernel, kind_index, merge, same_partition, save_frontier

    started = time.perf_counter()
    P = partitions or sc.defaultParallelism
    properties = list(invariants)
    kernel = getattr(model, "kernel", None)
    result = CheckResult.of(model, properties, "spark", engine_options={"master": sc.master, "partitions": P},
                            symmetry=symmetry)
    invariants = [p for p in properties if not isinstance(p, StepProperty)]
    step_properties = [p for p in properties if isinstance(p, StepProperty)]
    broken_steps: dict[str, tuple] = {}
    representative = representative_of(model, symmetry) if kernel is None else None
    if kernel is not None:
        reducer = Reducer(kernel, permutations(kernel.replicas, symmetry))
        kinds = kernel.action_kinds
        invariant_bits = {kernel.invariant_names.index(p.name): p for p in invariants}
        step_bits = {kernel.step_property_names.index(p.name): p for p in step_properties}
        inv_mask, step_mask = sum(1 << b for b in invariant_bits), sum(1 << b for b in step_bits)
        kind_of = steps.kind_of
    else:
        reducer = None
        kinds = model.action_kinds()
        invariant_bits = dict(enumerate(invariants))
        kind_of = kind_index
    if saver is not None and kernel is None:
        raise CheckpointError(f"checkpoints need a model with a compiled kernel, and {model.name} has none")
    found: dict[str, int] = {}
    resumed = saver.resumed if saver is not None else None
    if resumed is None:
        states, level = _initial_level(sc, model, P, reducer, representative, saver)
        for inv in invariants:
            if kernel is not None:
                bit = kernel.invariant_names.index(inv.name)
                bad = [fp for fp, row in states.items() if kernel.search.violations(row, kernel.layout, 1 << bit)]
            else:
                bad = [fp for fp, s in states.items() if not inv.holds(s)]
            if bad:
                found[inv.name] = min(bad)
        fired = np.zeros(len(kinds), np.int64)
        new_by_kind = np.zeros(len(kinds), np.int64)
        distinct, frontier, depth, offset, exhausted = len(states), len(states), 0, 0.0, not states
        result.levels.append(LevelStats(0, distinct, 0, distinct, time.perf_counter() - started, 0.0,
                                        **found_so_far(found, result.witnesses)))
        parts = [1]
    else:
        level = _restored_level(sc, model, P, saver)
        found = dict(resumed.found)
        broken_steps = {name: (fp, None) for name, fp in resumed.broken.items()}
        fired = np.array([resumed.fired.get(k, 0) for k in kinds], np.int64)
        new_by_kind = np.array([resumed.new.get(k, 0) for k in kinds], np.int64)
        distinct, depth, offset, exhausted = resumed.distinct, resumed.depth, resumed.seconds, resumed.exhausted
        frontier = resumed.levels[-1].new_states
        result.levels = list(resumed.levels)
        result.generated_states = resumed.generated
        parts = list(resumed.parts)
    level = _materialise(level, reliable_checkpoints)

    def elapsed() -> float:
        return offset + time.perf_counter() - started

    def snapshot(frontier_saved: bool):
        if saver is None:
            return None
        return saver.snapshot(depth=depth, exhausted=exhausted, levels=list(result.levels),
                              generated=result.generated_states, fired=dict(zip(kinds, fired.tolist())),
                              new=dict(zip(kinds, new_by_kind.tolist())), found=dict(found),
                              broken={name: fp for name, (fp, _) in broken_steps.items()}, parts=list(parts),
                              frontier=frontier_saved, engine="spark")

    def frontier_saver(rdd, at_depth):
        if saver is None:
            return None
        return lambda: rdd.mapPartitionsWithIndex(partial(save_frontier, journal=saver.directory, depth=at_depth)).count()

    if on_level:
        on_level(result.levels[-1], frontier)
    last_level = level
    last = (snapshot(True), frontier_saver(level, depth))  # the checkpoint an interruption commits
    try:
        while not (stopped := stop_reason(exhausted=exhausted, found={**found, **broken_steps}, properties=properties,
                                          stop_at_first=stop_at_first, depth=depth, max_depth=max_depth)):
            stats = sc.accumulator({}, KeyedDict())
            step = depth + 1
            due = saver is not None and saver.due()
            unbroken = [p for p in step_properties if p.name not in broken_steps]
            if kernel is not None:
                expand_task = partial(expand_kernel, model=model, invariant_mask=inv_mask, step_mask=step_mask,
                                      symmetry=symmetry, partitions=P, level=step, stats=stats)
            else:
                expand_task = partial(expand, model=model, invariants=invariants, step_properties=unbroken,
                                      partitions=P, level=step, stats=stats, representative=representative)
            candidates = level.mapPartitionsWithIndex(expand_task).partitionBy(P, same_partition)
            following = _co_partitioned_union(level, candidates).mapPartitionsWithIndex(
                partial(merge, kinds=len(kinds), kind_of=kind_of, invariant_count=max(invariant_bits, default=-1) + 1,
                        level=step, stats=stats, journal=saver.directory if saver is not None else None,
                        frontier_due=due),
                preservesPartitioning=True)
            following = _materialise(following, reliable_checkpoints)
            level = following
            expanded = [v for k, v in stats.value.items() if k[0] == "expand"]
            merged = [v for k, v in stats.value.items() if k[0] == "merge"]
            generated = sum(e.generated for e in expanded)
            result.generated_states += generated
            fired += np.sum([e.fired for e in expanded], axis=0, dtype=np.int64) if expanded else 0
            frontier = sum(m.new for m in merged)
            for key, prop in (step_bits.items() if kernel is not None else ((p.name, p) for p in unbroken)):
                hits = [e.broken[key] for e in expanded if key in e.broken]
                if hits and prop.name not in broken_steps:
                    broken_steps[prop.name] = min(hits)
            if frontier == 0:
                exhausted = True
                continue
            depth = step
            parts.append(P)
            distinct = sum(m.visited for m in merged)
            new_by_kind += np.sum([m.new_by_kind for m in merged], axis=0, dtype=np.int64)
            for bit, inv in invariant_bits.items():
                hits = [m.violations[bit] for m in merged if bit in m.violations]
                if hits and inv.name not in found:
                    found[inv.name] = min(hits)
            busiest = max(e.seconds for e in expanded) + max(m.seconds for m in merged)
            result.levels.append(LevelStats(depth, frontier, generated, distinct, elapsed(), busiest,
                                            **found_so_far({*found, *broken_steps}, result.witnesses)))
            last, last_level, previous = (snapshot(True), frontier_saver(level, depth)), level, last_level
            previous.unpersist()
            if due:
                saver.commit(last[0])
            if on_level:
                on_level(result.levels[-1], frontier)
    except KeyboardInterrupt:
        if saver is not None:
            sc.cancelAllJobs()
            saver.commit_interrupted(*last)
        raise
    if level is not last_level:
        level.unpersist()  # the level that came out empty
    if saver is not None:
        final = snapshot(not exhausted)
        if final.frontier and depth != saver.committed:
            last[1]()
        saver.commit(final)

    result.stopped = stopped
    result.distinct_states = distinct
    result.depth = depth
    result.actions = {name: ActionCount(int(fired[i]), int(new_by_kind[i]))
                      for i, name in sorted(enumerate(kinds), key=lambda e: e[1]) if fired[i]}
    key = (lambda state: fingerprint(representative(state))) if representative else fingerprint
    paths = _paths_to(sc, last_level, {**found, **{name: fp for name, (fp, _) in broken_steps.items()}}, P)
    for prop in properties:
        if kernel is not None and prop.name in found:
            result.violations[prop.name] = trace_to(model, reducer, prop.name, paths[prop.name])
        elif kernel is not None and prop.name in broken_steps:
            result.violations[prop.name] = trace_to(model, reducer, prop.name, paths[prop.name],
                                                    kernel.step_property_names.index(prop.name))
        elif prop.name in found:
            result.violations[prop.name] = trace_from_fingerprints(model, prop.name, paths[prop.name], key)
        elif prop.name in broken_steps:
            result.violations[prop.name] = trace_ending_with_step(model, prop, paths[prop.name], key)
    last_level.unpersist()
    result.seconds = elapsed()
    return result


def _paths_to(sc, level, targets: dict[str, int], partitions: int) -> dict[str, list[int]]:
    """For each named target fingerprint, the fingerprints from an initial state to it. Walks
    back all paths together, one small job per step that asks only the partitions owning the
    current states for their parents."""
    from .spark_tasks import owner, parents_of

    paths = {name: [fp] for name, fp in targets.items()}
    while True:
        open_ends = {path[-1] for path in paths.values() if len(path) == 1 or path[-1] != path[-2]}
        if not open_ends:
            return {name: path[:-1][::-1] for name, path in paths.items()}
        owners = sorted({owner(fp, partitions) for fp in open_ends})
        found = dict(sc.runJob(level, partial(parents_of, fps=open_ends), owners))
        for path in paths.values():
            if len(path) == 1 or path[-1] != path[-2]:
                path.append(found[path[-1]])
