"""Compiling a model's search on two cores: while this process compiles the search loop with the
model's actions (`successors`, most of the work), a second process compiles, from the same
sources into the same cache, what the loop calls besides: the invariants (`violated_rows`), the
symmetry reduction (`canonical`), the step properties (`broken_steps`) and the visited set. Each
of those is compiled there as a call from Python, with the array types the loop passes it, so
when this process reaches them inside the loop, numba loads them from the cache instead of
compiling them again. Nothing depends on the helper: if it is slower, gone or fails, this
process compiles what is missing itself, and the compiled code is the same either way.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from contextlib import contextmanager

import numpy as np


@contextmanager
def helper(kernel, row: np.ndarray, invariants: int, steps: int):
    """Run the block with the helper process compiling beside it (module docstring); the helper
    is ended when the block ends, however it ends."""
    if (os.cpu_count() or 1) < 2:
        yield
        return
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=_compile_rest, daemon=True,
                              args=(kernel.module, kernel.layout, row, invariants, steps, kernel.replicas))
    try:
        process.start()
    except OSError:
        yield
        return
    try:
        yield
    finally:
        if process.is_alive():
            process.terminate()
        process.join()


def _compile_rest(module: str, layout, row: np.ndarray, invariants: int, steps: int, replicas: int) -> None:
    """The helper's work (module docstring): quiet, and deaf to the Ctrl-C its parent handles."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr = sys.stdout = open(os.devnull, "w")
    from .fingerprint import fingerprint
    from .instantiate import search_module
    from .symmetry import permutations

    search = search_module(module)
    fps = np.array([fingerprint(row[0])], np.int64)
    search.violated_rows(row, layout, invariants, np.zeros(1, np.int64))
    width = row.shape[1]
    search.canonical(row[0], layout, permutations(replicas, True), np.zeros(width, np.int8), np.zeros(width, np.int8))
    search.broken_steps(row[0], 0, row[0].copy(), layout, steps)
    visited_set_calls(fps)


def visited_set_calls(fps: np.ndarray) -> None:
    """Call what the search calls on its visited set of fingerprints (lookups, admissions, a
    table's growth), so that each is compiled, or loaded from the cache."""
    from .visited_set import VisitedSet, _rehash

    visited = VisitedSet(1, 1)
    visited.admit(fps)
    visited.contains_all(fps)
    _rehash(visited.tables[0], np.zeros(2 * len(visited.tables[0]), np.int64))
