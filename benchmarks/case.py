"""One benchmark run, in its own process so its peak RSS and wall time are its own:

    python -m benchmarks.case --model spec --variant kip320 --bounds replicas=3,max-epoch=2 \
                              [--symmetry] [--engine local|spark] [--all-invariants | --invariant NAME ...]
                              [--memory-budget-mb N]

Prints one JSON object: distinct and generated states, depth, seconds spent loading or
compiling the kernel, search seconds, generated states per second, peak RSS and peak RSS per
distinct state (whole process, and the growth during the search), and how far the progress
line's projection (`checker.forecast`) was off at one third of the levels; the peak resident
memory of the whole process tree (for Spark: driver, JVM and Python workers together), and a
distributed engine's seconds by phase.
"""

from __future__ import annotations

import json
import threading
import time

import click

from checker.forecast import MIN_LEVELS, forecast
from checker.memory import resident_bytes

from .common import peak_rss_bytes


def parse_bounds(text: str) -> dict:
    """'replicas=3,flush=async' -> {'replicas': 3, 'flush': 'async'} (on/off become flags)."""
    values = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        flag = {"on": True, "off": False}.get(value)
        values[key.replace("-", "_")] = flag if flag is not None else int(value) if value.isdigit() else value
    return values


@click.command()
@click.option("--model", "model_name", default="spec")
@click.option("--variant", default="kip320")
@click.option("--bounds", default="", help="name=value,... (CLI names)")
@click.option("--symmetry", is_flag=True)
@click.option("--engine", type=click.Choice(["local", "spark"]), default="local")
@click.option("--master", default="local[2]")
@click.option("--partitions", type=int, default=2)
@click.option("--all-invariants", is_flag=True,
              help="check every invariant that applies to the model (ghost state kept); default: none")
@click.option("--invariant", "names", multiple=True, help="check these invariants (repeatable)")
@click.option("--memory-budget-mb", "memory_budget", type=int, default=None,
              help="Spark only: MiB for each task's in-memory visited set (the rest spills to disk)")
@click.option("--compile-only", is_flag=True, help="only load (or compile) the model's kernel, and report its seconds")
def main(model_name, variant, bounds, symmetry, engine, master, partitions, all_invariants, names, memory_budget,
         compile_only):
    """Run one exploration to the end and print its figures as JSON."""
    started = time.perf_counter()
    from checker.jobs.engines import engine_session
    from checker.invariant import applies
    from checker.progress import prepare_kernels
    from invariants.registry import select
    from model.registry import build_model

    invariants = select(model_name, names) if names else select(model_name, []) if all_invariants else []
    model = build_model(model_name, variant, ghost=any(i.needs_ghost for i in invariants), **parse_bounds(bounds))
    invariants = [i for i in invariants if applies(i, model)]
    imported = time.perf_counter()
    prepare_kernels([model])
    compiled = time.perf_counter()
    if compile_only:
        print(json.dumps({"import_seconds": round(imported - started, 3), "kernel_seconds": round(compiled - imported, 3)}))
        return
    samples = []
    budget = memory_budget * 2**20 if memory_budget else None
    with engine_session(engine, master=master, partitions=partitions, memory_budget=budget) as explore, TreePeak() as tree:
        before = peak_rss_bytes()
        result = explore(model, invariants, stop_at_first=False, symmetry=symmetry,
                         on_level=lambda stats, frontier: samples.append(resident_bytes()))
        rss = peak_rss_bytes()
    verdicts = {name: result.verdict(name) for name in result.invariants}
    print(json.dumps({
        "distinct_states": result.distinct_states,
        "generated_states": result.generated_states,
        "depth": result.depth,
        "verdicts": verdicts,
        "trace_lengths": {name: len(t) for name, t in result.violations.items()},
        "import_seconds": round(imported - started, 3),
        "kernel_seconds": round(compiled - imported, 3),
        "search_seconds": round(result.seconds, 3),
        "generated_per_second": round(result.generated_states / result.seconds) if result.seconds else None,
        "peak_rss_mb": round(rss / 2**20, 1),
        "peak_rss_bytes_per_state": round(rss / result.distinct_states, 1),
        "search_rss_bytes_per_state": round((rss - before) / result.distinct_states, 1),
        "tree_peak_rss_mb": round(tree.peak / 2**20, 1),
        "tree_peak_rss_bytes_per_state": round(tree.peak / result.distinct_states, 1),
        "phase_seconds": {k: round(v, 3) for k, v in result.phase_seconds.items()},
        "forecast_at_one_third": forecast_error(result, samples),
    }))


class TreePeak:
    """The peak resident memory of this process and its descendants (for Spark: the JVM and
    its Python workers too), sampled every `EVERY` seconds while the block runs."""

    EVERY = 0.05

    def __enter__(self):
        self.peak, self.done = resident_bytes(), threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        while not self.done.wait(self.EVERY):
            self.peak = max(self.peak, resident_bytes())

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def forecast_error(result, samples: list[int]) -> dict | None:
    """The projection the progress line showed after the first third of the levels, against
    what the search then did: states, seconds left and peak memory (the process tree's resident
    bytes after each level), each as projected / actual."""
    seen = max(MIN_LEVELS, round(len(result.levels) / 3))
    ahead = forecast(result.levels[:seen], samples[:seen])
    if ahead is None:
        return None
    left = result.levels[-1].seconds_total - result.levels[seen - 1].seconds_total
    return {"levels_seen": seen, "levels": len(result.levels),
            "states_ratio": round(ahead.total_states / result.distinct_states, 3),
            "seconds_left_ratio": round(ahead.remaining_seconds / left, 3) if left > 0 else None,
            "peak_memory_ratio": round(ahead.peak_bytes / max(samples), 3) if ahead.peak_bytes else None}


if __name__ == "__main__":
    main()
