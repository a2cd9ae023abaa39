"""The log arithmetic of a FETCH: where a leader's log ends for a follower's last epoch, where
a follower's log stops agreeing with a diverging-epoch answer, whether a fetch position is
valid, and how far a leader's high watermark (HW) may go. Offsets are 1-based, as in the
specification: offset k is a log's k-th entry, and a log of length L ends at offset L."""

from __future__ import annotations

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _compare(offset1: int, epoch1: int, offset2: int, epoch2: int) -> int:
    """CompareEntries: 1, 0 or -1 as (epoch1, offset1) is after, at or before (epoch2,
    offset2), the epoch first."""
    if epoch1 != epoch2:
        return 1 if epoch1 > epoch2 else -1
    return (offset1 > offset2) - (offset1 < offset2)


def end_offset_for_epoch(log: tuple, last_fetched_epoch: int) -> tuple[int, int]:
    """EndOffsetForEpoch: the last (offset, epoch) of `log` whose epoch is at most
    `last_fetched_epoch`; (0, 0) when there is none. What a leader answers a follower whose last
    entry has that epoch."""
    for offset in range(len(log), 0, -1):
        if log[offset - 1][0] <= last_fetched_epoch:
            return offset, log[offset - 1][0]
    return 0, 0


def valid_fetch_position(log: tuple, fetch_offset: int, last_fetched_epoch: int) -> int:
    """ValidFetchPosition: whether the follower's log end and last epoch agree with the
    leader's `log` (an empty follower always does), as the number of the specification's two
    disjuncts that hold: TLC takes a step once for each (`tla.successors`), and for an empty
    follower both do."""
    offset, epoch = end_offset_for_epoch(log, last_fetched_epoch)
    return (fetch_offset == 0 and last_fetched_epoch == 0) + (fetch_offset <= offset and last_fetched_epoch == epoch)


def truncated(log: tuple, end_offset: int, epoch: int) -> tuple:
    """TruncateLog: `log` cut after its last entry at or before (epoch, end_offset), the
    leader's diverging-epoch answer (HighestCommonOffset)."""
    for offset in range(len(log), 0, -1):
        if _compare(offset, log[offset - 1][0], end_offset, epoch) <= 0:
            return log[:offset]
    return ()


def new_high_watermark(log: tuple, me: int, end_offsets: tuple, voters: int, epoch: int, hw: int) -> int:
    """NewHighwaterMark: the highest offset of the leader's `log` that a majority of voters
    has (the leader `me` counts itself, whatever its own end offset says), if that entry is of
    the leader's own `epoch`; otherwise the HW stays `hw`."""
    for offset in range(len(log), 0, -1):
        holders = 1 + sum(1 for k in range(voters) if k != me and end_offsets[k] >= offset)
        if 2 * holders > voters:
            return offset if log[offset - 1][0] == epoch else hw
    return hw
