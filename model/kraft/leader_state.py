"""A faithful leader's high watermark, as Kafka's `LeaderState` keeps it: the end offset a
majority of voters has reached, counted only once it is past the epoch's start offset, and
never moved back."""

from __future__ import annotations

from .state import ACKED, CONTROL, WRITTEN, KRaftState, with_voter

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def majority_end_offset(end_offsets: tuple[int, ...]) -> int:
    """The largest offset a majority of the voters has reached: the voters' end offsets sorted
    from the highest, the one at index n // 2 (`maybeUpdateHighWatermark`)."""
    return sorted(end_offsets, reverse=True)[len(end_offsets) // 2]


def with_high_watermark(s: KRaftState, i: int) -> KRaftState:
    """Leader i after `maybeUpdateHighWatermark`: its HW goes up to the majority's end offset
    if that passes the epoch's start offset (so a majority holds the epoch's first record, the
    LeaderChange record) and the HW it has; the client values the HW passed are acknowledged
    (the append futures complete)."""
    offset = majority_end_offset(s.end_offset[i])
    if offset <= s.start_offset[i] or offset <= s.hw[i]:
        return s
    committed = {value for _, value in s.log[i][s.hw[i]:offset] if value != CONTROL}
    acked = tuple(ACKED if a == WRITTEN and v in committed else a for v, a in enumerate(s.acked, 1))
    return with_voter(s, i, hw=offset)._replace(acked=acked)


def counted(s: KRaftState, i: int, voter: int, offset: int) -> KRaftState:
    """Leader i records that `voter` (index) reached `offset` and has heard of its epoch, then
    updates its HW (`updateReplicaState`, `updateLocalState`)."""
    row = s.end_offset[i][:voter] + (offset,) + s.end_offset[i][voter + 1:]
    return with_high_watermark(with_voter(s, i, end_offset=row, heard=s.heard[i] | 1 << voter), i)
