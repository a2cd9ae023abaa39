"""Renaming replicas in a packed `fetch` state, for symmetry reduction: broker blocks move, and
every slot holding a replica id (the controller's leader, each broker's leader, the leader of
an in-flight fetch, of each waiting LeaderAndIsr request and of each pending write, the leader
that answered an appended record, the broker of each produce request, kip966's last known
leader, the preferred replica) or a replica set (the controller's ISR and offline brokers, each
broker's ISR, each request's ISR, kip966's ELR and its sets of brokers stopped cleanly and
uncleanly) is renamed; each leader's remote LEOs move with the replicas they describe. Records hold no replica ids.

The renaming is also written in parts, in the order of the renamed row's slots: the header
(`permute_head`), the records between it and the broker blocks, then each broker block
(`permute_part`), so the search compares renamings that tie on the header only as far as they
tie; before that it ranks them on the header's three renamed slots alone (`head_rank`).
`permute` and the parts share each block's renaming (`rename_between`, `rename_block`)."""

from __future__ import annotations

import numpy as np

from checker.kernel.jit import kernel
from checker.kernel.symmetry import copy_slots, move_blocks, rename, rename_set, renamed_to

from .layout import (CLEAN_STOPS, C_ISR, C_LEADER, C_OFFLINE, ELR_SET, FETCH_KIND, FETCH_LEADER, HEADER, IDLE, ISR,
                     LAST_LEADER, LEADER, NOT_SENT, PENDING_COUNT, PENDING_LEADER, PENDING_SLOTS, REQUEST_LEADER,
                     REQUEST_RECORD, REQUEST_SLOTS, SEND_LEADER, SEND_SLOTS, SEND_STATUS, UNCLEAN_STOPS, has_elr,
                     has_preferred, producer_records)
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
def head_rank(s, lay, perm):
    """The renamed controller's leader, ISR and offline brokers as one number that orders
    renamings as their headers order (`permute_head`; every other header slot is the same in
    all renamings, and the sets, below 2**7, fit a byte each)."""
    leader = rename(perm, s[C_LEADER])
    return (leader * 256 + rename_set(perm, s[C_ISR])) * 256 + rename_set(perm, s[C_OFFLINE])


@kernel(inline=True)
def rename_between(s, lay, perm, t):
    """Rename in t, which holds s's values there, the slots between the header and the broker
    blocks: each pending write's leader, the leader that answered each appended record and the
    leader of each produce request, kip966's last known leader, ELR and brokers stopped
    cleanly and uncleanly, and the preferred replica (rule preferred-replica=rebalanced: a
    renaming moves it with the others, so states that differ only in which replica is preferred
    share an orbit, and a renaming never has to fix it)."""
    for i in range(s[PENDING_COUNT]):
        at = np.uint64(HEADER + PENDING_SLOTS * i + PENDING_LEADER)
        t[at] = rename(perm, s[at])
    for rid in range(producer_records(lay)):
        at = np.uint64(lay.producer_base + SEND_SLOTS * rid)
        if s[at + SEND_STATUS] == APPENDED:
            t[at + SEND_LEADER] = rename(perm, s[at + SEND_LEADER])
        at = np.uint64(lay.requests_at + REQUEST_SLOTS * rid)
        if s[at + REQUEST_RECORD] != 0:
            t[at + REQUEST_LEADER] = rename(perm, s[at + REQUEST_LEADER])
    if has_elr(lay):
        at = np.uint64(lay.elr_at)
        t[at + LAST_LEADER] = rename(perm, s[at + LAST_LEADER] - 1) + 1
        t[at + ELR_SET] = rename_set(perm, s[at + ELR_SET])
        t[at + CLEAN_STOPS] = rename_set(perm, s[at + CLEAN_STOPS])
        t[at + UNCLEAN_STOPS] = rename_set(perm, s[at + UNCLEAN_STOPS])
    if has_preferred(lay):
        t[lay.preferred_at] = rename(perm, s[lay.preferred_at])


@kernel(inline=True)
def rename_block(s, lay, perm, r, t):
    """Rename in t broker r's block, which t holds at broker perm[r]'s place: its leader, ISR
    and in-flight fetch's leader, its remote LEOs moved with the replicas they describe, and the
    leader and ISR of each LeaderAndIsr request in its inbox. (Unsigned indices, as in
    `copy_slots`: a renaming costs less.)"""
    stride = np.uint64(lay.replica_stride)
    source = np.uint64(lay.replica_base) + np.uint64(r) * stride
    target = np.uint64(lay.replica_base) + np.uint64(perm[r]) * stride
    t[target + LEADER] = rename(perm, s[source + LEADER])
    t[target + ISR] = rename_set(perm, s[source + ISR])
    if s[source + FETCH_KIND] != IDLE:
        t[target + FETCH_LEADER] = rename(perm, s[source + FETCH_LEADER])
    remote = np.uint64(lay.remote_at)
    for f in range(lay.replicas):
        t[target + remote + np.uint64(perm[f])] = s[source + remote + np.uint64(f)]
    for e in range(lay.max_epoch + 1):
        at = np.uint64(lay.inbox_at + 2 * e)
        if s[source + at] != NOT_SENT:
            t[target + at] = rename(perm, s[source + at] - 2) + 2
            t[target + at + 1] = rename_set(perm, s[source + at + 1])


@kernel
def permute(s, lay, perm, t):
    """Write into `t` the state `s` with every replica r renamed perm[r]."""
    move_blocks(s, perm, lay.replicas, lay.replica_base, lay.replica_stride, t)
    permute_head(s, lay, perm, t)
    rename_between(s, lay, perm, t)
    for r in range(lay.replicas):
        rename_block(s, lay, perm, r, t)


@kernel(inline=True)
def permute_part(s, lay, perm, part, t):
    """Write into t part `part` of the renaming of `s` after the head (`permute_head`) and
    return the slot after it: part 1 is what lies between the header and the broker blocks
    (`rename_between`), part 2 + j broker block j of the renamed row (`rename_block`); the last
    part ends the row."""
    if part == 1:
        copy_slots(s, HEADER, t, HEADER, lay.replica_base - HEADER)
        rename_between(s, lay, perm, t)
        return lay.replica_base
    renamed = part - 2
    r = renamed_to(perm, lay.replicas, renamed)
    end = lay.replica_base + (renamed + 1) * lay.replica_stride
    copy_slots(s, lay.replica_base + r * lay.replica_stride, t, end - lay.replica_stride, lay.replica_stride)
    rename_block(s, lay, perm, r, t)
    if renamed < lay.replicas - 1:
        return end
    copy_slots(s, end, t, end, s.shape[0] - end)  # the row's padding
    return s.shape[0]
