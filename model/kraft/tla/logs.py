"""The log arithmetic of a FETCH, over packed logs: where a leader's log ends for a follower's
last epoch, where a follower's log stops agreeing with a diverging-epoch answer, whether a
fetch position is valid, and how far a leader's high watermark (HW) may go. Offsets are
1-based, as in the specification: offset k is a log's k-th entry, and a log of length L ends
at offset L."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import end_offset, entry_epoch, log_length


@kernel
def _compare(offset1, epoch1, offset2, epoch2):
    """CompareEntries: 1, 0 or -1 as (epoch1, offset1) is after, at or before (epoch2,
    offset2), the epoch first."""
    if epoch1 != epoch2:
        return 1 if epoch1 > epoch2 else -1
    return (offset1 > offset2) - (offset1 < offset2)


@kernel
def end_offset_for_epoch(s, lay, i, last_fetched_epoch):
    """EndOffsetForEpoch: the last (offset, epoch) of voter i's log whose epoch is at most
    `last_fetched_epoch`; (0, 0) when there is none. What a leader answers a follower whose
    last entry has that epoch."""
    for offset in range(log_length(s, lay, i), 0, -1):
        if entry_epoch(s, lay, i, offset) <= last_fetched_epoch:
            return offset, entry_epoch(s, lay, i, offset)
    return 0, 0


@kernel
def valid_fetch_position(s, lay, i, fetch_offset, last_fetched_epoch):
    """ValidFetchPosition: whether a follower's log end and last epoch agree with leader i's
    log (an empty follower always does), as the number of the specification's two disjuncts
    that hold: TLC takes a step once for each (`successors`), and for an empty follower both do."""
    offset, epoch = end_offset_for_epoch(s, lay, i, last_fetched_epoch)
    return (1 if fetch_offset == 0 and last_fetched_epoch == 0 else 0) + \
        (1 if fetch_offset <= offset and last_fetched_epoch == epoch else 0)


@kernel
def highest_common_offset(s, lay, i, end_offset, epoch):
    """TruncateLog's length: voter i's log is cut after its last entry at or before (epoch,
    end_offset), the leader's diverging-epoch answer (HighestCommonOffset)."""
    for offset in range(log_length(s, lay, i), 0, -1):
        if _compare(offset, entry_epoch(s, lay, i, offset), end_offset, epoch) <= 0:
            return offset
    return 0


@kernel
def new_high_watermark(s, lay, i, epoch, hw):
    """NewHighwaterMark: the highest offset of leader i's log that a majority of voters has (i
    counts itself, whatever its own end offset says; the others as its fetched end offsets in
    `s` say), if that entry is of the leader's own `epoch`; otherwise the HW stays `hw`."""
    for offset in range(log_length(s, lay, i), 0, -1):
        holders = 1
        for k in range(lay.replicas):
            if k != i and end_offset(s, lay, i, k) >= offset:
                holders += 1
        if 2 * holders > lay.replicas:
            return offset if entry_epoch(s, lay, i, offset) == epoch else hw
    return hw
