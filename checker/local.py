"""The local engine: breadth-first search in one Python process.

A model with a compiled kernel is explored by `checker.kernel.search`; the search below is
the plain one, over readable states, for the other models. Both follow the same rules.

Exploration goes level by level, so the first level at which an invariant fails gives its
shortest counterexample. Like TLC, the engine remembers visited states by 64-bit fingerprint
only (see `checker.fingerprint`), each with the fingerprint of its chosen parent; full states
are kept for the current frontier alone, and a trace is rebuilt by replaying its path.

Results do not depend on the order in which states are expanded: a new state's chosen parent
is the predecessor with the smallest (fingerprint, action), and the reported violation is the
violating state with the smallest fingerprint at the first level where the invariant fails.
The Spark engine applies the same rules, so both report the same traces.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

from .checkpoint.identity import CheckpointError
from .fingerprint import fingerprint
from .gc_pause import gc_paused
from .invariant import Invariant, StepProperty, record_broken_steps
from .model import Model, State
from .path import trace_ending_with_step, trace_from_fingerprints
from .result import CheckResult, LevelStats, found_so_far
from .stopping import stop_reason

ROOT = None
"""The parent recorded for an initial state."""


def first_violations(level: dict[int, State], invariants: Sequence[Invariant], found: dict) -> dict[str, int]:
    """For each invariant not yet in `found`, the smallest fingerprint in `level` (fingerprint ->
    state) of a state violating it, if any."""
    violating = {}
    for inv in invariants:
        if inv.name not in found:
            bad = [fp for fp, state in level.items() if not inv.holds(state)]
            if bad:
                violating[inv.name] = min(bad)
    return violating


def representative_of(model, symmetry: bool):
    """The model's orbit representative function when `symmetry` is asked for (None otherwise);
    ValueError for a model that has none."""
    if not symmetry:
        return None
    if not hasattr(model, "representative"):
        raise ValueError(f"model {model.name} has no symmetry reduction")
    return model.representative


def explore(
    model: Model,
    invariants: Sequence[Invariant],
    *,
    stop_at_first: bool = True,
    max_depth: int | None = None,
    on_level: Callable[[LevelStats, int], None] | None = None,
    symmetry: bool = False,
    saver=None,
    memory_budget: int | None = None,
    work_dir: str | None = None,
) -> CheckResult:
    """Explore every state reachable from the model's initial states, breadth first, checking
    each invariant on every state and each step property (`StepProperty`) on every step.

    With `stop_at_first` the search ends after the first level at which any invariant fails
    (that level is finished, so counts do not depend on expansion order); otherwise it goes
    on, to the end or until every property is found, and reports the shortest trace of every
    failing invariant. Witnesses are found the same way (a state or step where their predicate
    is false) but never stop the search early unless every property is decided
    (`checker.stopping`). `max_depth`
    bounds the search to that many transitions. `on_level(stats, frontier_size)` is called
    after each level (progress display). With `symmetry` one state per orbit under replica
    renaming is stored (models with a kernel only). A checkpoint `saver` (`checker.checkpoint`)
    journals the search and continues it from its checkpoint if it has one (models with a
    kernel only). With `memory_budget` (bytes) a kernel model's frontiers keep at most a quarter
    of it each in memory, the rest in sorted runs under `work_dir` (`checker.kernel.search`);
    the visited set stays in memory.
    """
    if getattr(model, "kernel", None) is not None:
        from .kernel.search import explore_kernel

        return explore_kernel(model, invariants, stop_at_first=stop_at_first, max_depth=max_depth, on_level=on_level,
                              symmetry=symmetry, saver=saver, memory_budget=memory_budget, work_dir=work_dir)
    if saver is not None:
        raise CheckpointError(f"checkpoints need a model with a compiled kernel, and {model.name} has none")
    with gc_paused():
        return _explore(model, invariants, stop_at_first, max_depth, on_level, representative_of(model, symmetry))


def _explore(model, properties, stop_at_first, max_depth, on_level, representative) -> CheckResult:
    import numpy as np

    from .coverage import ANY_ACTOR, Coverage, empty_counts, new_counts

    started = time.perf_counter()
    result = CheckResult.of(model, properties, "local", symmetry=representative is not None)
    invariants = [p for p in properties if not isinstance(p, StepProperty)]
    step_properties = [p for p in properties if isinstance(p, StepProperty)]
    reduce = representative or (lambda state: state)
    frontier = {fingerprint(reduce(s)): reduce(s) for s in model.initial_states()}
    parent: dict[int, int | None] = dict.fromkeys(frontier, ROOT)
    found = first_violations(frontier, invariants, {})
    broken_steps: dict[str, tuple] = {}
    kinds = {name: k for k, name in enumerate(model.action_kinds())}
    coverage = Coverage(tuple(kinds))
    coverage.add_initial(len(frontier))
    depth = 0
    result.levels.append(LevelStats(0, len(frontier), 0, len(parent), time.perf_counter() - started, 0.0,
                                    **found_so_far(found, result.witnesses)))
    if on_level:
        on_level(result.levels[-1], len(frontier))

    exhausted = not frontier
    while not (stopped := stop_reason(exhausted=exhausted, found={**found, **broken_steps}, properties=properties,
                                      stop_at_first=stop_at_first, depth=depth, max_depth=max_depth)):
        chosen: dict[int, tuple] = {}
        fired, enabled = empty_counts(len(kinds))
        generated = 0
        unbroken = [p for p in step_properties if p.name not in broken_steps]
        level_broken: dict[str, tuple] = {}
        for fp, state in frontier.items():
            steps = list(model.successors(state))
            for kind in {kinds[action[0]] for action, _ in steps}:
                enabled[kind, 0] += 1
                enabled[kind, ANY_ACTOR] += 1
            for action, succ in steps:
                fired[kinds[action[0]], 0] += 1
                generated += 1
                if unbroken:
                    record_broken_steps(unbroken, fp, state, action, succ, level_broken)
                if representative is not None:
                    succ = representative(succ)
                succ_fp = hash(succ)
                if succ_fp in parent:
                    continue
                best = chosen.get(succ_fp)
                if best is None or fp < best[0] or (fp == best[0] and action < best[1]):
                    chosen[succ_fp] = (fp, action, succ)
        coverage.add_steps(depth + 1, len(frontier), fired, enabled)
        result.generated_states += generated
        broken_steps.update(level_broken)
        if not chosen:
            exhausted = True
            continue
        depth += 1
        frontier = {}
        for succ_fp, (fp, action, succ) in chosen.items():
            parent[succ_fp] = fp
            frontier[succ_fp] = succ
        new = [kinds[action[0]] for _, action, _ in chosen.values()]
        coverage.add_new(new_counts(np.array(new), np.zeros(len(new), np.int64), len(kinds)))
        found.update(first_violations(frontier, invariants, found))
        result.levels.append(LevelStats(depth, len(frontier), generated, len(parent), time.perf_counter() - started,
                                        0.0, **found_so_far({*found, *broken_steps}, result.witnesses)))
        if on_level:
            on_level(result.levels[-1], len(frontier))

    result.stopped = stopped
    result.distinct_states = len(parent)
    result.depth = depth
    result.coverage, result.actions = coverage, coverage.actions()
    def path_to(fp: int) -> list[int]:
        path = [fp]
        while parent[path[-1]] is not ROOT:
            path.append(parent[path[-1]])
        return path[::-1]

    key = (lambda state: fingerprint(representative(state))) if representative else fingerprint
    for prop in properties:
        if prop.name in found:
            result.violations[prop.name] = trace_from_fingerprints(model, prop.name, path_to(found[prop.name]), key)
        elif prop.name in broken_steps:
            fp, _ = broken_steps[prop.name]
            result.violations[prop.name] = trace_ending_with_step(model, prop, path_to(fp), key)
    result.seconds = time.perf_counter() - started
    return result
