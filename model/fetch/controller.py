"""The controller: notices dead and restarted brokers, elects leaders, sends LeaderAndIsr.

Every election bumps the leader epoch (up to `max_epoch`) and sends LeaderAndIsr to the live
brokers, which may handle their requests late and in any order (a broker ignores one whose
epoch is not above its own; a crash loses the requests not yet handled). A broker that comes
back is sent the current LeaderAndIsr when the controller notices it.

Kafka elects the first live ISR member in the partition's replica assignment order, which
differs from partition to partition; so an election here is a choice among every live ISR
member (each choice is its own step), which covers every assignment order and prefers no
replica id.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from .kinds import CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, NO_LEADER
from .layout import (alive, controller_epoch, controller_isr, controller_leader, controller_offline, crashes, deliver,
                     epoch, has_request, member, set_controller, set_controller_offline)
from .state import NO_EPOCH, NONE
from .variants import majority_quorum


@kernel
def leader_arg(ldr):
    """The controller's leader as an action argument (`NO_LEADER` when offline)."""
    return NO_LEADER if ldr == NONE else ldr


@kernel
def controller_update(t, lay, ldr, new_isr, offline):
    """A new leader epoch with this leader and ISR is recorded and sent to every live broker
    (callers check that epochs remain)."""
    e = controller_epoch(t, lay) + 1
    set_controller(t, lay, e, ldr, new_isr, offline)
    for r in range(lay.replicas):
        if alive(t, lay, r):
            deliver(t, lay, r, e, ldr, new_isr)


@kernel
def live(s, lay, offline):
    """The replicas that are up and not among the brokers the controller knows are dead."""
    replicas = 0
    for r in range(lay.replicas):
        if alive(s, lay, r) and not member(offline, r):
            replicas |= 1 << r
    return replicas


@kernel
def candidates(s, lay, isr, offline):
    """Whom an election may pick: the live ISR members; if none, with unclean election on, the
    live replicas (all outside the ISR); else nobody (the partition goes offline)."""
    up = live(s, lay, offline)
    if isr & up:
        return isr & up
    return up if lay.unclean else 0


@kernel
def elect(s, lay, out, acts, n, kind, noticed, isr, offline):
    """One successor per election outcome, each taken by action (kind, noticed broker, new
    leader): every candidate (a replica elected from outside the ISR becomes the whole ISR),
    or, with no candidate, the partition offline with the ISR unchanged."""
    choice = candidates(s, lay, isr, offline)
    if choice == 0:
        t = emit(s, out, acts, n, action_code(kind, noticed, NO_LEADER, 0))
        controller_update(t, lay, NONE, isr, offline)
        return n + 1
    for r in range(lay.replicas):
        if member(choice, r):
            t = emit(s, out, acts, n, action_code(kind, noticed, r, 0))
            controller_update(t, lay, r, isr if member(isr, r) else 1 << r, offline)
            n += 1
    return n


@kernel
def controller_notice_failure(s, lay, out, acts, n):
    """The controller notices that broker r died: it leaves the ISR (unless it is the last member,
    as Kafka keeps it), and if it led, or the partition was offline, a new leader is elected;
    either way a new epoch is sent. (Not under a majority quorum, which has no ISR and elects by
    votes.)"""
    if majority_quorum(lay) or controller_epoch(s, lay) >= lay.max_epoch:
        return n
    ldr, isr, offline = controller_leader(s, lay), controller_isr(s, lay), controller_offline(s, lay)
    for r in range(lay.replicas):
        if alive(s, lay, r) or member(offline, r):
            continue
        me = 1 << r
        shrunk = isr & ~me if isr & ~me else isr
        if ldr == r or ldr == NONE:
            n = elect(s, lay, out, acts, n, CONTROLLER_NOTICE_FAILURE, r, shrunk, offline | me)
        else:
            t = emit(s, out, acts, n, action_code(CONTROLLER_NOTICE_FAILURE, r, ldr, 0))
            controller_update(t, lay, ldr, shrunk, offline | me)
            n += 1
    return n


@kernel
def waiting(s, lay, r):
    """Broker r has a LeaderAndIsr request it has not handled yet."""
    for e in range(lay.max_epoch + 1):
        if has_request(s, lay, r, e):
            return True
    return False


@kernel
def controller_notice_restart(s, lay, out, acts, n):
    """The controller notices that broker r is back (it knows no epoch and has no request to
    handle). If the partition is offline, or r was its leader (it restarted before the
    controller noticed it had died), a leader is elected in a new epoch: a restarted broker never
    resumes leadership in an old epoch, since it may have lost records of it. Otherwise, or when
    nobody can be elected, r is sent the current LeaderAndIsr. Under a majority quorum nobody
    is elected here (elections are votes, `election.win_election`): r is sent the current
    leader, unless r was that leader, which waits for the next election."""
    ldr, isr, e = controller_leader(s, lay), controller_isr(s, lay), controller_epoch(s, lay)
    for r in range(lay.replicas):
        if not (alive(s, lay, r) and epoch(s, lay, r) == NO_EPOCH and crashes(s, lay) > 0):
            continue
        if waiting(s, lay, r):
            continue
        offline = controller_offline(s, lay) & ~(1 << r)
        if majority_quorum(lay):
            if ldr == r:
                continue
        elif (ldr == r or ldr == NONE) and candidates(s, lay, isr, offline):
            if e < lay.max_epoch:
                n = elect(s, lay, out, acts, n, CONTROLLER_NOTICE_RESTART, r, isr, offline)
            continue
        t = emit(s, out, acts, n, action_code(CONTROLLER_NOTICE_RESTART, r, leader_arg(ldr), 0))
        set_controller_offline(t, lay, offline)
        deliver(t, lay, r, e, ldr, isr)
        n += 1
    return n
