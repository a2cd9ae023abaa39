"""What the controller does: elect leaders and shrink the ISR when a broker fails.

The controller has no state of its own: it writes the quorum state (ZooKeeper) directly and
sends a LeaderAndIsr request with every update. Requests are never removed, so a replica
may act on any of them later, any number of times.
"""

from __future__ import annotations

from .bounds import SpecBounds
from .state import NONE, LeaderAndIsr, SpecState, members


def controller_update(state: SpecState, bounds: SpecBounds, leader: int, isr: int) -> SpecState | None:
    """Bump the leader epoch, record (epoch, leader, ISR) in the quorum and send it as a
    LeaderAndIsr request. None when every epoch up to `max_epoch` is used up."""
    epoch = state.next_epoch
    if epoch > bounds.max_epoch:
        return None
    update = LeaderAndIsr(epoch, leader, isr)
    return SpecState(state.replicas, state.next_record_id, state.requests + (update,), update)


def controller_elect_leader(state: SpecState, bounds: SpecBounds):
    """Clean leader election: the controller picks any ISR member other than the current
    leader and bumps the epoch. It may do so at any time (broker failure, rebalancing)."""
    quorum = state.quorum
    for n in members(quorum.isr):
        if n != quorum.leader:
            after = controller_update(state, bounds, n, quorum.isr)
            if after is not None:
                yield ("ControllerElectLeader", n), after


def controller_shrink_isr(state: SpecState, bounds: SpecBounds):
    """A broker fails or shuts down and the controller takes it out of the ISR. If it was the
    leader the partition is left leaderless (election is a separate step); a sole ISR member
    that fails stays in the ISR, so there is always someone to elect. Failed brokers are not
    modelled otherwise: the replica may go on acting as a zombie."""
    quorum = state.quorum
    for r in range(bounds.replicas):
        me = 1 << r
        if quorum.leader == r:
            after = controller_update(state, bounds, NONE, quorum.isr if quorum.isr == me else quorum.isr & ~me)
        elif quorum.isr & me:
            after = controller_update(state, bounds, quorum.leader, quorum.isr & ~me)
        else:
            continue
        if after is not None:
            yield ("ControllerShrinkIsr", r), after
