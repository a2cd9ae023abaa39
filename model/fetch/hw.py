"""How a leader's high watermark moves, and who is the true leader."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import alive, controller_epoch, controller_leader, epoch, hw, isr, leader, leo, member, remote_leo, set_hw


@kernel
def is_true_leader(s, lay, r):
    """r is alive, believes it leads, and is the controller's leader in the controller's epoch."""
    return (alive(s, lay, r) and leader(s, lay, r) == r and controller_leader(s, lay) == r
            and epoch(s, lay, r) == controller_epoch(s, lay))


@kernel
def advance_hw(t, lay, r):
    """Leader r recomputes its HW: the minimum over its ISR of the LEOs it knows (its own, and
    each follower's remote LEO, the offset of that follower's latest FETCH; its own LEO when the
    ISR is empty). It never moves backwards while the replica stays leader. Kafka recomputes it
    on a produce append, a follower fetch, becoming leader and an ISR change; callers do so on
    exactly those steps."""
    own = leo(t, lay, r)
    known = own
    first = True
    for f in range(lay.replicas):
        if not member(isr(t, lay, r), f):
            continue
        value = own if f == r else max(remote_leo(t, lay, r, f), 0)
        if first or value < known:
            known = value
            first = False
    if known > hw(t, lay, r):
        set_hw(t, lay, r, known)
