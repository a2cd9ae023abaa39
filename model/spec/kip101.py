"""Variant `kip101` (Kafka 0.11): truncate by leader epoch instead of by HW.

Only the truncation point changes. The replica asks, in effect, "where does the epoch of my
last record end in your log?" (OffsetsForLeaderEpoch) and truncates there.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import hw, leo, record_epoch


@kernel
def truncation_point(s, lay, r, ldr):
    """The end offset, in the leader's log, of the epoch of the replica's last record: the
    leader's LEO when the leader's last record is in that epoch, else the first offset of a
    later epoch. Falls back to the replica's HW when the leader's log is empty or holds no
    later epoch. When the point lies beyond the replica's log (the leader is ahead in the
    same epoch) the replica cannot become follower; the specification leaves it so."""
    if leo(s, lay, r) == 0:
        return 0
    last_epoch = record_epoch(s, lay, r, leo(s, lay, r) - 1)
    theirs = leo(s, lay, ldr)
    if theirs == 0:
        return hw(s, lay, r)
    if record_epoch(s, lay, ldr, theirs - 1) == last_epoch:
        return theirs
    for offset in range(theirs):
        if record_epoch(s, lay, ldr, offset) > last_epoch:
            return offset
    return hw(s, lay, r)
