"""Simulation throughput: states visited per second per core, on the local engine (one core)
and on Spark (`--master`, two cores by default), for the same seed and number of walks, so
both engines take exactly the same walks. Prints JSON on stdout and a table on stderr, with
the ratio of Spark's per-core rate to the local engine's.

    python -m benchmarks.simulation                         # fetch hw, 3 replicas, 40,000 walks (about 10 s)
    python -m benchmarks.simulation --walks 200000
"""

from __future__ import annotations

import re
import time

import click

from checker.engines import simulation_session
from checker.progress import prepare_kernels
from invariants.registry import select
from model.registry import build_model

from .common import emit


@click.command()
@click.option("--model", "model_name", default="fetch", show_default=True)
@click.option("--variant", default="hw", show_default=True)
@click.option("--replicas", default=3, show_default=True)
@click.option("--walks", default=40_000, show_default=True)
@click.option("--max-depth", default=50, show_default=True)
@click.option("--master", default="local[2]", show_default=True)
def main(model_name, variant, replicas, walks, max_depth, master):
    """Run the same walks on both engines and report their rates."""
    properties = select(model_name, [])
    model = build_model(model_name, variant, ghost=any(p.needs_ghost for p in properties), replicas=replicas)
    prepare_kernels([model], walks=True)
    cores = {"local": 1, "spark": int(re.fullmatch(r"local\[(\d+)\]", master).group(1)) if "[" in master else 1}
    rows = {}
    for engine in ("local", "spark"):
        with simulation_session(engine, master=master) as simulate:
            started = time.perf_counter()
            tally = simulate(model, properties, walks=walks, seconds=None, max_depth=max_depth, swarm=False, weights="mixed",
                             seed=0)
            seconds = time.perf_counter() - started
        rows[engine] = {"engine": engine if engine == "local" else f"spark {master}", "walks": tally.walks,
                        "states_visited": tally.states, "wall_seconds": round(seconds, 2),
                        "states_per_second": round(tally.states / seconds),
                        "states_per_second_per_core": round(tally.states / seconds / cores[engine])}
    ratio = rows["spark"]["states_per_second_per_core"] / rows["local"]["states_per_second_per_core"]
    for row in rows.values():
        row["ratio_spark_local_per_core"] = round(ratio, 2)
    emit("simulation", list(rows.values()))


if __name__ == "__main__":
    main()
