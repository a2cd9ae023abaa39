"""Symmetry over replica ids: renaming replicas, and the orbit's representative.

A renaming `perm` is a row of int64 (`renaming`): perm[r] is replica r's new id, and
perm[SETS + m] the replica set (bitmask) m renamed, so renaming an id or a set is one lookup.
A model's `permute(s, lay, perm, t)` writes into `t` the state `s` with every replica id r
renamed perm[r] (slots holding replica ids and replica sets renamed, per-replica blocks
moved). The representative of a state's orbit is the lexicographically smallest row among
all renamings (`search_template.canonical`); engines store one state per orbit. A model's
`permute_head(s, lay, perm, t)` writes only the first slots of that renaming (the part that
names few replicas, such as the controller's record) and returns their count, and its
`permute_part(s, lay, perm, part, t)` writes the renaming's parts after the head one at a time,
in the order of the renamed row's slots (part 1, 2, ...; say, one replica's block each), each
returning the slot after it (the row's width after the last; a part may write earlier slots
again, with their renamed values). So the search renames in full only the renamings whose head
ties with the smallest, and each of those only as far as it ties.

Before any head is written, a model's `head_rank(s, lay, perm)` ranks the renamings by a number
that orders them as their renamed rows order, coarser at most: a renaming with a smaller rank
renames s to a smaller row (equal ranks tell nothing). The search writes heads only for the
renamings of the smallest rank: for `fetch` and `spec` the rank is the renamed leader and sets
of the head, a few table lookups instead of a head written and compared per renaming. A model
with no such number ranks every renaming the same (`unranked`).
"""

from __future__ import annotations

import itertools

import numpy as np

from .jit import kernel

SETS = 8
"""Where a renaming's table of replica sets starts (after room for the ids of up to 8 replicas)."""


def renaming(ids) -> np.ndarray:
    """The renaming of replica r to ids[r], as the row the kernels take: the new ids, then from
    `SETS` on every replica set (bitmask) of len(ids) replicas renamed."""
    ids = [int(r) for r in ids]
    assert len(ids) <= SETS and sorted(ids) == list(range(len(ids))), ids
    row = np.zeros(SETS + (1 << len(ids)), np.int64)
    row[:len(ids)] = ids
    for members in range(1 << len(ids)):
        row[SETS + members] = sum(1 << new for old, new in enumerate(ids) if (members >> old) & 1)
    return row


@kernel
def rename(perm, r):
    """Replica id r renamed (NONE, any negative id, stays)."""
    return perm[np.uint64(r)] if r >= 0 else r


@kernel
def rename_set(perm, replicas):
    """A replica set (bitmask) with every member renamed."""
    return perm[np.uint64(SETS) + np.uint64(replicas)]


@kernel
def renamed_to(perm, replicas, r):
    """The replica (one of `replicas`) that perm renames r: the inverse renaming."""
    for old in range(replicas):
        if perm[old] == r:
            return old
    return -1


@kernel
def copy_slots(s, source, t, target, count):
    """Copy `count` slots of row s from `source` on into row t from `target` on. (Indices are
    unsigned: numba's wraparound of negative indices would keep the loop from compiling to a
    block copy, which makes a renaming several times slower.)"""
    start, to = np.uint64(source), np.uint64(target)
    for i in range(np.uint64(count)):
        t[to + i] = s[start + i]


@kernel
def move_blocks(s, perm, replicas, base, stride, t):
    """Copy row s into t with the block of each of the `replicas` replicas r (`stride` slots
    from base + r * stride) moved to replica perm[r]'s place, every other slot as it is."""
    end = base + stride * replicas
    copy_slots(s, 0, t, 0, base)
    copy_slots(s, end, t, end, s.shape[0] - end)
    for r in range(replicas):
        copy_slots(s, base + r * stride, t, base + perm[r] * stride, stride)


@kernel
def unranked(s, lay, perm):
    """The `head_rank` of a model that has none: every renaming ranks the same."""
    return 0


@kernel
def compare_slots(a, b, start, end):
    """How rows a and b compare on their slots start..end-1 (lexicographically): -1, 0 or 1."""
    for i in range(np.uint64(start), np.uint64(end)):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


def permutations(replicas: int, symmetric: bool) -> np.ndarray:
    """Every renaming of `replicas` ids as rows (`renaming`; the identity first), or the
    identity alone."""
    ids = range(replicas)
    return np.array([renaming(p) for p in (itertools.permutations(ids) if symmetric else [ids])])
