"""A faithful leader's high watermark, as Kafka's `LeaderState` keeps it, over packed rows: the
end offset a majority of voters has reached, counted only once it is past the epoch's start
offset, and never moved back."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..state import ACKED, CONTROL, WRITTEN
from ..tla.layout import HW, acked, end_offset, entry_value, get, put, set_acked, set_end_offset
from .layout import HEARD, START_OFFSET


@kernel
def majority_end_offset(s, lay, i):
    """The largest offset a majority of the voters has reached in leader i's view: the voters'
    end offsets sorted from the highest, the one at index n // 2 (`maybeUpdateHighWatermark`),
    that is the highest offset that more than half of them have reached."""
    best = 0
    for k in range(lay.replicas):
        offset = end_offset(s, lay, i, k)
        reached = 0
        for other in range(lay.replicas):
            if end_offset(s, lay, i, other) >= offset:
                reached += 1
        if 2 * reached > lay.replicas and offset > best:
            best = offset
    return best


@kernel
def update_high_watermark(t, lay, i):
    """Leader i after `maybeUpdateHighWatermark`: its HW goes up to the majority's end offset
    if that passes the epoch's start offset (so a majority holds the epoch's first record, the
    LeaderChange record; rule `commit-rule`, choice epoch-start) and the HW it has; the client
    values the HW passed are acknowledged (the append futures complete)."""
    offset, hw = majority_end_offset(t, lay, i), get(t, lay, i, HW)
    if (lay.commit_past_epoch_start and offset <= get(t, lay, i, START_OFFSET)) or offset <= hw:
        return
    for k in range(hw + 1, offset + 1):
        v = entry_value(t, lay, i, k)
        if v != CONTROL and acked(t, lay, v) == WRITTEN:
            set_acked(t, lay, v, ACKED)
    put(t, lay, i, HW, offset)


@kernel
def counted(t, lay, i, voter, offset):
    """Leader i records that `voter` (index) reached `offset` and has heard of its epoch, then
    updates its HW (`updateReplicaState`, `updateLocalState`)."""
    set_end_offset(t, lay, i, voter, offset)
    put(t, lay, i, HEARD, get(t, lay, i, HEARD) | 1 << voter)
    update_high_watermark(t, lay, i)
