"""Where a replica truncates its log when it becomes follower: each choice of the `truncation`
rule.

`hw` needs nothing from the leader. The epoch variants ask the leader with
OffsetsForLeaderEpoch, modelled as one atomic exchange with the live leader, answered from the
leader's epoch cache.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import (cache_epoch, cache_size, cache_start, cache_trim, flushed, hw, leo, record_epoch,
                     set_flushed, set_hw, truncate)
from .state import NO_EPOCH


@kernel
def end_of_epoch(s, lay, r, e):
    """The end offset of epoch e in broker r's epoch cache: the start of the next higher epoch,
    or r's LEO when e is its latest."""
    end = leo(s, lay, r)
    first = True
    for i in range(cache_size(s, lay, r)):
        if cache_epoch(s, lay, r, i) > e and (first or cache_start(s, lay, r, i) < end):
            end = cache_start(s, lay, r, i)
            first = False
    return end


@kernel
def largest_epoch_at_most(s, lay, r, e):
    """The largest epoch in broker r's cache that is not above e (NO_EPOCH if there is none)."""
    found = NO_EPOCH
    for i in range(cache_size(s, lay, r)):
        if found < cache_epoch(s, lay, r, i) <= e:
            found = cache_epoch(s, lay, r, i)
    return found


@kernel
def hw_truncation(s, lay, r, ldr):
    """Kafka before 0.11: truncate to the follower's own HW."""
    return hw(s, lay, r)


@kernel
def kip101_answer(s, lay, r, ldr):
    """KIP-101's OffsetsForLeaderEpoch answer to follower r: where the epoch of r's last record
    ends in the leader's cache (the start of the next higher epoch, or the leader's LEO); -1
    when r's log is empty and there is nothing to ask."""
    end = leo(s, lay, r)
    if end == 0:
        return -1
    return end_of_epoch(s, lay, ldr, record_epoch(s, lay, r, end - 1))


@kernel
def kip101_truncation(s, lay, r, ldr):
    """KIP-101: ask the leader for the end offset of the epoch of the follower's last record
    (`kip101_answer`); truncate to min(answer, own LEO)."""
    answer = kip101_answer(s, lay, r, ldr)
    return 0 if answer < 0 else min(answer, leo(s, lay, r))


@kernel
def kip279_truncation(s, lay, r, ldr):
    """KIP-279: the answer also names the largest epoch the leader has at most the one asked; the
    follower asks again with its own largest epoch at most that one until both agree, then
    truncates where that epoch ends on either side."""
    end = leo(s, lay, r)
    asked = record_epoch(s, lay, r, end - 1) if end else NO_EPOCH
    while asked != NO_EPOCH:
        found = largest_epoch_at_most(s, lay, ldr, asked)
        if found == NO_EPOCH:
            return 0
        mine = largest_epoch_at_most(s, lay, r, found)
        if mine == found:
            return min(end_of_epoch(s, lay, ldr, found), end_of_epoch(s, lay, r, found), end)
        asked = mine
    return 0


@kernel
def truncate_to(t, lay, r, k):
    """Broker r keeps the first k records of its log: what it had flushed, its epoch cache and its
    HW are cut there too."""
    truncate(t, lay, r, k)
    set_flushed(t, lay, r, min(flushed(t, lay, r), k))
    cache_trim(t, lay, r, k)
    set_hw(t, lay, r, min(hw(t, lay, r), k))
