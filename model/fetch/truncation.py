"""Where a replica truncates its log when it becomes follower: each variant's rule.

`hw` needs nothing from the leader. The epoch variants ask the leader with
OffsetsForLeaderEpoch, modelled as one atomic exchange with the live leader.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from .state import Broker


def _end_of_epoch(broker: Broker, epoch: int) -> int:
    """The end offset of `epoch` in the broker's epoch cache: the start of the next higher
    epoch, or its LEO when `epoch` is its latest."""
    later = [start for e, start in broker.cache if e > epoch]
    return min(later) if later else broker.leo


def _largest_epoch_at_most(broker: Broker, epoch: int) -> int | None:
    """The largest epoch in the broker's cache that is not above `epoch` (None if there is none)."""
    found = [e for e, _ in broker.cache if e <= epoch]
    return max(found) if found else None


def hw_truncation(follower: Broker, leader: Broker) -> int:
    """Kafka before 0.11: truncate to the follower's own HW."""
    return follower.hw


def kip101_truncation(follower: Broker, leader: Broker) -> int:
    """KIP-101: ask the leader for the end offset of the epoch of the follower's last record;
    the leader answers from its cache (start of the next higher epoch, or its LEO); truncate to
    min(answer, own LEO)."""
    if not follower.log:
        return 0
    return min(_end_of_epoch(leader, follower.log[-1].epoch), follower.leo)


def kip279_truncation(follower: Broker, leader: Broker) -> int:
    """KIP-279: the answer also names the largest epoch the leader has at most the one asked; the
    follower asks again with its own largest epoch at most that one until both agree, then
    truncates where that epoch ends on either side."""
    asked = follower.log[-1].epoch if follower.log else None
    while asked is not None:
        found = _largest_epoch_at_most(leader, asked)
        if found is None:
            return 0
        mine = _largest_epoch_at_most(follower, found)
        if mine == found:
            return min(_end_of_epoch(leader, found), _end_of_epoch(follower, found), follower.leo)
        asked = mine
    return 0


class FetchVariant(NamedTuple):
    """What a protocol variant changes: its truncation rule, whether that rule asks the leader
    (OffsetsForLeaderEpoch), and whether requests carry the current leader epoch (kip320)."""

    truncate: Callable[[Broker, Broker], int]
    asks_leader: bool
    fenced: bool
    meaning: str


VARIANTS = {
    "hw": FetchVariant(hw_truncation, False, False, "truncate to the high watermark (Kafka before 0.11)"),
    "kip101": FetchVariant(kip101_truncation, True, False, "leader-epoch truncation, first version (KIP-101)"),
    "kip279": FetchVariant(kip279_truncation, True, False, "epoch truncation fixed for fast leader changes (KIP-279)"),
    "kip320": FetchVariant(kip279_truncation, True, True,
                           "KIP-279 plus the current leader epoch in every fetch and OffsetsForLeaderEpoch (KIP-320)"),
}
