"""Where a replica truncates its log when it becomes follower: each choice of the `truncation`
rule.

`hw` needs nothing from the leader. The epoch variants ask the leader with
OffsetsForLeaderEpoch, modelled as one atomic exchange with the live leader, answered from the
leader's epoch cache. Under rule epoch-cache=first-append (Kafka 0.11 to 2.0, `first_append`
below) the follower asks for its cache's latest epoch, and a leader whose cache cannot place it
answers UNDEFINED_EPOCH_OFFSET, on which the follower truncates to its HW.
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


UNDEFINED = -2
"""`kip101_answer`'s UNDEFINED_EPOCH_OFFSET (-1 means there was nothing to ask)."""


@kernel
def hw_truncation(s, lay, r, ldr):
    """Kafka before 0.11: truncate to the follower's own HW."""
    return hw(s, lay, r)


@kernel
def asked_epoch(s, lay, r, first_append):
    """The epoch broker r asks OffsetsForLeaderEpoch for: its cache's latest under
    epoch-cache=first-append (`ReplicaFetcherThread.buildLeaderEpochRequest` @ 0.11.0.0, 2.0.0:
    `latestEpoch`, which an append of an older epoch does not lower), else its last record's
    (from 2.1 the same, its cache being cut back to it); NO_EPOCH when there is none."""
    if first_append:
        n = cache_size(s, lay, r)
        return cache_epoch(s, lay, r, n - 1) if n else NO_EPOCH
    end = leo(s, lay, r)
    return record_epoch(s, lay, r, end - 1) if end else NO_EPOCH


@kernel
def unplaced(s, lay, ldr, e):
    """The leader's cache cannot place epoch e: it is empty, or e is below its first epoch or above
    its latest; 0.11 to 2.0 answer UNDEFINED_EPOCH_OFFSET (`LeaderEpochFileCache.endOffsetFor` @
    0.11.0.0, 2.0.0)."""
    n = cache_size(s, lay, ldr)
    return n == 0 or e < cache_epoch(s, lay, ldr, 0) or e > cache_epoch(s, lay, ldr, n - 1)


@kernel
def kip101_answer(s, lay, r, ldr, first_append):
    """KIP-101's OffsetsForLeaderEpoch answer to follower r: where the epoch r asks for
    (`asked_epoch`) ends in the leader's cache (the start of the next higher epoch, or the
    leader's LEO); UNDEFINED when, under epoch-cache=first-append, the leader's cache cannot place
    it; -1 when r has nothing to ask."""
    asked = asked_epoch(s, lay, r, first_append)
    if asked == NO_EPOCH:
        return -1
    if first_append and unplaced(s, lay, ldr, asked):
        return UNDEFINED
    return end_of_epoch(s, lay, ldr, asked)


@kernel
def kip101_truncation(s, lay, r, ldr, first_append):
    """KIP-101: ask the leader for the end offset of the follower's epoch (`kip101_answer`);
    truncate to min(answer, own LEO), or to the own HW on UNDEFINED_EPOCH_OFFSET
    (`ReplicaFetcherThread.maybeTruncate` @ 0.11.0.0)."""
    answer = kip101_answer(s, lay, r, ldr, first_append)
    if answer == UNDEFINED:
        return min(hw(s, lay, r), leo(s, lay, r))
    return 0 if answer < 0 else min(answer, leo(s, lay, r))


AGREED, UNANSWERED, CUT_SHORT = range(3)
"""How KIP-279's walk ended (`kip279_walk`): on an epoch both sides have (or none); on an
UNDEFINED_EPOCH_OFFSET answer (0.11 to 2.0); or, in 2.0, where the follower had no epoch at or
below the one the leader named."""


@kernel
def kip279_walk(s, lay, r, ldr, first_append):
    """KIP-279: the answer also names the largest epoch the leader has at most the one asked; the
    follower asks again with its own largest epoch at most that one until both agree, then
    truncates where that epoch ends on either side. Under epoch-cache=first-append, as 2.0's
    `AbstractFetcherThread.getOffsetTruncationState`: an UNDEFINED_EPOCH_OFFSET answer keeps the
    point reached so far (the HW on the first question), and a follower with no epoch at or below
    the leader's answer keeps min(leader's end, LEO). Returns (truncation point, how the walk ended:
    AGREED, UNANSWERED or CUT_SHORT, the epoch it ended at or NO_EPOCH)."""
    end = leo(s, lay, r)
    asked = asked_epoch(s, lay, r, first_append)
    point = min(hw(s, lay, r), end)
    while asked != NO_EPOCH:
        if first_append and unplaced(s, lay, ldr, asked):
            return point, UNANSWERED, asked
        found = largest_epoch_at_most(s, lay, ldr, asked)
        if found == NO_EPOCH:
            return 0, AGREED, NO_EPOCH
        mine = largest_epoch_at_most(s, lay, r, found)
        if mine == found:
            return min(end_of_epoch(s, lay, ldr, found), end_of_epoch(s, lay, r, found), end), AGREED, found
        if first_append and mine == NO_EPOCH:
            return min(end_of_epoch(s, lay, ldr, found), end), CUT_SHORT, found
        point = min(end_of_epoch(s, lay, r, found), end)
        asked = mine
    return 0, AGREED, NO_EPOCH


@kernel
def kip279_truncation(s, lay, r, ldr, first_append):
    """KIP-279's truncation point (`kip279_walk`)."""
    point, _, _ = kip279_walk(s, lay, r, ldr, first_append)
    return point


@kernel
def truncate_to(t, lay, r, k):
    """Broker r keeps the first k records of its log: what it had flushed, its epoch cache and its
    HW are cut there too."""
    truncate(t, lay, r, k)
    set_flushed(t, lay, r, min(flushed(t, lay, r), k))
    cache_trim(t, lay, r, k)
    set_hw(t, lay, r, min(hw(t, lay, r), k))
