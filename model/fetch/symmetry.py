"""Renaming replicas in a packed `fetch` state, for symmetry reduction: broker blocks move, and
every slot holding a replica id (the controller's leader, each broker's leader, the leader of
an in-flight fetch, of each waiting LeaderAndIsr request and of each pending write, the leader
that answered an appended record, the broker of each produce request, kip966's last known
leader) or a replica set (the controller's ISR and offline brokers, each broker's ISR, each
request's ISR, kip966's ELR and its sets of brokers stopped cleanly and uncleanly) is renamed; each
leader's remote LEOs move with the replicas they describe. Records hold no replica ids."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.symmetry import move_blocks, rename, rename_set

from .layout import (CLEAN_STOPS, C_ISR, C_LEADER, C_OFFLINE, ELR_SET, FETCH_KIND, FETCH_LEADER, HEADER, IDLE, ISR,
                     LAST_LEADER, LEADER, NOT_SENT, PENDING_COUNT, PENDING_LEADER, PENDING_SLOTS, REQUEST_LEADER,
                     REQUEST_RECORD, REQUEST_SLOTS, SEND_LEADER, SEND_SLOTS, SEND_STATUS, UNCLEAN_STOPS, has_elr,
                     producer_records)
from .state import APPENDED


@kernel
def permute_head(s, lay, perm, t):
    """Write into t's first slots the header of `s` with every replica r renamed perm[r]: the
    controller's leader, ISR and offline brokers (the rest of the header names no replica).
    Returns how many slots that is: a renamed row starts with them, so renamings can be
    compared on them before the rest is renamed."""
    for i in range(HEADER):
        t[i] = s[i]
    t[C_LEADER] = rename(perm, s[C_LEADER])
    t[C_ISR] = rename_set(perm, s[C_ISR])
    t[C_OFFLINE] = rename_set(perm, s[C_OFFLINE])
    return HEADER


@kernel
def permute(s, lay, perm, t):
    """Write into `t` the state `s` with every replica r renamed perm[r]."""
    move_blocks(s, perm, lay.replicas, lay.replica_base, lay.replica_stride, t)
    permute_head(s, lay, perm, t)
    for i in range(s[PENDING_COUNT]):
        at = HEADER + PENDING_SLOTS * i + PENDING_LEADER
        t[at] = rename(perm, s[at])
    for rid in range(producer_records(lay)):
        at = lay.producer_base + SEND_SLOTS * rid
        if s[at + SEND_STATUS] == APPENDED:
            t[at + SEND_LEADER] = rename(perm, s[at + SEND_LEADER])
        at = lay.requests_at + REQUEST_SLOTS * rid
        if s[at + REQUEST_RECORD] != 0:
            t[at + REQUEST_LEADER] = rename(perm, s[at + REQUEST_LEADER])
    if has_elr(lay):
        t[lay.elr_at + LAST_LEADER] = rename(perm, s[lay.elr_at + LAST_LEADER] - 1) + 1
        for at in (ELR_SET, CLEAN_STOPS, UNCLEAN_STOPS):
            t[lay.elr_at + at] = rename_set(perm, s[lay.elr_at + at])
    for r in range(lay.replicas):
        source = lay.replica_base + r * lay.replica_stride
        target = lay.replica_base + perm[r] * lay.replica_stride
        t[target + LEADER] = rename(perm, s[source + LEADER])
        t[target + ISR] = rename_set(perm, s[source + ISR])
        if s[source + FETCH_KIND] != IDLE:
            t[target + FETCH_LEADER] = rename(perm, s[source + FETCH_LEADER])
        for f in range(lay.replicas):
            t[target + lay.remote_at + perm[f]] = s[source + lay.remote_at + f]
        for e in range(lay.max_epoch + 1):
            at = lay.inbox_at + 2 * e
            if s[source + at] != NOT_SENT:
                t[target + at] = rename(perm, s[source + at] - 2) + 2
                t[target + at + 1] = rename_set(perm, s[source + at + 1])
