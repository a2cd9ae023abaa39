"""What the controller does: elect leaders and shrink the ISR when a broker fails.

The controller has no state of its own: it writes the quorum state (ZooKeeper) directly and
sends a LeaderAndIsr request with every update. Requests are never removed, so a replica
may act on any of them later, any number of times.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import ELECT_CANDIDATE, ELECT_EPOCH, SHRINK_EPOCH, SHRINK_MEMBER
from .kinds import CONTROLLER_ELECT_LEADER, CONTROLLER_SHRINK_ISR
from .layout import member, quorum_epoch, quorum_isr, quorum_leader, record_update
from .state import NONE


@kernel
def epochs_left(s, lay):
    """The controller may still bump the epoch: the next one is at most `max_epoch`."""
    return quorum_epoch(s, lay) + 1 <= lay.max_epoch


@kernel
def controller_update(t, lay, new_leader, new_isr):
    """Bump the leader epoch, record (epoch, leader, ISR) in the quorum and send it as a
    LeaderAndIsr request (callers check `epochs_left` first)."""
    record_update(t, lay, quorum_epoch(t, lay) + 1, new_leader, new_isr)


@kernel
def controller_elect_leader(s, lay, out, acts, tally, n):
    """Clean leader election: the controller picks any ISR member other than the current
    leader and bumps the epoch. It may do so at any time (broker failure, rebalancing)."""
    if not holds(tally, ELECT_EPOCH, epochs_left(s, lay)):
        return n
    isr = quorum_isr(s, lay)
    for r in range(lay.replicas):
        if holds(tally, ELECT_CANDIDATE, member(isr, r) and r != quorum_leader(s, lay)):
            t = emit(s, out, acts, n, action_code(CONTROLLER_ELECT_LEADER, r, 0, 0))
            controller_update(t, lay, r, isr)
            n += 1
    return n


@kernel
def controller_shrink_isr(s, lay, out, acts, tally, n):
    """A broker fails or shuts down and the controller takes it out of the ISR. If it was the
    leader the partition is left leaderless (election is a separate step); a sole ISR member
    that fails stays in the ISR, so there is always someone to elect. Failed brokers are not
    modelled otherwise: the replica may go on acting as a zombie."""
    if not holds(tally, SHRINK_EPOCH, epochs_left(s, lay)):
        return n
    isr = quorum_isr(s, lay)
    for r in range(lay.replicas):
        me = 1 << r
        if not holds(tally, SHRINK_MEMBER, quorum_leader(s, lay) == r or member(isr, r)):
            continue
        if quorum_leader(s, lay) == r:
            t = emit(s, out, acts, n, action_code(CONTROLLER_SHRINK_ISR, r, 0, 0))
            controller_update(t, lay, NONE, isr if isr == me else isr & ~me)
            n += 1
        elif member(isr, r):
            t = emit(s, out, acts, n, action_code(CONTROLLER_SHRINK_ISR, r, 0, 0))
            controller_update(t, lay, quorum_leader(s, lay), isr & ~me)
            n += 1
    return n
