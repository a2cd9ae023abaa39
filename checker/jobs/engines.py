"""Choosing an engine: `local` (one process) or `spark` (PySpark, any master).

Each engine runs a model's compiled kernel when it has one (`checker.kernel`), and otherwise
the plain Python search over readable states.

On the default embedded master (no `--master`, no `--partitions`) and without a checkpoint, the
Spark engine first searches in the driver process, and starts Spark only if that search grows
past `SMALL` distinct states (its levels are reported as they come, so Spark's search reports
its levels from depth 0 again): a small search is over before a JVM could start (the README's
main job, four searches of at most 123,311 states, takes 1.3 s in-process against 5.6 s on
`local[2]`). Such a result says so in its engine options. Past `SMALL` the in-process search is
dropped (about a second of work) and Spark searches from the initial states.
"""

from __future__ import annotations

import itertools
import time
from contextlib import ExitStack, contextmanager
from functools import partial

from ..local import explore

ENGINES = ("spark", "local")
SMALL = 1_000_000
"""Distinct states past which the Spark engine leaves the driver process for Spark."""
IN_PROCESS = f"in the driver process: the search ended within {SMALL:,} states, so Spark was not started"


@contextmanager
def engine_session(engine: str, *, master: str | None = None, partitions: int | None = None,
                   work_dir: str | None = None, memory_budget: int | None = None):
    """Yield an `explore(model, invariants, stop_at_first=..., max_depth=..., on_level=...,
    symmetry=..., saver=...)` function running on the named engine. For `spark`, one Spark
    context (on `master`, default the embedded `local[*]`) serves every call in the block and
    starts at the first call that needs it; with neither `master` nor `partitions` given, small
    searches stay in the driver process (module docstring). `work_dir` holds the scratch files;
    `memory_budget` (bytes) bounds each Spark task's in-memory visited set, and a quarter of it
    each frontier and each level's candidates, of either engine (the rest spills to `work_dir`).
    Raises checker.spark.java.EngineUnavailable when Spark cannot start."""
    if engine == "local":
        yield partial(explore, memory_budget=memory_budget, work_dir=work_dir)
        return
    from ..spark.engine import check_budget, explore_spark
    from ..spark.context import spark_context

    with ExitStack() as stack:
        contexts = []

        def context():
            if not contexts:
                contexts.append(stack.enter_context(spark_context(master or "local[*]", partitions)))
            return contexts[0]

        def explore_on_spark(model, invariants, *, saver=None, on_level=None, **options):
            check_budget(model, memory_budget)  # before Spark starts
            if master is None and partitions is None and saver is None and memory_budget is None:
                small = _in_process(model, invariants, on_level, options)
                if small is not None:
                    return small
            from ..background_compile import finish
            finish()  # Spark's tasks load the compiled kernel
            return explore_spark(context(), model, invariants, partitions=partitions, work_dir=work_dir,
                                 memory_budget=memory_budget, saver=saver, on_level=on_level, **options)

        yield explore_on_spark


@contextmanager
def simulation_session(engine: str, *, master: str | None = None, partitions: int | None = None):
    """Yield a `simulate(model, properties, walks=..., seconds=..., max_depth=..., swarm=...,
    weights=..., seed=..., steer=..., on_batch=...)` function returning the walks' `checker.simulation.walks.Tally`, on the
    named engine: in this process, or as Spark tasks (on `master`, default the embedded
    `local[*]`; `partitions` tasks, default its parallelism). Progress (`on_batch`) is shown
    by the local engine only. Raises checker.spark.java.EngineUnavailable when Spark cannot start."""
    from ..simulation.walks import Tally, run_walks, walker

    if engine == "local":
        def simulate(model, properties, *, walks, seconds, max_depth, swarm, weights, seed, steer=None,
                     on_batch=None):
            walks_here = walker(model, properties, max_depth, swarm, seed, weights, steer)
            numbers = range(walks) if walks is not None else itertools.count()
            deadline = None if seconds is None else time.monotonic() + seconds
            return run_walks(walks_here.run, numbers, deadline,
                             Tally(coverage=walks_here.coverage, climbs=walks_here.climbs), on_batch)
        yield simulate
        return
    from ..spark.context import spark_context
    from ..spark.simulation import simulate_spark

    with spark_context(master or "local[*]", partitions) as sc:
        def simulate_on_spark(model, properties, *, on_batch=None, **options):
            return simulate_spark(sc, model, properties, tasks=partitions, **options)
        yield simulate_on_spark


class _TooBig(Exception):
    """The in-process search passed SMALL states."""


def _in_process(model, invariants, on_level, options):
    """The search run in this process if it ends within SMALL distinct states, else None. Its
    levels go to `on_level` as they come (the first of them within a second on a machine whose
    kernel is still compiling, `checker.background_compile`); one that outgrows SMALL is followed
    by Spark's search, whose levels start again from depth 0, as the next search of a `compare`
    does."""

    def watch(stats, frontier):
        if stats.distinct_total > SMALL:
            raise _TooBig
        if on_level:
            on_level(stats, frontier)

    try:
        result = explore(model, invariants, on_level=watch, **options)
    except _TooBig:
        return None
    result.engine, result.engine_options = "spark", {"ran": IN_PROCESS}
    return result
