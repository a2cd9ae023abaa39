"""What the four protocol variants change, asked of the layout's variant index:

    rule                                         hw    kip101  kip279  kip320
    truncation point on becoming follower        hw    kip101  kip279  kip279
    asks the leader (OffsetsForLeaderEpoch)      no    yes     yes     yes
    current leader epoch in FETCH and OffsetsForLeaderEpoch (fencing)   kip320 only

and what a majority quorum (`--quorum majority`, Raft and KRaft's rules, always with kip320's
fencing) changes in their place: votes instead of the controller's election, commitment on a
majority instead of the ISR, and a follower that reconciles its log at each FETCH instead of
truncating when it becomes follower (see `model.fetch.quorum` and `model.fetch.election`).
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import HW_TRUNCATION, ISR_QUORUM, KIP101, KIP320, MAJORITY, leo
from .truncation import hw_truncation, kip101_truncation, kip279_truncation


@kernel
def majority_quorum(lay):
    """Raft-style replication (`--quorum majority` or `majority-naive`): a record is committed
    once a majority of replicas hold it, a leader is elected by the votes of a majority, and a
    follower drops only the suffix of its log that differs from the leader's. No ISR, and no
    controller elections."""
    return lay.quorum != ISR_QUORUM


@kernel
def own_epoch_rule(lay):
    """Raft's commitment rule: a leader counts replicas only for a record of its own epoch
    (records of earlier epochs are committed with it). Off only under `majority-naive`."""
    return lay.quorum == MAJORITY


@kernel
def truncation_point(s, lay, r, ldr):
    """Where broker r truncates its log when it becomes follower of `ldr` (before capping at its
    LEO). Under a majority quorum nowhere: the follower reconciles at its next FETCH."""
    if majority_quorum(lay):
        return leo(s, lay, r)
    if lay.variant == HW_TRUNCATION:
        return hw_truncation(s, lay, r, ldr)
    if lay.variant == KIP101:
        return kip101_truncation(s, lay, r, ldr)
    return kip279_truncation(s, lay, r, ldr)


@kernel
def asks_leader(lay):
    """Becoming follower needs an answer from the live leader (OffsetsForLeaderEpoch)."""
    return lay.variant != HW_TRUNCATION and not majority_quorum(lay)


@kernel
def fenced(lay):
    """Every FETCH and OffsetsForLeaderEpoch carries the follower's current leader epoch, and a
    leader in another epoch refuses it (KIP-320), so no follower acts on a stale leader. A
    majority quorum always runs with it (Raft's term check; KRaft's epoch in every FETCH)."""
    return lay.variant == KIP320 or majority_quorum(lay)
