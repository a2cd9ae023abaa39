"""Renaming replicas in a packed `spec` state, for symmetry reduction: replica blocks move,
and every slot holding a replica id (quorum leader, request leaders, each replica's leader)
or a replica set (quorum ISR, request ISRs, each replica's ISR view) is renamed. Records hold
no replica ids."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.symmetry import move_blocks, rename, rename_set

from .layout import ISR, LEADER, QUORUM_ISR, QUORUM_LEADER, REQUESTS, request_sent


@kernel
def permute_head(s, lay, perm, t):
    """Write into t's first slots the quorum's record of `s` (epoch, leader, ISR, after the
    record counter) with every replica r renamed perm[r]. Returns how many slots that is: a
    renamed row starts with them, so renamings can be compared on them before the rest is
    renamed."""
    for i in range(REQUESTS):
        t[i] = s[i]
    t[QUORUM_LEADER] = rename(perm, s[QUORUM_LEADER])
    t[QUORUM_ISR] = rename_set(perm, s[QUORUM_ISR])
    return REQUESTS


@kernel
def head_rank(s, lay, perm):
    """The renamed quorum leader and ISR as one number that orders renamings as their heads
    order (`permute_head`; the head's other slots are the same in all renamings, and the ISR,
    below 2**7, fits a byte)."""
    return rename(perm, s[QUORUM_LEADER]) * 256 + rename_set(perm, s[QUORUM_ISR])


@kernel
def permute(s, lay, perm, t):
    """Write into `t` the state `s` with every replica r renamed perm[r]."""
    move_blocks(s, perm, lay.replicas, lay.replica_base, lay.replica_stride, t)
    permute_head(s, lay, perm, t)
    for e in range(lay.max_epoch + 1):
        if request_sent(s, lay, e):
            t[REQUESTS + 2 * e] = rename(perm, s[REQUESTS + 2 * e] - 2) + 2
            t[REQUESTS + 2 * e + 1] = rename_set(perm, s[REQUESTS + 2 * e + 1])
    for r in range(lay.replicas):
        source = lay.replica_base + r * lay.replica_stride
        target = lay.replica_base + perm[r] * lay.replica_stride
        t[target + LEADER] = rename(perm, s[source + LEADER])
        t[target + ISR] = rename_set(perm, s[source + ISR])


@kernel
def permute_part(s, lay, perm, part, t):
    """The renaming after the head as one part: `spec`'s rows are short, so t gets all of `s`
    renamed (`permute`); returns the row's width."""
    permute(s, lay, perm, t)
    return s.shape[0]
