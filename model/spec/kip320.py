"""Variant `kip320` (Kafka 2.1): fenced fetch and fenced truncation.

Truncation is KIP-279's. What KIP-320 adds is the current leader epoch in every fetch and
OffsetsForLeaderEpoch request: a leader only serves, counts towards its HW, or admits to its
ISR a follower in its own epoch, and a follower only truncates against a leader that has
already taken the request's epoch.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import epoch, hw, isr, leader, leo, member, record_epoch


@kernel
def follows_in_epoch(s, lay, ldr, f):
    """The leader presumes leadership and the follower follows it in the same leader epoch."""
    return leader(s, lay, ldr) == ldr and leader(s, lay, f) == ldr and epoch(s, lay, f) == epoch(s, lay, ldr)


@kernel
def can_advance_hw(s, lay, ldr):
    """The HW moves up one offset when the leader's own log extends past it and every member
    of its ISR view follows it in its epoch with a record at the HW. (No leadership test of
    its own: it comes from the followers' checks, as in the specification.)"""
    h = hw(s, lay, ldr)
    if leo(s, lay, ldr) <= h:
        return False
    view = isr(s, lay, ldr)
    for f in range(lay.replicas):
        if member(view, f) and not (follows_in_epoch(s, lay, ldr, f) and leo(s, lay, f) > h):
            return False
    return True


@kernel
def is_lagging(s, lay, ldr, f):
    """An ISR member the leader may drop: not following it in its epoch, or behind its LEO."""
    return not follows_in_epoch(s, lay, ldr, f) or leo(s, lay, f) < leo(s, lay, ldr)


@kernel
def may_join_isr(s, lay, ldr, f):
    """A replica may join the ISR when it follows the leader in its epoch, has reached the
    leader's HW, and the leader has already written in its epoch at the HW (or the HW is its
    LEO): a follower must have caught up to the start of the current epoch."""
    h = hw(s, lay, ldr)
    return (follows_in_epoch(s, lay, ldr, f)
            and (h == 0 or leo(s, lay, f) >= h)
            and (h == leo(s, lay, ldr) or record_epoch(s, lay, ldr, h) == epoch(s, lay, ldr)))


@kernel
def accepts_fetch(s, lay, ldr, f):
    """The fetch carries the follower's leader epoch; a leader in another epoch refuses it
    (FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH)."""
    return epoch(s, lay, f) == epoch(s, lay, ldr)


@kernel
def may_become_follower(s, lay, ldr, e):
    """The follower truncates only against a leader that presumes leadership in the
    request's epoch, so OffsetsForLeaderEpoch is answered by the leader of that epoch."""
    return leader(s, lay, ldr) == ldr and epoch(s, lay, ldr) == e
