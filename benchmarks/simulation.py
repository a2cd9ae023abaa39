"""Simulation, two ways.

Throughput: states visited per second per core, on the local engine (one core) and on Spark
(`--master`, two cores by default), for the same seed and number of walks, so both engines take
exactly the same walks, with the ratio of Spark's per-core rate to the local engine's.

Finds (`--finds`): how soon steered walks find the committed-record losses that need a long
run of rare steps, as `replcheck simulate --model fetch --variant V --replicas R --invariant
committed-survives --seconds S --seed K` runs them (embedded Spark, `--master`): kip101 and
kip279 at 3 replicas for 60 s, and hw, kip101 and kip279 at 5 replicas for 300 s, each for
`--seeds` seeds from 0 (5 at 3 replicas, `--rf5-seeds` at 5). Per target: in how many seeds
the loss was found, the median time to the first find (a seed that found nothing counts as
never, so the median is "-" when most found nothing), and the shown trace's length. Each run
takes its full time: a simulation does not stop at its first find.

Both print JSON on stdout and a table on stderr.

    python -m benchmarks.simulation                         # fetch hw, 3 replicas, 40,000 walks (about 10 s)
    python -m benchmarks.simulation --walks 200000
    python -m benchmarks.simulation --finds                 # about 25 minutes
    python -m benchmarks.simulation --finds --only kip101-3 --seeds 5
"""

from __future__ import annotations

import re
import time

import click

from checker.jobs.engines import simulation_session
from checker.progress import prepare_kernels
from invariants.registry import select
from model.registry import build_model

from .common import emit


FIND_TARGETS = {"kip101-3": ("kip101", 3, 60), "kip279-3": ("kip279", 3, 60), "hw-5": ("hw", 5, 300),
                "kip101-5": ("kip101", 5, 300), "kip279-5": ("kip279", 5, 300)}
"""The losses `--finds` looks for: (variant, replicas, seconds per run)."""


@click.command()
@click.option("--model", "model_name", default="fetch", show_default=True)
@click.option("--variant", default="hw", show_default=True)
@click.option("--replicas", default=3, show_default=True)
@click.option("--walks", default=40_000, show_default=True)
@click.option("--max-depth", default=50, show_default=True)
@click.option("--master", default="local[2]", show_default=True)
@click.option("--finds", is_flag=True, help="measure how soon steered walks find the deep committed-record losses")
@click.option("--seeds", default=5, show_default=True, help="--finds: seeds per target at 3 replicas")
@click.option("--rf5-seeds", default=1, show_default=True, help="--finds: seeds per target at 5 replicas")
@click.option("--only", default=None, help=f"--finds: these targets only, comma-separated ({', '.join(FIND_TARGETS)})")
def main(model_name, variant, replicas, walks, max_depth, master, finds, seeds, rf5_seeds, only):
    """Run the same walks on both engines and report their rates (or, with --finds, how soon
    the deep losses are found)."""
    if finds:
        find_losses(master, seeds, rf5_seeds, only.split(",") if only else list(FIND_TARGETS))
        return
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


def find_losses(master: str, seeds: int, rf5_seeds: int, targets: list[str]) -> None:
    """Per target, run the simulation once per seed for its full time and report how many
    seeds found the loss and the median time to the first find."""
    from checker.commands.simulate import steered_toward
    from checker.simulation.shorten import shorten

    rows = []
    with simulation_session("spark", master=master) as simulate:
        for name in targets:
            variant, replicas, seconds = FIND_TARGETS[name]
            properties = select("fetch", ["committed-survives"])
            model = build_model("fetch", variant, ghost=True, replicas=replicas)
            prepare_kernels([model], walks=True)
            times, lengths, walks = [], [], []
            for seed in range(seeds if replicas == 3 else rf5_seeds):
                tally = simulate(model, properties, walks=None, seconds=seconds, max_depth=50, swarm=False,
                                 weights="mixed", seed=seed, steer=steered_toward("auto", properties))
                walks.append(tally.walks)
                found = tally.found.get("committed-survives")
                times.append(tally.first_found.get("committed-survives"))
                if found is not None:
                    lengths.append(len(shorten(model, properties[0], found.actions, True).trace))
            ordered = sorted(times, key=lambda t: float("inf") if t is None else t)
            median = ordered[(len(ordered) - 1) // 2]
            rows.append({"target": f"{variant}, {replicas} replicas, {seconds} s", "seeds": len(times),
                         "found_in": sum(t is not None for t in times),
                         "median_seconds_to_find": "-" if median is None else round(median, 1),
                         "seconds_to_find": [None if t is None else round(t, 1) for t in times],
                         "median_walks_per_run": sorted(walks)[(len(walks) - 1) // 2],
                         "shortest_trace": min(lengths) if lengths else "-"})
    emit("simulation finds", rows)


if __name__ == "__main__":
    main()
