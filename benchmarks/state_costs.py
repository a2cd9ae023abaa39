"""Where a model's state costs its time: the parts of expanding one state, timed apart.

A breadth-first search spends, per state it expands, the time to compute its successors (the
model's actions), and per successor the time to check the invariants, to reduce it to its
orbit's representative under replica symmetry (`search_template.canonical`) and to fingerprint it,
plus the visited-set lookup. This benchmark takes a sample of reachable states (the states of
seeded random walks, the same every run), and times each part in a compiled loop over the
sample: ns per expanded state for successors, and ns per successor for the rest. Prints JSON on
stdout and a table on stderr.

    python -m benchmarks.state_costs                              # fetch kip320, 3 replicas
    python -m benchmarks.state_costs --model spec --variant kip320
    python -m benchmarks.state_costs --variant kip966 --bounds replicas=4,min-insync-replicas=2,flush=async,\
        log-size=2,max-records=2,max-crashes=1,max-epoch=3      # the four-replica Last Replica Standing
"""

from __future__ import annotations

import time

import click
import numpy as np
from numba import njit

from checker.commands.common import model_and_properties
from checker.kernel.fingerprint import fingerprints
from checker.kernel.layout_record import as_record, is_layout
from checker.kernel.prng import draw, walk_seed
from checker.kernel.symmetry import permutations
from checker.kernel.warm import compile_all

from .case import parse_bounds
from .common import emit


def sample_states(model, walks: int, depth: int, seed: int = 1) -> np.ndarray:
    """The packed states of `walks` uniform random walks of up to `depth` steps (each walk's
    states after its first step), as rows."""
    kernel = model.kernel
    start = kernel.encode(model.initial_states()[0])
    rows = []
    for walk in range(walks):
        state, row = np.uint64(walk_seed(seed, walk)), start
        for _ in range(depth):
            steps = kernel.successor_rows(row)
            if not steps:
                break
            state, pick = draw(np.uint64(state), len(steps))
            row = steps[int(pick)][1]
            rows.append(row)
    return np.array(rows, np.int8)


@njit  # not cached: it takes the model's compiled functions as arguments
def _time_parts(successors, violations, canonical, rows, lay, perms, mask, buf, acts, tally, best, fps, scratch,
                part):
    """One pass over `rows`: part 0 computes successors only; 1 also checks the invariants of
    `mask` on each; 2 also reduces each to its representative under `perms` (into `best`, a row
    per successor); 3 also fingerprints a state's representatives together, as the search does
    (`fingerprints`). Returns the successors seen (and a checksum, so nothing is optimised
    away)."""
    total, check = 0, 0
    for i in range(rows.shape[0]):
        n = successors(rows[i], lay, buf, acts, tally)
        total += n
        for j in range(n):
            if part >= 1:
                check += violations(buf[j], lay, mask)
            if part >= 2:
                canonical(buf[j], lay, perms, best[j], scratch)
                check += best[j, 0]
        if part >= 3:
            fingerprints(best, n, fps)
            check ^= fps[0]
    return total, check


def measure(model, rows: np.ndarray, repeat: int) -> dict:
    """The best of `repeat` timings of each cumulative part, turned into the cost of each part
    alone (ns per expanded state for successors, ns per successor for the rest)."""
    kernel, search = model.kernel, model.kernel.search
    lay, room = kernel.layout, kernel.max_successors
    lay = as_record(lay) if is_layout(lay) else lay  # as the search's kernels take it
    buf, acts = np.zeros((room, kernel.width), np.int8), np.zeros(room, np.int64)
    tally = kernel.new_tally()
    best, fps, scratch = np.zeros((room, kernel.width), np.int8), np.zeros(room, np.int64), np.zeros(kernel.width, np.int8)
    perms = permutations(kernel.replicas, True)
    mask = (1 << len(kernel.invariant_names)) - 1
    seconds, successors = [], 0
    for part in range(4):
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            successors, _ = _time_parts(search.successors, search.violations, search.canonical, rows, lay, perms,
                                        mask, buf, acts, tally, best, fps, scratch, part)
            runs.append(time.perf_counter() - started)
        seconds.append(min(runs))
    alone = [seconds[0]] + [b - a for a, b in zip(seconds, seconds[1:])]
    per_successor = successors / len(rows)
    return {"states": len(rows), "successors_per_state": round(per_successor, 2),
            "successors_ns_per_state": round(1e9 * alone[0] / len(rows)),
            "invariants_ns_per_successor": round(1e9 * alone[1] / successors),
            "canonical_ns_per_successor": round(1e9 * alone[2] / successors),
            "renamings_tried": len(perms),
            "fingerprint_ns_per_successor": round(1e9 * alone[3] / successors),
            "row_bytes": kernel.width}


@click.command()
@click.option("--model", "model_name", default="fetch", show_default=True)
@click.option("--variant", default="kip320", show_default=True)
@click.option("--replicas", default=3, show_default=True)
@click.option("--bounds", default="", help="more bounds: name=value,... (CLI names; replicas=N overrides --replicas)")
@click.option("--walks", default=400, show_default=True, help="random walks whose states are the sample")
@click.option("--depth", default=40, show_default=True, help="steps per walk")
@click.option("--repeat", default=5, show_default=True, help="timings of each part (the best counts)")
def main(model_name, variant, replicas, bounds, walks, depth, repeat):
    """Time the parts of expanding a sample of the model's states."""
    bounds = {"replicas": replicas, **parse_bounds(bounds)}
    model, _ = model_and_properties(model_name, variant, [], bounds)
    compile_all(model.kernel, model.initial_states()[0])
    rows = sample_states(model, walks, depth)
    described = ", ".join(f"{name}={value}" for name, value in bounds.items())
    emit("state costs", [{"model": f"{model_name} {variant}, {described}", **measure(model, rows, repeat)}])


if __name__ == "__main__":
    main()
