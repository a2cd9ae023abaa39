"""What the four protocol variants change, asked of the layout's variant index:

    rule                                         hw    kip101  kip279  kip320
    truncation point on becoming follower        hw    kip101  kip279  kip279
    asks the leader (OffsetsForLeaderEpoch)      no    yes     yes     yes
    current leader epoch in FETCH and OffsetsForLeaderEpoch (fencing)   kip320 only
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import HW_TRUNCATION, KIP101, KIP320
from .truncation import hw_truncation, kip101_truncation, kip279_truncation


@kernel
def truncation_point(s, lay, r, ldr):
    """Where broker r truncates its log when it becomes follower of `ldr` (before capping at its LEO)."""
    if lay.variant == HW_TRUNCATION:
        return hw_truncation(s, lay, r, ldr)
    if lay.variant == KIP101:
        return kip101_truncation(s, lay, r, ldr)
    return kip279_truncation(s, lay, r, ldr)


@kernel
def asks_leader(lay):
    """Becoming follower needs an answer from the live leader (OffsetsForLeaderEpoch)."""
    return lay.variant != HW_TRUNCATION


@kernel
def fenced(lay):
    """Every FETCH and OffsetsForLeaderEpoch carries the follower's current leader epoch, and a
    leader in another epoch refuses it (KIP-320), so no follower acts on a stale leader."""
    return lay.variant == KIP320
