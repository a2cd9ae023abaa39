"""Variant `kip101` (Kafka 0.11): truncate by leader epoch instead of by HW.

Only the truncation point changes. The replica asks, in effect, "where does the epoch of my
last record end in your log?" (OffsetsForLeaderEpoch) and truncates there.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import hw, leo, record_epoch


NO_ANSWER = -1
"""`leader_answer` when the leader's log gives none."""


@kernel
def leader_answer(s, lay, r, ldr):
    """The leader's answer to "where does the epoch of my last record end in your log?": the
    leader's LEO when the leader's last record is in that epoch, else the first offset of a
    later epoch; NO_ANSWER when the replica's log is empty (nothing to ask), or the leader's
    log is empty or holds no later epoch."""
    if leo(s, lay, r) == 0:
        return NO_ANSWER
    last_epoch = record_epoch(s, lay, r, leo(s, lay, r) - 1)
    theirs = leo(s, lay, ldr)
    if theirs == 0:
        return NO_ANSWER
    if record_epoch(s, lay, ldr, theirs - 1) == last_epoch:
        return theirs
    for offset in range(theirs):
        if record_epoch(s, lay, ldr, offset) > last_epoch:
            return offset
    return NO_ANSWER


@kernel
def truncation_point(s, lay, r, ldr):
    """The leader's answer (`leader_answer`), falling back to the replica's HW when there is
    none (an empty log truncates to 0). When the point lies beyond the replica's log (the
    leader is ahead in the same epoch) the replica cannot become follower; the specification
    leaves it so."""
    if leo(s, lay, r) == 0:
        return 0
    answer = leader_answer(s, lay, r, ldr)
    return hw(s, lay, r) if answer == NO_ANSWER else answer
