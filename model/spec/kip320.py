"""Variant `kip320` (Kafka 2.1): fenced fetch and fenced truncation.

Truncation is KIP-279's. What KIP-320 adds is the current leader epoch in every fetch and
OffsetsForLeaderEpoch request: a leader only serves, counts towards its HW, or admits to its
ISR a follower in its own epoch, and a follower only truncates against a leader that has
already taken the request's epoch.
"""

from __future__ import annotations

from .kip279 import Kip279
from .state import SpecState, members


def follows_in_epoch(state: SpecState, leader: int, follower: int) -> bool:
    """The leader presumes leadership and the follower follows it in the same leader epoch."""
    replicas = state.replicas
    return (replicas[leader].leader == leader and replicas[follower].leader == leader
            and replicas[follower].epoch == replicas[leader].epoch)


class Kip320(Kip279):
    """KIP-320: every replication step is fenced by the leader epoch."""

    name = "kip320"

    def can_advance_hw(self, state: SpecState, leader: int) -> bool:
        """The HW moves up one offset when the leader's own log extends past it and every member
        of its ISR view follows it in its epoch with a record at the HW. (No leadership test of
        its own: it comes from the followers' checks, as in the specification.)"""
        replicas = state.replicas
        hw = replicas[leader].hw
        if len(replicas[leader].log) <= hw:
            return False
        return all(follows_in_epoch(state, leader, f) and len(replicas[f].log) > hw for f in members(replicas[leader].isr))

    def is_lagging(self, state: SpecState, leader: int, follower: int) -> bool:
        """An ISR member the leader may drop: not following it in its epoch, or behind its LEO."""
        replicas = state.replicas
        return not follows_in_epoch(state, leader, follower) or len(replicas[follower].log) < len(replicas[leader].log)

    def may_join_isr(self, state: SpecState, leader: int, follower: int) -> bool:
        """A replica may join the ISR when it follows the leader in its epoch, has reached the
        leader's HW, and the leader has already written in its epoch at the HW (or the HW is its
        LEO): a follower must have caught up to the start of the current epoch."""
        replicas = state.replicas
        log = replicas[leader].log
        hw = replicas[leader].hw
        return (follows_in_epoch(state, leader, follower)
                and (hw == 0 or len(replicas[follower].log) >= hw)
                and (hw == len(log) or log[hw].epoch == replicas[leader].epoch))

    def accepts_fetch(self, state: SpecState, leader: int, follower: int) -> bool:
        """The fetch carries the follower's leader epoch; a leader in another epoch refuses it
        (FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH)."""
        return state.replicas[follower].epoch == state.replicas[leader].epoch

    def may_become_follower(self, state: SpecState, leader: int, epoch: int) -> bool:
        """The follower truncates only against a leader that presumes leadership in the
        request's epoch, so OffsetsForLeaderEpoch is answered by the leader of that epoch."""
        return state.replicas[leader].leader == leader and state.replicas[leader].epoch == epoch
