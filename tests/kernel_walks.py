"""Helpers shared by the kernel tests: random reachable packed states, and renamed rows."""

from __future__ import annotations

import numpy as np


def random_walk(model, choices):
    """The packed state reached from the initial state by taking, at each step, the successor
    that `choices` picks (modulo the number enabled); stops early at a deadlock."""
    kernel = model.kernel
    row = kernel.encode(model.initial_states()[0])
    for pick in choices:
        steps = kernel.successor_rows(row)
        if not steps:
            break
        row = steps[pick % len(steps)][1]
    return row


def permuted(kernel, row, perm) -> np.ndarray:
    """The packed row with replica r renamed perm[r], by the model's own `permute`."""
    out = np.zeros_like(row)
    kernel.search.permute(row, kernel.layout, np.array(perm, np.int64), out)
    return out
