"""Variant `hw`: Kafka before 0.11, where a replica that becomes follower truncates its log
to its own high watermark.

This module also holds the replication actions (HW advance, ISR shrink and expand, follower
fetch, becoming follower) as the skeleton every variant shares. A later variant subclasses
`HighWatermarkTruncation` and re-states only the rule its KIP changed.
"""

from __future__ import annotations

from .bounds import SpecBounds
from .controller import controller_elect_leader, controller_shrink_isr
from .leadership import become_leader, is_true_leader, leader_write, quorum_isr_update
from .state import NONE, Replica, SpecState, members, with_replica


class HighWatermarkTruncation:
    """The `hw` protocol: HW-based truncation, no epoch fencing of fetches."""

    name = "hw"
    truncation_rule = "its HW"
    """How the truncation point is chosen, in words, for step descriptions."""

    def __init__(self, bounds: SpecBounds):
        self.bounds = bounds

    # ----- the rules a variant may change -----------------------------------------------------

    def truncation_point(self, state: SpecState, replica: int, leader: int) -> int:
        """Where `replica` truncates its log when it becomes follower of `leader`. Here: its
        own HW, which may lag the leader's, so committed records above it are dropped."""
        return state.replicas[replica].hw

    def is_caught_up(self, state: SpecState, leader: int, follower: int, end: int) -> bool:
        """The follower follows `leader` and holds an entry at every offset below `end` that the
        leader holds (the spec compares lengths only, never the records themselves)."""
        logs_reach = end == 0 or (len(state.replicas[leader].log) >= end and len(state.replicas[follower].log) >= end)
        return state.replicas[follower].leader == leader and logs_reach

    def can_advance_hw(self, state: SpecState, leader: int) -> bool:
        """A presumed leader may move its HW up one offset when every replica of its ISR view
        follows it and has a record at the current HW. No epoch is checked, and the leader's
        own log is only looked at if it is in its own ISR view."""
        replicas = state.replicas
        me = replicas[leader]
        if me.leader != leader or me.hw >= self.bounds.log_size:
            return False
        return all(replicas[f].leader == leader and len(replicas[f].log) > me.hw for f in members(me.isr))

    def is_lagging(self, state: SpecState, leader: int, follower: int) -> bool:
        """An ISR member the leader may drop: it is not caught up to the leader's LEO."""
        return not self.is_caught_up(state, leader, follower, len(state.replicas[leader].log))

    def may_join_isr(self, state: SpecState, leader: int, follower: int) -> bool:
        """A replica the leader may add to its ISR: caught up to the leader's HW."""
        return self.is_caught_up(state, leader, follower, state.replicas[leader].hw)

    def accepts_fetch(self, state: SpecState, leader: int, follower: int) -> bool:
        """Whether the leader serves this follower's fetch. No epoch check anywhere: this is the
        missing fencing."""
        return True

    def may_become_follower(self, state: SpecState, leader: int, epoch: int) -> bool:
        """Whether a replica may act on a LeaderAndIsr request naming `leader` in `epoch`
        (beyond the request's epoch being new to it). Here: always."""
        return True

    # ----- the actions ------------------------------------------------------------------------

    def leader_inc_high_watermark(self, state: SpecState):
        """The leader advances its HW by one offset: the records below it become committed and
        visible to consumers. (Fetch requests are not modelled: all ISR members could have
        fetched, and this is the step in which the leader learns it.)"""
        for leader, replica in enumerate(state.replicas):
            if self.can_advance_hw(state, leader):
                after = Replica(replica.log, replica.hw + 1, replica.epoch, replica.leader, replica.isr)
                yield ("LeaderIncHighWatermark", leader), with_replica(state, leader, after)

    def leader_shrink_isr(self, state: SpecState):
        """The leader drops a lagging follower from the ISR, through a fenced quorum write."""
        for leader, replica in enumerate(state.replicas):
            if not is_true_leader(state, leader):
                continue
            for f in members(replica.isr):
                if f != leader and self.is_lagging(state, leader, f):
                    yield ("LeaderShrinkIsr", leader, f), quorum_isr_update(state, leader, replica.isr & ~(1 << f))

    def leader_expand_isr(self, state: SpecState):
        """The leader adds a caught-up follower back to the ISR, through a fenced quorum write."""
        for leader, replica in enumerate(state.replicas):
            if not is_true_leader(state, leader):
                continue
            for f in range(self.bounds.replicas):
                if not replica.isr >> f & 1 and self.may_join_isr(state, leader, f):
                    yield ("LeaderExpandIsr", leader, f), quorum_isr_update(state, leader, replica.isr | 1 << f)

    def follower_replicate(self, state: SpecState):
        """A follower copies the leader's record at its LEO and takes the leader's HW, capped by
        its own new LEO (a follower's HW is never above its log end)."""
        replicas = state.replicas
        for leader, source in enumerate(replicas):
            if source.leader != leader:
                continue
            for f, follower in enumerate(replicas):
                leo = len(follower.log)
                if (follower.leader == leader and leo < len(source.log) and leo < self.bounds.log_size
                        and self.accepts_fetch(state, leader, f)):
                    after = Replica(log=follower.log + (source.log[leo],), hw=min(source.hw, leo + 1),
                                    epoch=follower.epoch, leader=leader, isr=follower.isr)
                    yield ("FollowerReplicate", f, leader), with_replica(state, f, after)

    def become_follower(self, state: SpecState):
        """A replica receives a LeaderAndIsr request naming another replica leader in an epoch
        above its own: it truncates its log at the variant's truncation point, caps its HW
        there, and follows the new leader. Not enabled when the point lies beyond its log."""
        replicas = state.replicas
        for request in state.requests:
            leader = request.leader
            if leader == NONE or not self.may_become_follower(state, leader, request.epoch):
                continue
            for r, replica in enumerate(replicas):
                if r == leader or request.epoch <= replica.epoch:
                    continue
                k = self.truncation_point(state, r, leader)
                if k > len(replica.log):
                    continue
                after = Replica(log=replica.log[:k], hw=min(k, replica.hw), epoch=request.epoch, leader=leader,
                                isr=request.isr)
                yield ("BecomeFollower", r, leader, request.epoch), with_replica(state, r, after)

    def actions(self):
        """Every action of the protocol, as functions from a state to (action, next state) pairs."""
        bounds = self.bounds
        return (
            lambda s: controller_elect_leader(s, bounds),
            lambda s: controller_shrink_isr(s, bounds),
            lambda s: become_leader(s, bounds),
            lambda s: leader_write(s, bounds),
            self.leader_inc_high_watermark,
            self.leader_shrink_isr,
            self.leader_expand_isr,
            self.follower_replicate,
            self.become_follower,
        )
