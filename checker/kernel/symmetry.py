"""Symmetry over replica ids: renaming replicas, and the orbit's representative.

A model's `permute(s, lay, perm, t)` writes into `t` the state `s` with every replica id r
renamed perm[r] (slots holding replica ids and replica sets renamed, per-replica blocks
moved). The representative of a state's orbit is the lexicographically smallest row among
all renamings (`search_template.canonical`); engines store one state per orbit.
"""

from __future__ import annotations

import itertools

import numpy as np

from .jit import kernel


@kernel
def rename(perm, r):
    """Replica id r renamed (NONE, any negative id, stays)."""
    return perm[r] if r >= 0 else r


@kernel
def rename_set(perm, replicas):
    """A replica set (bitmask) with every member renamed."""
    out = 0
    for r in range(perm.shape[0]):
        if (replicas >> r) & 1:
            out |= 1 << perm[r]
    return out


@kernel
def row_less(a, b):
    """Row a comes before row b in lexicographic order."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return a[i] < b[i]
    return False


def permutations(replicas: int, symmetric: bool) -> np.ndarray:
    """Every renaming of `replicas` ids as rows (the identity first), or the identity alone."""
    ids = range(replicas)
    rows = list(itertools.permutations(ids)) if symmetric else [tuple(ids)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), replicas)
