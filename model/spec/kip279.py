"""Variant `kip279` (Kafka 2.0): fixed leader-epoch truncation after fast leader changes.

Only the truncation point changes: the replica and the leader walk back through their epochs
until they agree, which lands exactly after the last record both logs share.
"""

from __future__ import annotations

from .hw import HighWatermarkTruncation
from .state import SpecState


def first_divergent_offset(mine: tuple, theirs: tuple) -> int:
    """One past the highest offset at which both logs hold the very same record (same id and
    epoch); 0 when there is none or either log is empty."""
    for offset in range(min(len(mine), len(theirs)) - 1, -1, -1):
        if mine[offset] == theirs[offset]:
            return offset + 1
    return 0


class Kip279(HighWatermarkTruncation):
    """KIP-279: truncate at the first offset where the logs diverge."""

    name = "kip279"
    truncation_rule = "the first offset where its log diverges from the leader's"

    def truncation_point(self, state: SpecState, replica: int, leader: int) -> int:
        """Right after the last record the replica and the leader both hold at the same offset."""
        return first_divergent_offset(state.replicas[replica].log, state.replicas[leader].log)
