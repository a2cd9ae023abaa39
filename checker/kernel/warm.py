"""Compiling a model's kernel ahead of the search, so the one-time cost shows as its own step."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .expansion import expand_all
from .fingerprint import fingerprint
from .jit import CACHE_DIR
from .symmetry import permutations
from .walk_weights import uniform_weights


def is_compiled(kernel) -> bool:
    """Whether this machine's kernel cache already holds the model's compiled search loop."""
    name = "replcheck_search_" + kernel.module.replace(".", "_")
    return any(Path(CACHE_DIR).glob(f"*/{name}.expand-*.nbi"))


def warm_up(kernel, initial_state) -> None:
    """Compile (or load from the cache) everything a search on `kernel` runs, by expanding
    `initial_state` once with and without symmetry, and taking one step of a random walk."""
    row = kernel.encode(initial_state).reshape(1, -1)
    fps = np.array([fingerprint(row[0])], np.int64)
    everything = (1 << max(len(kernel.invariant_names), 1)) - 1
    steps = (1 << len(kernel.step_property_names)) - 1
    for symmetric in (False, True):
        expand_all(kernel, row, fps, everything, steps, permutations(kernel.replicas, symmetric))
    kernel.successor_rows(row[0])
    room = kernel.max_successors
    kernel.search.walk(row[0], kernel.layout, np.uint64(1), 1, uniform_weights(len(kernel.action_kinds)),
                       everything, steps,
                       np.zeros((room, kernel.width), np.int8), np.zeros(room, np.int64), np.zeros(room, np.int64),
                       np.zeros(1, np.int64), np.zeros(1, np.int64))
