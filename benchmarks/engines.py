"""The Spark engine against the local engine on the same model: `kip320`, 3 replicas.

For each bounds it runs the local engine, then the Spark engine on a fresh embedded master,
and prints (JSON on stdout, a table on stderr): distinct states, search seconds, distinct
states per second and seconds per BFS level for each engine, Spark's start-up time, Spark's
own overhead per level (level wall time minus its slowest task's own work), the slowest task's
seconds in each phase of a level summed over the levels (`checker.spark.shard.PHASES`), and the
ratio spark/local of search times.

    python -m benchmarks.engines                  # 0.74 M and 1.7 M states
    python -m benchmarks.engines --bounds 3/2/2/3 # the 10 M-state run (several minutes)
"""

from __future__ import annotations

import statistics
import time

import click

from checker.local import explore
from model.registry import build_model

from .common import emit


def _per_level(result) -> list[float]:
    times = [lv.seconds_total for lv in result.levels]
    return [round(b - a, 3) for a, b in zip(times, times[1:])]


@click.command()
@click.option("--bounds", "bounds_list", multiple=True, default=("3/2/2/2", "3/2/3/2"), show_default=True,
              help="replicas/log-size/max-records/max-epoch (repeatable)")
@click.option("--variant", default="kip320", show_default=True)
@click.option("--master", default="local[2]", show_default=True)
@click.option("--partitions", default=2, show_default=True)
@click.option("--levels", is_flag=True, help="include every level's seconds in the JSON")
def main(bounds_list, variant, master, partitions, levels):
    """Run both engines on each bounds and report."""
    from checker.spark.engine import explore_spark
    from checker.spark.context import spark_context

    rows = []
    for bounds in bounds_list:
        replicas, log_size, max_records, max_epoch = map(int, bounds.split("/"))
        model = build_model("spec", variant, replicas=replicas, log_size=log_size, max_records=max_records,
                            max_epoch=max_epoch)
        local = explore(model, [])
        started = time.perf_counter()
        with spark_context(master, partitions) as sc:
            startup = time.perf_counter() - started
            spark = explore_spark(sc, model, [], partitions=partitions)
        assert (spark.distinct_states, spark.depth) == (local.distinct_states, local.depth), "engines disagree"
        overhead = [round(wall - lv.task_seconds, 3) for wall, lv in zip(_per_level(spark), spark.levels[1:])]
        row = {
            "bounds": bounds,
            "distinct_states": local.distinct_states,
            "depth": local.depth,
            "local_seconds": round(local.seconds, 2),
            "spark_seconds": round(spark.seconds, 2),
            "ratio_spark_local": round(spark.seconds / local.seconds, 2),
            "local_states_per_s": round(local.states_per_second),
            "spark_states_per_s": round(spark.states_per_second),
            "local_s_per_level": round(local.seconds / local.depth, 3),
            "spark_s_per_level": round(spark.seconds / spark.depth, 3),
            "spark_startup_s": round(startup, 2),
            "spark_overhead_s_per_level_median": round(statistics.median(overhead), 3),
            "spark_overhead_s_per_level_max": round(max(overhead), 3),
            **{f"spark_{phase}_s": round(seconds, 2) for phase, seconds in spark.phase_seconds.items()},
        }
        if levels:
            row["local_level_seconds"] = _per_level(local)
            row["spark_level_seconds"] = _per_level(spark)
        rows.append(row)
    emit("engines", rows)


if __name__ == "__main__":
    main()
