"""Expanding one BFS level (or one Spark partition's share of it) on a compiled kernel.

`expand_all` runs the compiled loop (`search_template.expand`) over a whole frontier, growing
its output arrays and the visited set whenever the loop stops for room, and hands back every
new state with its parent, action code and violated invariants. The local engine runs it on
several threads (`use_threads`, `--threads`), with the one-thread result exactly.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from ..coverage import empty_counts
from ..interpreted import chunk, safe_point, wide
from .guards import REACHED, empty_tally
from .reduction import workspace
from .visited_set import VisitedSet

BIG = np.iinfo(np.int64).max
CHUNK = 1 << 16
"""Frontier states per call into compiled code: control comes back to Python this often, so
Ctrl-C and termination signals are handled within a fraction of a second."""


class Expansion(NamedTuple):
    """What expanding a frontier found. Per new state (in discovery order): its packed row,
    fingerprint, parent (index into the frontier), action code and violated-invariant bits.
    Also: successors generated, the coverage counts (`checker.coverage`: steps fired per action
    kind and actor, states in which each was enabled, the guards' and events' tally), per step
    property the smallest breaking (parent fingerprint, code) and that parent's frontier index
    (-1: unbroken), and the visited set afterwards."""

    rows: np.ndarray
    fps: np.ndarray
    parent: np.ndarray
    code: np.ndarray
    viol: np.ndarray
    generated: int
    fired: np.ndarray
    enabled: np.ndarray
    tally: np.ndarray
    step_fp: np.ndarray
    step_code: np.ndarray
    step_parent: np.ndarray
    visited: VisitedSet


def usable_cores() -> int:
    """How many cores this process may run on (its CPU affinity, where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_threads: list[int | None] = [None]


def use_threads(count: int | None) -> None:
    """Expand each level of this process's local searches on `count` threads (None: one per
    usable core). The states found, their order and every result are the same at any count."""
    _threads[0] = count


def threads_asked() -> int | None:
    """The thread count `use_threads` last set (None: one per usable core)."""
    return _threads[0]


def local_threads() -> int:
    """How many threads a local search expands each level on (`use_threads`)."""
    return _threads[0] or usable_cores()


def visited_room(kernel) -> int:
    """The most fingerprints one batch of the compiled expansion adds to a visited set (its
    `room`): `BATCH` frontier states, each with at most the kernel's successors."""
    return kernel.max_successors * kernel.search.BATCH


NO_SET = np.zeros((0, 4), np.int64)
"""The `seen` of a search loop that looks only in the set it adds to (`search_template.expand`)."""
SPLIT_AT = 4096
"""Frontiers smaller than this are expanded on one thread: splitting them costs more than it saves."""


def expand_all(kernel, front: np.ndarray, front_fps: np.ndarray, invariant_mask: int, step_mask: int,
               perms: np.ndarray, visited: VisitedSet | None = None, expected: int | None = None,
               threads: int = 1) -> Expansion:
    """Expand every state of `front` (packed rows with fingerprints `front_fps`) in ascending
    fingerprint order; successors already `visited` (a fresh visited set when None) are not
    new. `perms` are the replica renamings (identity only: no symmetry). `expected`, an estimate
    of the new states, sizes the output (it grows as needed). With the kernel's `reduction`
    on (`checker.kernel.reduction`), each state's stubborn set of steps is taken, not all.

    With `threads` > 1 (and the kernels compiled) the frontier is cut into that many runs of
    consecutive states, expanded side by side (the compiled loop releases the GIL), each run
    against the visited set as it was (read only) and a set of its own; the runs' new states are
    then admitted into the visited set run by run, in order. A state reached from two runs is
    kept from the first, with the parent and step the one-thread loop gives it: the result is
    the same at any thread count."""
    order = np.argsort(front_fps)  # fingerprints in a frontier are distinct
    if visited is None:
        visited = VisitedSet(2 * len(front) + visited_room(kernel), visited_room(kernel))
    threads = min(threads, len(front) // SPLIT_AT) if wide(np.int8) == np.int8 else 1
    if threads <= 1:
        level = _expand_run(kernel, front, front_fps, order, invariant_mask, step_mask, perms, visited, NO_SET,
                            expected)
    else:
        share = None if expected is None else expected // threads + 1
        with ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(lambda run: _expand_run(kernel, front, front_fps, run, invariant_mask, step_mask,
                                                          perms, None, visited.shards, share),
                                  np.array_split(order, threads)))
        level = _joined(parts, [visited.admit(part.fps) for part in parts], visited)
    if kernel.count_guards:
        level = level._replace(tally=sampled_guards(kernel, front, front_fps, level.tally))
    return level


def _expand_run(kernel, front, front_fps, order, invariant_mask, step_mask, perms, visited, seen,
                expected) -> Expansion:
    """Expand the states front[order[0]], front[order[1]], ... (`expand_all`): their successors
    neither in `seen` (read only) nor already in `visited` (a fresh set when None) are new, and
    join `visited`."""
    search, lay = kernel.search, kernel.layout
    # One compiled signature only: arrays unpickled by Spark are read-only, which numba types apart.
    row_type = wide(np.int8)  # int64 while the kernels run as plain Python (`checker.interpreted`)
    front = np.require(front, row_type, ["C", "W"])
    front_fps = np.require(front_fps, np.int64, ["C", "W"])
    width, room = kernel.width, kernel.max_successors
    buf, acts = np.zeros((room, width), row_type), np.zeros(room, np.int64)
    rank, scratch = np.zeros(room, np.int64), np.zeros(width, row_type)
    batched = visited_room(kernel)
    batch = np.zeros((batched, width), row_type)
    batch_fps, batch_codes, batch_parents = (np.zeros(batched, np.int64) for _ in range(3))
    if visited is None:
        visited = VisitedSet(2 * len(order) + batched, batched)
    capacity = max(4096, int(1.1 * (2 * len(order) if expected is None else expected)) + batched)
    out = np.zeros((capacity, width), row_type)
    fps = np.zeros(capacity, np.int64)
    parent, code, viol = (np.zeros(capacity, wide(t)) for t in (np.int32, np.uint16, np.int32))
    properties = len(kernel.step_property_names)
    step_fp, step_code = np.full(properties, BIG, np.int64), np.full(properties, BIG, np.int64)
    step_parent = np.full(properties, -1, np.int64)
    fired, enabled = empty_counts(len(kernel.action_kinds))
    tally = empty_tally(kernel.guards, guards=False)
    reduction = kernel.reduction
    ws, keep = workspace(reduction), np.zeros(room, np.bool_)
    position, n, generated = 0, 0, 0
    while True:
        position, n, g = search.expand(
            front, front_fps, order[:position + chunk(CHUNK)], position, lay, perms, invariant_mask, step_mask,
            seen, visited.shards, buf, acts, tally, rank, scratch, batch, batch_fps, batch_codes,
            batch_parents, out, fps, parent, code, viol, n, fired, enabled, step_fp, step_code,
            step_parent, reduction, ws, keep)
        generated += g
        if seen is NO_SET:  # not on a worker thread: the one place to switch to compiled kernels
            safe_point()
        if wide(np.int8) != row_type:  # the kernels were compiled meanwhile: hand them their own types
            row_type = wide(np.int8)
            front, buf, scratch, batch, out = (a.astype(row_type) for a in (front, buf, scratch, batch, out))
            parent, code, viol = (a.astype(wide(t)) for a, t in ((parent, np.int32), (code, np.uint16),
                                                                  (viol, np.int32)))
        if position >= len(order):
            break
        if n + batched > out.shape[0]:
            size = out.shape[0] + out.shape[0] // 2 + batched
            out, fps, parent, code, viol = (_grown(a, size) for a in (out, fps, parent, code, viol))
        visited.grow_full()
    # copies, not views: a view would keep the whole output buffer (sized for the expected new
    # states, and never less than 4,096 rows) alive as long as the new states are kept
    return Expansion(out[:n].astype(np.int8), fps[:n].copy(), parent[:n].astype(np.int32), code[:n].astype(np.uint16),
                     viol[:n].astype(np.int32), generated,
                     fired, enabled, tally, step_fp, step_code, step_parent, visited)


def _joined(parts: list[Expansion], new: list[np.ndarray], visited: VisitedSet) -> Expansion:
    """One expansion of consecutive runs `parts`, keeping of each run the states `new` marks
    (those no earlier run found); per step property the smallest breaking (parent fingerprint,
    step) over the runs."""
    step_fp, step_code, step_parent = parts[0].step_fp.copy(), parts[0].step_code.copy(), parts[0].step_parent.copy()
    for part in parts[1:]:
        smaller = (part.step_fp < step_fp) | ((part.step_fp == step_fp) & (part.step_code < step_code))
        step_fp[smaller], step_code[smaller], step_parent[smaller] = (part.step_fp[smaller], part.step_code[smaller],
                                                                     part.step_parent[smaller])
    kept = [[getattr(part, name)[mask] for part, mask in zip(parts, new)] for name in ("rows", "fps", "parent",
                                                                                       "code", "viol")]
    return Expansion(*(np.concatenate(columns) for columns in kept), sum(part.generated for part in parts),
                     sum(part.fired for part in parts), sum(part.enabled for part in parts),
                     sum(part.tally for part in parts), step_fp, step_code, step_parent, visited)


def sampled_guards(kernel, front: np.ndarray, front_fps: np.ndarray, events: np.ndarray) -> np.ndarray:
    """A two-column tally (`checker.kernel.guards`) of the guards of the frontier states in the
    search's sample (`GUARD_SAMPLE`), with `events`, every state's events, in place of the
    sample's own event counts."""
    guards = empty_tally(kernel.guards, guards=True)
    buf, acts, _ = kernel.buffers()
    kernel.search.count_guards(front, front_fps, kernel.layout, buf, acts, guards)
    is_event = np.array([entry.event for entry in kernel.guards.entries] or [False], bool)
    guards[is_event, REACHED] = events[is_event]
    return guards


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    bigger = np.zeros((size,) + array.shape[1:], array.dtype)
    bigger[:array.shape[0]] = array
    return bigger
