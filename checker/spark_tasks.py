"""The work Spark's Python workers do in one BFS level. Pure functions of their inputs.

A level is one cached RDD with one element per partition p:

    (p, Shard(visited, parents, codes, frontier_fps, frontier))

`visited` holds the fingerprints (int64, sorted) of every state owned by p (fingerprint mod P
== p), `parents` the fingerprint of each one's chosen parent (itself for an initial state),
`codes` the action code that reached it (a compiled kernel's code, else the action kind's
index), `frontier_fps` and `frontier` the states p discovered in the last level and their encodings.

`expand` (map side) decodes the frontier, generates successors, keeps per successor the
smallest parent (and, for one parent, the smallest action), evaluates the invariants on it,
encodes it, and emits one Candidates block per owning partition. After the shuffle, `merge`
(reduce side, co-partitioned with the previous level, so the visited set never moves) picks
the smallest parent per fingerprint, drops what is already visited, and returns the next
Shard; with checkpoints on it also journals the level's new states (and, when a checkpoint is
due, saves them as the frontier) in the checkpoint directory, one part file per partition. Counts go to the driver through an accumulator keyed by (stage, partition), so a
retried task overwrites its figures instead of adding them twice.
"""

from __future__ import annotations

import gc
import time
from collections import Counter
from typing import NamedTuple

import numpy as np
from pyspark.accumulators import AccumulatorParam

from .invariant import record_broken_steps


class Shard(NamedTuple):
    """What one partition owns after a level (see the module docstring). The frontier is a
    list of encoded states, or, for a model with a compiled kernel, an array of packed rows."""

    visited: np.ndarray
    parents: np.ndarray
    codes: np.ndarray
    frontier_fps: np.ndarray
    frontier: list | np.ndarray


class Candidates(NamedTuple):
    """Successors bound for one partition: fingerprint, chosen parent fingerprint, action code
    (see Shard), bitmask of violated invariants, and encoded state (packed rows for a kernel)."""

    fps: np.ndarray
    parents: np.ndarray
    codes: np.ndarray
    violations: np.ndarray
    states: list | np.ndarray


class ExpandStats(NamedTuple):
    """One partition's expansion: successors generated, fired counts per action kind, the
    task's seconds of Python work, and per broken step property the smallest (parent
    fingerprint, action) of a step that breaks it."""

    generated: int
    fired: tuple
    seconds: float
    broken: dict


class MergeStats(NamedTuple):
    """One partition's merge: new states, new states per action kind, the smallest violating
    new fingerprint per invariant index, the size of its visited set, and the task's seconds
    of Python work."""

    new: int
    new_by_kind: tuple
    violations: dict
    visited: int
    seconds: float


class KeyedDict(AccumulatorParam):
    """Accumulates {key: value} dicts; a key reported twice (a retried task) keeps one value."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        a.update(b)
        return a


def owner(fp: int, partitions: int) -> int:
    """The partition that owns a fingerprint."""
    return fp % partitions


def kind_index(codes):
    """The action kind index of each action code, for a model without a compiled kernel (whose
    codes are kind indices)."""
    return codes


def same_partition(key: int) -> int:
    """Partition function for keys that already are partition numbers."""
    return key


def _task_start() -> float:
    """The worker daemon runs a full GC after every task; freezing what exists now keeps that
    pass short, and states are acyclic, so the collector has nothing to do during the task.
    Returns the task's start time."""
    gc.disable()
    gc.freeze()
    return time.perf_counter()


