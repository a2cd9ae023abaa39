"""Invariants of the `spec` model, as in the public TLA+ specification."""

from __future__ import annotations

from checker.invariant import Invariant
from model.spec.state import NONE, SpecState, members


def leader_in_isr(state: SpecState) -> bool:
    """The controller's leader is a member of the controller's ISR.

    This is the specification's LeaderInIsr as written: it also fails whenever the partition
    has no leader (including the initial state), so it mostly shows how often a partition is
    leaderless. Use leader-in-isr-or-none for the useful form."""
    leader = state.quorum.leader
    return leader != NONE and state.quorum.isr >> leader & 1 == 1


def leader_in_isr_or_none(state: SpecState) -> bool:
    """The controller's leader, when there is one, is a member of the controller's ISR.

    A failure would mean the controller elected (or kept) a leader that is not known to hold
    every committed record: an unclean election that the protocol never asked for."""
    leader = state.quorum.leader
    return leader == NONE or state.quorum.isr >> leader & 1 == 1


def _isr_agrees_below_hw(state: SpecState, r1: int, isr: int) -> bool:
    """Every replica in `isr` holds exactly r1's record at every offset below r1's HW (an
    offset missing from either log is a disagreement; an empty ISR agrees vacuously)."""
    replicas = state.replicas
    hw = replicas[r1].hw
    committed = replicas[r1].log[:hw]
    return all(len(committed) == hw and replicas[r2].log[:hw] == committed for r2 in members(isr))


def weak_isr(state: SpecState) -> bool:
    """Every replica that presumes leadership agrees, below its HW, with every member of the
    ISR it believes in.

    A failure means a leader has exposed records to consumers (they are below its HW) that a
    replica it counts as in sync does not hold: the leader's own view of "committed" is
    already wrong, and a failover to that replica would lose or replace those records."""
    return all(rep.leader != r1 or _isr_agrees_below_hw(state, r1, rep.isr) for r1, rep in enumerate(state.replicas))


def strong_isr(state: SpecState) -> bool:
    """Every replica that presumes leadership agrees, below its HW, with every member of the
    controller's ISR, the set the next clean election picks from.

    A failure means a record already exposed to consumers can be lost by the next clean
    leader election: the controller may elect an ISR member that lacks it. This is the data
    loss that HW truncation allowed and leader epochs were introduced to prevent."""
    isr = state.quorum.isr
    return all(rep.leader != r1 or _isr_agrees_below_hw(state, r1, isr) for r1, rep in enumerate(state.replicas))


INVARIANTS = (
    Invariant("leader-in-isr", "the quorum's leader is in the quorum's ISR (fails when leaderless)", leader_in_isr),
    Invariant("leader-in-isr-or-none", "the quorum's leader, if any, is in the quorum's ISR", leader_in_isr_or_none),
    Invariant("weak-isr", "a presumed leader's ISR view holds its log below its HW", weak_isr),
    Invariant("strong-isr", "the quorum's ISR holds every presumed leader's log below its HW", strong_isr),
)
