"""The local engine: breadth-first search in one Python process.

Exploration goes level by level, so the first level at which an invariant fails gives its
shortest counterexample. Results do not depend on the order in which states are expanded:
a new state's recorded parent is the predecessor with the smallest (fingerprint, action),
and the reported violating state is the violating one with the smallest fingerprint at that
level. The Spark engine applies the same rules, so both report the same traces.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Callable, Sequence

from .fingerprint import fingerprint
from .invariant import Invariant
from .model import Model, State
from .path import trace_from_path
from .result import ActionCount, CheckResult, LevelStats


def _first_violations(candidates: Sequence[State], invariants: Sequence[Invariant], found: dict) -> dict[str, State]:
    """For each invariant not yet in `found`, the violating state with the smallest fingerprint
    among `candidates`, if any."""
    violating = {}
    for inv in invariants:
        if inv.name in found:
            continue
        bad = [s for s in candidates if not inv.holds(s)]
        if bad:
            violating[inv.name] = min(bad, key=fingerprint)
    return violating


def explore(
    model: Model,
    invariants: Sequence[Invariant],
    *,
    stop_at_first: bool = True,
    max_depth: int | None = None,
    on_level: Callable[[LevelStats, int], None] | None = None,
) -> CheckResult:
    """Explore every state reachable from the model's initial states, breadth first.

    With `stop_at_first` the search ends after the first level at which any invariant fails
    (that level is finished, so counts do not depend on expansion order); otherwise it goes
    on to the end and reports the shortest trace of every failing invariant. `max_depth`
    bounds the search to that many transitions. `on_level(stats, frontier_size)` is called
    after each level (progress display).
    """
    started = time.perf_counter()
    result = CheckResult(model.name, model.variant, dict(model.parameters()), "local", [i.name for i in invariants])
    parent: dict[State, State | None] = {}
    frontier = []
    for state in model.initial_states():
        if state not in parent:
            parent[state] = None
            frontier.append(state)
    found = _first_violations(frontier, invariants, {})
    fired: Counter = Counter()
    new: Counter = Counter()
    generated = 0
    depth = 0
    result.levels.append(LevelStats(0, len(frontier), 0, len(parent), time.perf_counter() - started))
    if on_level:
        on_level(result.levels[-1], len(frontier))

    exhausted = not frontier
    while not exhausted and not (stop_at_first and found) and (max_depth is None or depth < max_depth):
        chosen: dict[State, tuple] = {}
        level_generated = 0
        for state in frontier:
            fp = fingerprint(state)
            for action, succ in model.successors(state):
                level_generated += 1
                fired[action[0]] += 1
                if succ in parent:
                    continue
                best = chosen.get(succ)
                if best is None or (fp, action) < best[:2]:
                    chosen[succ] = (fp, action, state)
        generated += level_generated
        if not chosen:
            exhausted = True
            break
        depth += 1
        for succ, (_, action, state) in chosen.items():
            parent[succ] = state
            new[action[0]] += 1
        frontier = list(chosen)
        found.update(_first_violations(frontier, invariants, found))
        result.levels.append(LevelStats(depth, len(frontier), level_generated, len(parent), time.perf_counter() - started))
        if on_level:
            on_level(result.levels[-1], len(frontier))

    result.complete = exhausted
    result.distinct_states = len(parent)
    result.generated_states = generated
    result.depth = depth
    result.actions = {name: ActionCount(fired[name], new[name]) for name in sorted(fired)}
    for name, state in found.items():
        path = [state]
        while parent[path[-1]] is not None:
            path.append(parent[path[-1]])
        result.violations[name] = trace_from_path(model, name, path[::-1])
    result.violations = {i.name: result.violations[i.name] for i in invariants if i.name in result.violations}
    result.seconds = time.perf_counter() - started
    return result