def expand(index, records, *, model, invariants, step_properties, partitions, level, stats, representative=None):
    """Map side of a level: every successor of this partition's frontier, grouped by owner.
    Per successor it keeps the smallest (parent fingerprint, action), the local engine's rule;
    step properties are checked on every step, keeping the smallest breaking (parent, action).
    With `representative` (symmetry reduction) each successor is replaced by its orbit's
    representative before it is fingerprinted."""
    started = _task_start()
    best: dict[int, tuple] = {}
    broken: dict[str, tuple] = {}
    names = []
    decode, successors = model.decode, model.successors
    for _, shard in records:
        for fp, data in zip(shard.frontier_fps.tolist(), shard.frontier):
            state = decode(data)
            for action, succ in successors(state):
                names.append(action[0])
                if step_properties:
                    record_broken_steps(step_properties, fp, state, action, succ, broken)
                if representative is not None:
                    succ = representative(succ)
                succ_fp = hash(succ)
                known = best.get(succ_fp)
                if known is None or fp < known[0] or (fp == known[0] and action < known[1]):
                    best[succ_fp] = (fp, action, succ)
    buckets: list[list] = [[] for _ in range(partitions)]
    for succ_fp, entry in best.items():
        buckets[succ_fp % partitions].append((succ_fp, entry))
    # Successors this partition owns and has already visited need no encoding and no shipping.
    own = buckets[index]
    if own:
        known = _visited(shard.visited, np.fromiter((fp for fp, _ in own), np.int64, len(own)))
        buckets[index] = [entry for entry, seen in zip(own, known.tolist()) if not seen]
    kinds = {name: i for i, name in enumerate(model.action_kinds())}
    for target, entries in enumerate(buckets):
        if entries:
            yield target, _candidates(entries, kinds, model, invariants)
    fired = Counter(names)
    seconds = time.perf_counter() - started
    stats.add({("expand", level, index): ExpandStats(len(names), tuple(fired[k] for k in kinds), seconds, broken)})


def expand_kernel(index, records, *, model, invariant_mask, step_mask, symmetry, partitions, level, stats):
    """Map side of a level for a model with a compiled kernel: the compiled search loop expands
    this partition's packed frontier (in ascending fingerprint order, with a visited set of its
    own, so each successor keeps its smallest (parent fingerprint, action)), and the new rows
    are grouped by owner. Step properties keep the smallest breaking (parent fingerprint,
    action code)."""
    from .kernel.expansion import expand_all
    from .kernel.symmetry import permutations

    started = _task_start()
    (shard,) = [shard for _, shard in records]  # read to the end, or Spark will not reuse this worker
    kernel = model.kernel
    out = expand_all(kernel, shard.frontier, shard.frontier_fps, invariant_mask, step_mask,
                     permutations(kernel.replicas, symmetry))
    parents = shard.frontier_fps[out.parent]
    owners = out.fps % partitions
    keep = ~((owners == index) & _visited(shard.visited, out.fps))
    for target in np.unique(owners[keep]).tolist():
        sel = keep & (owners == target)
        yield target, Candidates(out.fps[sel], parents[sel], out.code[sel], out.viol[sel], out.rows[sel])
    broken = {}
    for bit in range(len(out.step_parent)):
        if out.step_parent[bit] >= 0:
            broken[bit] = (int(shard.frontier_fps[out.step_parent[bit]]), int(out.step_code[bit]))
    seconds = time.perf_counter() - started
    stats.add({("expand", level, index): ExpandStats(out.generated, tuple(out.fired.tolist()), seconds, broken)})


def _visited(visited: np.ndarray, fps: np.ndarray) -> np.ndarray:
    """Which of `fps` are in the sorted array `visited` (a boolean mask)."""
    at = np.searchsorted(visited, fps)
    seen = np.zeros(len(fps), bool)
    inside = at < len(visited)
    seen[inside] = visited[at[inside]] == fps[inside]
    return seen


def _candidates(entries, kinds, model, invariants) -> Candidates:
    """Pack (fingerprint, (parent, action, state)) entries into arrays and encoded states."""
    encode = model.encode
    masks = []
    for _, (_, _, state) in entries:
        mask = 0
        for bit, inv in enumerate(invariants):
            if not inv.holds(state):
                mask |= 1 << bit
        masks.append(mask)
    return Candidates(
        np.fromiter((fp for fp, _ in entries), np.int64, len(entries)),
        np.fromiter((e[0] for _, e in entries), np.int64, len(entries)),
        np.fromiter((kinds[e[1][0]] for _, e in entries), np.uint16, len(entries)),
        np.array(masks, dtype=np.int64),
        [encode(e[2]) for _, e in entries],
    )


