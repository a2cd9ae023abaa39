"""Simulation on Spark: walkers as Spark tasks.

Each task builds the model's walker once and runs the walks whose numbers are its own
(task i of T runs walks i, i+T, i+2T, ...; steered walks share an archive in groups, so it
then runs groups i, i+T, ..., see `checker.simulation.splitting`), to the given number of walks or until
the deadline, and returns its `Tally`; the driver merges them. Since a walk depends only on
the seed and its number (and, steered, the walks before it in its group), and the shortest
violation is chosen by (length, walk number), the result of a given number of walks is the
same on any cluster and at any task count."""

from __future__ import annotations

import time
from functools import partial

from ..simulation.walks import Tally, run_walks, walker
from ..simulation.splitting import groups, walk_numbers


def simulate_task(records, *, model, properties, walks: int | None, started: float, deadline: float | None,
                  tasks: int, max_depth: int, swarm: bool, weights: str, seed: int, steer: str | None):
    """One task's walks (its one record is its task number) and their tally. `started` (when
    the simulation began) and `deadline` are wall-clock times (time.time()), the same for every
    task."""
    (index,) = list(records)
    walks_here = walker(model, properties, max_depth, swarm, seed, weights, steer)
    numbers = walk_numbers(index, tasks, walks, steer is not None)
    left = None if deadline is None else time.monotonic() + max(deadline - time.time(), 0)
    began = time.monotonic() - (time.time() - started)
    return [run_walks(walks_here.run, numbers, left, Tally(coverage=walks_here.coverage, climbs=walks_here.climbs),
                      started=began)]


def simulate_spark(sc, model, properties, *, walks: int | None, seconds: float | None, max_depth: int,
                   swarm: bool, weights: str, seed: int, steer: str | None = None, tasks: int | None = None) -> Tally:
    """Run the simulation's walks as `tasks` Spark tasks (default: the context's parallelism)
    and merge what they saw."""
    tasks = tasks or sc.defaultParallelism
    if walks is not None:
        tasks = max(min(tasks, groups(walks) if steer is not None else walks), 1)
    started = time.time()
    deadline = None if seconds is None else started + seconds
    body = partial(simulate_task, model=model, properties=list(properties), walks=walks, started=started,
                   deadline=deadline, tasks=tasks, max_depth=max_depth, swarm=swarm, weights=weights, seed=seed,
                   steer=steer)
    tally = Tally()
    for part in sc.parallelize(range(tasks), tasks).mapPartitions(body).collect():
        tally.merge(part)
    return tally
