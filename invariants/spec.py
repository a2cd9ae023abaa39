"""Invariants of the `spec` model, as in the public TLA+ specification, written over packed
states (see `model.spec.layout`) so the compiled search evaluates them; on a readable state
each is evaluated by encoding it first."""

from __future__ import annotations

from checker.invariant import Invariant
from checker.kernel.jit import kernel
from model.spec.codec import encode, fitting_layout
from model.spec.layout import isr, leader, member, quorum_isr, quorum_leader
from model.spec.state import NONE

from .kafka_shapes import agrees_below_hw, on_readable


@kernel
def leader_in_isr(s, lay):
    """The controller's leader is a member of the controller's ISR.

    This is the specification's LeaderInIsr as written: it also fails whenever the partition
    has no leader (including the initial state), so it mostly shows how often a partition is
    leaderless. Use leader-in-isr-or-none for the useful form."""
    ldr = quorum_leader(s, lay)
    return ldr != NONE and member(quorum_isr(s, lay), ldr)


@kernel
def leader_in_isr_or_none(s, lay):
    """The controller's leader, when there is one, is a member of the controller's ISR.

    A failure would mean the controller elected (or kept) a leader that is not known to hold
    every committed record: an unclean election that the protocol never asked for."""
    ldr = quorum_leader(s, lay)
    return ldr == NONE or member(quorum_isr(s, lay), ldr)


@kernel
def weak_isr(s, lay):
    """Every replica that presumes leadership agrees, below its HW, with every member of the
    ISR it believes in.

    A failure means a leader has exposed records to consumers (they are below its HW) that a
    replica it counts as in sync does not hold: the leader's own view of "committed" is
    already wrong, and a failover to that replica would lose or replace those records."""
    for r1 in range(lay.replicas):
        if leader(s, lay, r1) == r1 and not agrees_below_hw(s, lay, r1, isr(s, lay, r1)):
            return False
    return True


@kernel
def strong_isr(s, lay):
    """Every replica that presumes leadership agrees, below its HW, with every member of the
    controller's ISR, the set the next clean election picks from.

    A failure means a record already exposed to consumers can be lost by the next clean
    leader election: the controller may elect an ISR member that lacks it. HW truncation
    allows it outright; leader-epoch truncation (KIP-101, KIP-279) still allows it through a
    stale LeaderAndIsr request, until KIP-320 fences requests and fetches by epoch."""
    for r1 in range(lay.replicas):
        if leader(s, lay, r1) == r1 and not agrees_below_hw(s, lay, r1, quorum_isr(s, lay)):
            return False
    return True


@kernel
def violations(s, lay, selected):
    """The invariants among `selected` (bit i: the i-th of `INVARIANTS`) that `s` violates."""
    mask = 0
    if selected & 1 and not leader_in_isr(s, lay):
        mask |= 1
    if selected & 2 and not leader_in_isr_or_none(s, lay):
        mask |= 2
    if selected & 4 and not weak_isr(s, lay):
        mask |= 4
    if selected & 8 and not strong_isr(s, lay):
        mask |= 8
    return mask


def _invariant(name: str, summary: str, predicate, named_only: str = "") -> Invariant:
    return Invariant(name, summary, on_readable(predicate, encode, fitting_layout), kernel=predicate,
                     named_only=named_only)


INVARIANTS = (
    _invariant("leader-in-isr", "the quorum's leader is in the quorum's ISR (fails when leaderless)", leader_in_isr,
               named_only="the public specification's own invariant fails whenever the partition has no leader, "
                          "the initial state included; leader-in-isr-or-none is the one to check"),
    _invariant("leader-in-isr-or-none", "the quorum's leader, if any, is in the quorum's ISR", leader_in_isr_or_none),
    _invariant("weak-isr", "a presumed leader's ISR view holds its log below its HW", weak_isr),
    _invariant("strong-isr", "the quorum's ISR holds every presumed leader's log below its HW", strong_isr),
)
"""In the order of their bits in `violations`."""
