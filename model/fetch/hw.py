"""How a leader's high watermark moves, and who is the true leader."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import (alive, controller_epoch, controller_leader, epoch, hw, isr, known_leo, leader, leo, member, set_hw,
                     size)
from .quorum import majority_hw
from .rule_kernels import majority_quorum, strict_min_isr


@kernel
def leads_epoch(s, lay, r, e):
    """Broker r is alive and leads epoch e (whether or not the controller has moved on)."""
    return alive(s, lay, r) and leader(s, lay, r) == r and epoch(s, lay, r) == e


@kernel
def is_true_leader(s, lay, r):
    """r is alive, believes it leads, and is the controller's leader in the controller's epoch."""
    return controller_leader(s, lay) == r and leads_epoch(s, lay, r, controller_epoch(s, lay))


@kernel
def isr_hw(t, lay, r):
    """The HW leader r may have under the ISR: the minimum over its ISR of the LEOs it knows
    (its own, and each follower's remote LEO, the offset of that follower's latest FETCH; its
    own LEO when the ISR is empty)."""
    low = -1
    for f in range(lay.replicas):
        if member(isr(t, lay, r), f) and (low < 0 or known_leo(t, lay, r, f) < low):
            low = known_leo(t, lay, r, f)
    return leo(t, lay, r) if low < 0 else low


@kernel
def advance_hw(t, lay, r):
    """Leader r recomputes its HW: by its ISR (`isr_hw`), or under a majority quorum by what a
    majority holds (`quorum.majority_hw`). It never moves backwards while the replica stays
    leader. Kafka recomputes it on a produce append, a follower fetch, becoming leader and an
    ISR change; callers do so on exactly those steps. From Kafka 3.7 it stays put while the ISR
    is below min.insync.replicas (`rule_kernels.strict_min_isr`)."""
    if strict_min_isr(lay) and size(isr(t, lay, r)) < lay.min_insync:
        return
    target = majority_hw(t, lay, r) if majority_quorum(lay) else isr_hw(t, lay, r)
    if target > hw(t, lay, r):
        set_hw(t, lay, r, target)
