"""The local engine on a compiled kernel: breadth-first search over packed states.

The visited set holds 64-bit fingerprints only (`visited_set`); each discovered state keeps
its parent's discovery index (4 bytes) and the action code that reached it (2 bytes), and the
frontier is kept as packed rows. Each level is expanded in ascending fingerprint order, so a
new state's recorded route is the smallest (parent fingerprint, action), and the reported
violation of an invariant is the violating state with the smallest fingerprint at the first
level where it fails: the same rules as the Spark engine, hence the same traces.
"""

from __future__ import annotations

import bisect
import time
from typing import Callable, Sequence

import numpy as np

from ..invariant import StepProperty
from ..result import ActionCount, CheckResult, LevelStats
from ..stopping import keep_exploring
from .fingerprint import fingerprint
from .symmetry import permutations
from .traces import Reducer, path_by_codes, trace_to
from .expansion import expand_all
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


def _masks(names: Sequence[str], chosen: Sequence[str]) -> int:
    return sum(1 << names.index(name) for name in chosen)


def explore_kernel(model, properties, *, stop_at_first: bool = True, max_depth: int | None = None,
                   on_level: Callable[[LevelStats, int], None] | None = None, symmetry: bool = False) -> CheckResult:
    """Explore every state reachable from the model's initial states on its compiled kernel
    (see the module docstring), one state per orbit under replica renaming with `symmetry`.
    Same meaning of the options and the same result as `checker.local.explore`."""
    from ..local import gc_paused

    with gc_paused():
        return _explore(model, properties, stop_at_first, max_depth, on_level, symmetry)


def _explore(model, properties, stop_at_first, max_depth, on_level, symmetry) -> CheckResult:
    started = time.perf_counter()
    kernel = model.kernel
    search, lay = kernel.search, kernel.layout
    result = CheckResult(model.name, model.variant, dict(model.parameters()), "local", [p.name for p in properties],
                         symmetry=symmetry)
    invariants = [p for p in properties if not isinstance(p, StepProperty)]
    step_properties = [p for p in properties if isinstance(p, StepProperty)]
    inv_mask = _masks(kernel.invariant_names, [p.name for p in invariants])
    step_mask = _masks(kernel.step_property_names, [p.name for p in step_properties])
    perms = permutations(kernel.replicas, symmetry)
    reducer = Reducer(kernel, perms)
    width = kernel.width

    visited = VisitedSet(1 << 16, kernel.max_successors * search.BATCH)
    front_rows, front_fps = [], []
    for state in model.initial_states():
        row = reducer.representative(kernel.encode(state))
        fp = fingerprint(row)
        if visited.add(fp):
            front_rows.append(row)
            front_fps.append(fp)
    front = np.array(front_rows, np.int8).reshape(len(front_rows), width)
    front_fps = np.array(front_fps, np.int64)
    discovered = Discovered()
    discovered.add_level(0, np.full(len(front), NO_PARENT), np.zeros(len(front), np.uint16))
    found = _first_violations(search, lay, front, front_fps, 0, invariants, kernel, {})
    broken: dict[str, tuple[int, int]] = {}
    fired = np.zeros(len(kernel.action_kinds), np.int64)
    new = np.zeros(len(kernel.action_kinds), np.int64)
    depth, base, growth = 0, 0, 3.0
    result.levels.append(LevelStats(0, len(front), 0, len(visited), time.perf_counter() - started))
    if on_level:
        on_level(result.levels[-1], len(front))

    exhausted = len(front) == 0
    while keep_exploring(exhausted=exhausted, found={**found, **broken}, invariant_count=len(properties),
                         stop_at_first=stop_at_first, depth=depth, max_depth=max_depth):
        level = expand_all(kernel, front, front_fps, inv_mask, step_mask, perms, visited, int(growth * len(front)))
        n_out, generated = len(level.fps), level.generated
        fired += level.fired
        result.generated_states += generated
        for prop in step_properties:
            b = kernel.step_property_names.index(prop.name)
            if prop.name not in broken and level.step_parent[b] >= 0:
                broken[prop.name] = (base + int(level.step_parent[b]), int(level.step_code[b]))
        if n_out == 0:
            exhausted = True
            break
        depth += 1
        growth = n_out / len(front)
        discovered.add_level(base + len(front), level.parent.astype(np.uint32) + np.uint32(base), level.code)
        new += np.bincount(level.code >> 12, minlength=len(new))
        base += len(front)
        front, front_fps = level.rows, level.fps
        found.update(_first_violations(search, lay, front, front_fps, base, invariants, kernel, found, level.viol))
        del level
        result.levels.append(LevelStats(depth, n_out, generated, len(visited), time.perf_counter() - started))
        if on_level:
            on_level(result.levels[-1], n_out)

    result.complete = exhausted
    result.distinct_states = len(visited)
    result.depth = depth
    result.actions = {kernel.action_kinds[k]: ActionCount(int(fired[k]), int(new[k]))
                      for k in sorted(range(len(fired)), key=lambda k: kernel.action_kinds[k]) if fired[k]}
    initials = [kernel.encode(s) for s in model.initial_states()]

    def fps_to(index: int) -> list[int]:
        root, codes = discovered.path(index)
        return path_by_codes(kernel, reducer, initials[root], codes)

    for prop in properties:
        if prop.name in found:
            result.violations[prop.name] = trace_to(model, reducer, prop.name, fps_to(found[prop.name]))
        elif prop.name in broken:
            parent, code = broken[prop.name]
            result.violations[prop.name] = trace_to(model, reducer, prop.name, fps_to(parent),
                                                    kernel.step_property_names.index(prop.name))
    result.seconds = time.perf_counter() - started
    return result


def _first_violations(search, lay, rows, fps, base, invariants, kernel, found, masks=None) -> dict[str, int]:
    """For each invariant not yet in `found`, the discovery index of the level's violating state
    with the smallest fingerprint. `masks` are the states' violation bits, when known."""
    if masks is None:
        selected = _masks(kernel.invariant_names, [p.name for p in invariants])
        masks = np.array([search.violations(row, lay, selected) for row in rows], np.int64)
    violating = {}
    for inv in invariants:
        if inv.name in found:
            continue
        hit = np.flatnonzero((masks >> kernel.invariant_names.index(inv.name)) & 1)
        if len(hit):
            violating[inv.name] = base + int(hit[np.argmin(fps[hit])])
    return violating