def merge(index, records, *, kinds, kind_of, invariant_count, level, stats, journal=None, frontier_due=False):
    """Reduce side of a level: this partition's previous Shard plus the Candidates sent to it
    become the next Shard (new states only in its frontier). `kind_of` maps action codes to
    kind indices. With `journal` (a checkpoint directory) the new states are saved there as
    this partition's part of the level, and also as its part of the frontier when
    `frontier_due`."""
    started = _task_start()
    shard, blocks = None, []
    for _, item in records:
        if isinstance(item, Shard):
            shard = item
        else:
            blocks.append(item)
    if not blocks:
        fps = parents = np.empty(0, np.int64)
        codes = np.empty(0, np.uint16)
        masks = np.empty(0, np.int64)
        states = shard.frontier[:0]
    else:
        fps = np.concatenate([b.fps for b in blocks])
        parents = np.concatenate([b.parents for b in blocks])
        codes = np.concatenate([b.codes for b in blocks])
        masks = np.concatenate([b.violations for b in blocks])
        states = (np.concatenate([b.states for b in blocks]) if isinstance(blocks[0].states, np.ndarray)
                  else [s for b in blocks for s in b.states])
    # Smallest parent per fingerprint: sort by (fingerprint, parent), keep each run's first.
    order = np.lexsort((parents, fps))
    sorted_fps = fps[order]
    first = np.ones(len(order), bool)
    first[1:] = sorted_fps[1:] != sorted_fps[:-1]
    chosen = order[first]
    # Drop what this partition has already visited.
    seen = _visited(shard.visited, fps[chosen])
    new = chosen[~seen]
    new_fps, new_parents, new_codes = fps[new], parents[new], codes[new]
    # Both sides are sorted (chosen follows fingerprint order): a linear insert keeps them so.
    at = np.searchsorted(shard.visited, new_fps)
    visited = np.insert(shard.visited, at, new_fps)
    visited_parents = np.insert(shard.parents, at, new_parents)
    visited_codes = np.insert(shard.codes, at, new_codes)
    violations = {}
    for bit in range(invariant_count):
        hit = new_fps[(masks[new] >> bit) & 1 == 1]
        if len(hit):
            violations[bit] = int(hit.min())
    by_kind = np.bincount(kind_of(new_codes), minlength=kinds).tolist() if len(new) else [0] * kinds
    frontier = states[new] if isinstance(states, np.ndarray) else [states[i] for i in new.tolist()]
    if journal is not None:
        save_level(journal, level, index, new_fps, new_parents, new_codes, frontier if frontier_due else None)
    following = Shard(visited, visited_parents, visited_codes, new_fps, frontier)
    stats.add({("merge", level, index): MergeStats(len(new), tuple(by_kind), violations, len(visited),
                                                   time.perf_counter() - started)})
    yield index, following


def save_level(journal: str, depth: int, part: int, fps, parents, codes, frontier=None) -> None:
    """Journal one partition's new states of level `depth` in checkpoint directory `journal`,
    and save them as its part of the frontier too when `frontier` (their encodings) is given."""
    from .checkpoint.files import write_frontier_part, write_level_part

    write_level_part(journal, depth, part, fps, parents, codes)
    if frontier is not None:
        write_frontier_part(journal, depth, part, fps, frontier)


def save_frontier(index, records, *, journal: str, depth: int):
    """Save this partition's frontier (of level `depth`) as its part of the checkpoint's."""
    from .checkpoint.files import write_frontier_part

    for _, shard in records:
        write_frontier_part(journal, depth, index, shard.frontier_fps, shard.frontier)
    yield index


def parents_of(records, fps: set):
    """(fingerprint, chosen parent) for each of `fps` this partition owns, for rebuilding traces
    on the driver. An initial state is its own parent."""
    wanted = np.array(sorted(fps), dtype=np.int64)
    for _, shard in records:
        at = np.minimum(np.searchsorted(shard.visited, wanted), max(len(shard.visited) - 1, 0))
        for fp, i in zip(wanted.tolist(), at.tolist()):
            if len(shard.visited) and shard.visited[i] == fp:
                yield fp, int(shard.parents[i])
