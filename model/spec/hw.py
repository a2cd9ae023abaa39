"""Variant `hw`: Kafka before 0.11, where a replica that becomes follower truncates its log
to its own high watermark, and nothing on the replication path checks the leader epoch.

`kip101` and `kip279` keep every rule here except the truncation point.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import hw, isr, leader, leo, member


@kernel
def truncation_point(s, lay, r, new_leader):
    """Where replica r truncates when it becomes follower: its own HW, which may lag the
    leader's, so committed records above it are dropped."""
    return hw(s, lay, r)


@kernel
def is_caught_up(s, lay, ldr, f, end):
    """The follower follows `ldr` and holds an entry at every offset below `end` that the
    leader holds (the spec compares lengths only, never the records themselves)."""
    logs_reach = end == 0 or (leo(s, lay, ldr) >= end and leo(s, lay, f) >= end)
    return leader(s, lay, f) == ldr and logs_reach


@kernel
def can_advance_hw(s, lay, ldr):
    """A presumed leader may move its HW up one offset when every replica of its ISR view
    follows it and has a record at the current HW. No epoch is checked, and the leader's
    own log is only looked at if it is in its own ISR view."""
    h = hw(s, lay, ldr)
    if leader(s, lay, ldr) != ldr or h >= lay.log_size:
        return False
    view = isr(s, lay, ldr)
    for f in range(lay.replicas):
        if member(view, f) and not (leader(s, lay, f) == ldr and leo(s, lay, f) > h):
            return False
    return True


@kernel
def is_lagging(s, lay, ldr, f):
    """An ISR member the leader may drop: it is not caught up to the leader's LEO."""
    return not is_caught_up(s, lay, ldr, f, leo(s, lay, ldr))


@kernel
def may_join_isr(s, lay, ldr, f):
    """A replica the leader may add to its ISR: caught up to the leader's HW."""
    return is_caught_up(s, lay, ldr, f, hw(s, lay, ldr))
