"""Simulation on Spark: walkers as Spark tasks.

Each task builds the model's walker once and runs the walks whose numbers are its own
(task i of T runs walks i, i+T, i+2T, ...), to the given number of walks or until the
deadline, and returns its `Tally`; the driver merges them. Since a walk depends only on the
seed and its number, and the shortest violation is chosen by (length, walk number), the
result of a given number of walks is the same on any cluster and at any task count."""

from __future__ import annotations

import itertools
import time
from functools import partial

from .simulation import Tally, run_walks, walker


def simulate_task(records, *, model, properties, walks: int | None, deadline: float | None, tasks: int,
                  max_depth: int, swarm: bool, weights: str, seed: int):
    """One task's walks (its one record is its task number) and their tally. `deadline` is
    wall-clock time (time.time()), the same for every task."""
    (index,) = list(records)
    walks_here = walker(model, properties, max_depth, swarm, seed, weights)
    numbers = range(index, walks, tasks) if walks is not None else itertools.count(index, tasks)
    left = None if deadline is None else time.monotonic() + max(deadline - time.time(), 0)
    return [run_walks(walks_here.run, numbers, left, Tally(coverage=walks_here.coverage))]


def simulate_spark(sc, model, properties, *, walks: int | None, seconds: float | None, max_depth: int,
                   swarm: bool, weights: str, seed: int, tasks: int | None = None) -> Tally:
    """Run the simulation's walks as `tasks` Spark tasks (default: the context's parallelism)
    and merge what they saw."""
    tasks = tasks or sc.defaultParallelism
    if walks is not None:
        tasks = max(min(tasks, walks), 1)
    deadline = None if seconds is None else time.time() + seconds
    body = partial(simulate_task, model=model, properties=list(properties), walks=walks, deadline=deadline,
                   tasks=tasks, max_depth=max_depth, swarm=swarm, weights=weights, seed=seed)
    tally = Tally()
    for part in sc.parallelize(range(tasks), tasks).mapPartitions(body).collect():
        tally.merge(part)
    return tally
