"""Variant `kip101` (Kafka 0.11): truncate by leader epoch instead of by HW.

Only the truncation point changes. The replica asks, in effect, "where does the epoch of my
last record end in your log?" (OffsetsForLeaderEpoch) and truncates there.
"""

from __future__ import annotations

from .hw import HighWatermarkTruncation
from .state import SpecState


class Kip101(HighWatermarkTruncation):
    """KIP-101: leader-epoch truncation, first version."""

    name = "kip101"
    truncation_rule = "the end of its last epoch in the leader's log"

    def truncation_point(self, state: SpecState, replica: int, leader: int) -> int:
        """The end offset, in the leader's log, of the epoch of the replica's last record: the
        leader's LEO when the leader's last record is in that epoch, else the first offset of a
        later epoch. Falls back to the replica's HW when the leader's log is empty or holds no
        later epoch. When the point lies beyond the replica's log (the leader is ahead in the
        same epoch) the replica cannot become follower; the specification leaves it so."""
        mine = state.replicas[replica]
        theirs = state.replicas[leader].log
        if not mine.log:
            return 0
        last_epoch = mine.log[-1].epoch
        if not theirs:
            return mine.hw
        if theirs[-1].epoch == last_epoch:
            return len(theirs)
        return next((offset for offset, record in enumerate(theirs) if record.epoch > last_epoch), mine.hw)
