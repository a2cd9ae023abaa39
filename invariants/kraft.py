"""Invariants of the `kraft` model: the four the TLA+ specification checks, and one step
property: a voter's HW never moves back."""

from __future__ import annotations

from checker.invariant import Invariant, StepProperty
from model.kraft.state import ACKED, ILLEGAL, LEADER, NIL, KRaftState

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def leader_has_acked_values(s: KRaftState) -> bool:
    """The newest leader (no voter in a later epoch) has every value a client was
    acknowledged: a failure is an acknowledged write lost (the specification's
    LeaderHasAllAckedValues)."""
    newest = max(s.epoch)
    for i, role in enumerate(s.role):
        if role == LEADER and s.epoch[i] == newest:
            held = {value for _, value in s.log[i]}
            if any(a == ACKED and v not in held for v, a in enumerate(s.acked, 1)):
                return False
    return True


def no_log_divergence(s: KRaftState) -> bool:
    """Any two voters' logs agree up to the lower of their two HWs: what one voter counts as
    committed is what the other has (the specification's NoLogDivergence)."""
    n = len(s.role)
    for a in range(n):
        for b in range(a + 1, n):
            low = min(s.hw[a], s.hw[b])
            if low and s.log[a][:low] != s.log[b][:low]:
                return False
    return True


def one_leader_per_epoch(s: KRaftState) -> bool:
    """No two voters of one epoch know different leaders (the specification's
    NeverTwoLeadersInSameEpoch)."""
    known = {}
    for epoch, leader in zip(s.epoch, s.leader):
        if leader != NIL and known.setdefault(epoch, leader) != leader:
            return False
    return True


def no_illegal_state(s: KRaftState) -> bool:
    """No voter took a transition Kafka's `QuorumState` refuses, such as following a leader
    in the epoch it already follows or leads in (the specification's NoIllegalState), or, in a
    faithful variant, a step on which Kafka's code throws (a follower told to truncate below its
    HW, or sent a lower HW than it has)."""
    return ILLEGAL not in s.role


def hw_never_goes_back(before: KRaftState, action: tuple, after: KRaftState) -> bool:
    """No voter's HW moves back in a step: what it counted as committed stays counted. A voter
    that restarts forgets its HW, and a new leader has none until its epoch's first record is
    committed (Kafka's `LeaderState` starts without one); those steps are not moves back."""
    for i, (old, new) in enumerate(zip(before.hw, after.hw)):
        restarted = action[0] in ("Restart", "LoseDisk") and action[1] == i + 1
        elected = after.role[i] == LEADER and before.role[i] != LEADER
        if new < old and not restarted and not elected:
            return False
    return True


INVARIANTS = (
    Invariant("leader-has-acked-values", "the newest leader holds every acknowledged value", leader_has_acked_values),
    Invariant("no-log-divergence", "voters' logs agree below the lower of their HWs", no_log_divergence),
    Invariant("one-leader-per-epoch", "never two leaders known in one epoch", one_leader_per_epoch),
    Invariant("no-illegal-state", "no voter takes a transition QuorumState refuses", no_illegal_state),
    StepProperty("hw-never-goes-back", "no voter's HW moves back, but as it restarts or is elected (a step property)",
                 hw_never_goes_back),
)
