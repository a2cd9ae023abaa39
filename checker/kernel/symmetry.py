"""Symmetry over replica ids: renaming replicas, and the orbit's representative.

A model's `permute(s, lay, perm, t)` writes into `t` the state `s` with every replica id r
renamed perm[r] (slots holding replica ids and replica sets renamed, per-replica blocks
moved). The representative of a state's orbit is the lexicographically smallest row among
all renamings (`search_template.canonical`); engines store one state per orbit. A model's
`permute_head(s, lay, perm, t)` writes only the first slots of that renaming (the part that
names few replicas, such as the controller's record) and returns their count, so the search
renames in full only the renamings whose head ties with the smallest.
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
def move_blocks(s, perm, base, stride, t):
    """Copy row s into t with each replica r's block (`stride` slots from base + r * stride)
    moved to replica perm[r]'s place, every other slot as it is. (Indices are unsigned: numba's
    wraparound of negative indices would keep these loops from compiling to block copies, which
    makes a renaming several times slower.)"""
    width, start, size = np.uint64(s.shape[0]), np.uint64(base), np.uint64(stride)
    end = start + size * np.uint64(perm.shape[0])
    for i in range(start):
        t[i] = s[i]
    for i in range(end, width):
        t[i] = s[i]
    for r in range(perm.shape[0]):
        source, target = start + np.uint64(r) * size, start + np.uint64(perm[r]) * size
        for i in range(size):
            t[target + i] = s[source + i]


@kernel
def row_less(a, b):
    """Row a comes before row b in lexicographic order."""
    return compare_prefix(a, b, a.shape[0]) < 0


@kernel
def compare_prefix(a, b, n):
    """How rows a and b compare on their first n slots: -1, 0 or 1."""
    for i in range(np.uint64(n)):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


def permutations(replicas: int, symmetric: bool) -> np.ndarray:
    """Every renaming of `replicas` ids as rows (the identity first), or the identity alone."""
    ids = range(replicas)
    rows = list(itertools.permutations(ids)) if symmetric else [tuple(ids)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), replicas)
