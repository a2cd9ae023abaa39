"""Independent searches side by side: each one a whole search of one rule set for one property,
run in this process one after another (the local engine) or as Spark tasks, one search to a
task (the spark engine), so that the many small searches of an ablation use every core.

A search that outgrows one task (past `ONE_TASK` distinct states) is given up there and, once
the other tasks of its batch are done, searched again from the start by the Spark engine
itself, its frontier and visited set sharded over every task (`checker.spark.engine.explore_spark`):
one switched rule can make a space a hundred times larger than its neighbours', and one worker
process would then hold all of it while the other cores idle. The cost is the abandoned start,
at most `ONE_TASK` states.

A job names its model, rule set, bounds and property, and comes back with the verdict, the
counts and, when the property fails, the shortest trace as a trace file's JSON document, which
the driver reads back with `traces.store.trace_from_json` (replaying it through the model).
Every job is the local engine's search, so a job's answer does not depend on where it ran."""

from __future__ import annotations

import time
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, NamedTuple

ONE_TASK = 10_000_000
"""Distinct states (orbits under symmetry) past which a Spark job leaves its single task for a
distributed search: about 1 GB of one worker's memory, a few minutes of one core."""


class Job(NamedTuple):
    """One search: `prop` (an invariant or step property of `model`) under the rule set
    `variant` at `bounds`, with or without symmetry reduction, and with or without stubborn
    sets (`reduce`, `checker.reduce`)."""

    model: str
    variant: str
    bounds: dict
    prop: str
    symmetry: bool
    reduce: bool = False


class Outcome(NamedTuple):
    """What a job found: whether the property fails, the orbits (or states) and depth explored,
    the search's seconds, and the shortest counterexample as a trace document (None when the
    property holds)."""

    variant: str
    violated: bool
    distinct_states: int
    depth: int
    seconds: float
    trace: dict[str, Any] | None


class _Outgrown(Exception):
    """A job in one task passed ONE_TASK distinct states."""


def run_job(job: Job, on_level=None, explore=None) -> Outcome:
    """Search the job's rule set to its first violation of the property, or to the end, with
    `explore` (default: the local engine's; `on_level(stats, frontier)` is called after each
    level: a progress line)."""
    from checker.local import explore as explore_here
    from checker.reduce import reducing
    from invariants.registry import select
    from model.registry import build_model
    from traces.store import trace_to_json

    (prop,) = select(job.model, [job.prop])
    model = build_model(job.model, job.variant, ghost=prop.needs_ghost, **job.bounds)
    started = time.monotonic()
    result = reducing(explore or explore_here, job.reduce)(model, [prop], stop_at_first=True, symmetry=job.symmetry,
                                                           on_level=on_level)
    trace = result.violations.get(prop.name)
    return Outcome(model.variant, trace is not None, result.distinct_states, result.depth,
                   time.monotonic() - started, trace_to_json(trace, model) if trace is not None else None)


def run_in_one_task(job: Job, limit: int = ONE_TASK) -> Outcome | None:
    """The job searched in this (Spark worker) process, on one thread (a task holds one core),
    or None when it passed `limit` distinct states."""
    from checker.kernel.expansion import use_threads

    def watch(stats, frontier):
        if stats.distinct_total > limit:
            raise _Outgrown

    use_threads(1)
    try:
        return run_job(job, watch)
    except _Outgrown:
        return None


@contextmanager
def job_session(engine: str, *, master: str | None = None, one_task: int = ONE_TASK, work_dir: str | None = None,
                memory_budget: int | None = None):
    """Yield `run(jobs) -> outcomes` (in the jobs' order) on the named engine: here, one job
    after another, or as Spark tasks (on `master`, default the embedded `local[*]`), one job to
    a task, and a job past `one_task` states as a distributed search afterwards (module
    docstring), its tasks' scratch files under `work_dir` and at most `memory_budget` bytes of
    visited set in each task's memory. Raises checker.spark.java.EngineUnavailable when Spark cannot
    start."""
    if engine == "local":
        yield _run_here
        return
    from ..progress import level_progress
    from ..spark.engine import explore_spark
    from ..spark.context import spark_context

    with spark_context(master or "local[*]") as sc:
        def run_on_spark(jobs: list[Job]) -> list[Outcome]:
            if not jobs:
                return []
            outcomes = sc.parallelize(list(jobs), len(jobs)).map(partial(run_in_one_task, limit=one_task)).collect()
            for i, job in enumerate(jobs):
                if outcomes[i] is None:
                    with level_progress(f"{job.variant} (past {one_task:,} states: on every task)") as on_level:
                        outcomes[i] = run_job(job, on_level, partial(explore_spark, sc, work_dir=work_dir,
                                                                    memory_budget=memory_budget))
            return outcomes
        yield run_on_spark


def _run_here(jobs: list[Job]) -> list[Outcome]:
    """The jobs one after another in this process, each with a progress line on a terminal."""
    from ..progress import level_progress

    outcomes = []
    for i, job in enumerate(jobs, 1):
        with level_progress(f"{job.variant} ({i} of {len(jobs)})") as on_level:
            outcomes.append(run_job(job, on_level))
    return outcomes


Runner = Callable[[list[Job]], list[Outcome]]
