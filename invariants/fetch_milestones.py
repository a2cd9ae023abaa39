"""Milestones on the way to a lost committed record, for simulation to steer by.

Kafka's lost-record stories end the same way: a member of the ISR lacks a committed record, and
the next clean election picks it. They differ in how that member got there. In KIP-101's first
scenario a restarted follower truncated the record away; in the losses that remain under KIP-101
and KIP-279 in this model, a leader first forgets how far the HW had reached (a crash takes the
in-memory HW, and the checkpoint lags), leads again with that old HW, and lets a replica that
lacks the record into the ISR, because the ISR expansion compares the replica's LEO with that
old HW. Each stage is a condition over one state; a state's level is the highest stage it is
at, and a story may skip stages. A walk that reaches a higher level is closer to a loss, and
`checker.simulation.splitting` starts later walks from there.

The stages are hints, not rules: they never change what a step does or what an invariant
says, only where simulation spends its walks. A stage that some other loss does not pass costs
walks, not answers.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from model.fetch.ghost import holds_committed, true_leader
from model.fetch.layout import committed_offset, controller_isr, controller_leader, ghost_records, hw, member
from model.fetch.state import NONE

COMMITTED_MILESTONES = (
    "a record is committed",
    "the controller's leader has an HW below a committed record (it crashed, or restarted with an old HW)",
    "the partition's true leader has an HW below a committed record",
    "a member of the controller's ISR lacks a committed record (the next clean election may lose it)",
)
"""The stages of `committed_milestone`, levels 1 to 4."""


@kernel
def committed_end(s, lay):
    """One past the highest offset of a committed record (0: nothing committed yet)."""
    end = 0
    for rid in range(ghost_records(lay)):
        end = max(end, committed_offset(s, lay, rid) + 1)
    return end


@kernel
def isr_lacks_committed(s, lay):
    """Some member of the controller's ISR, the set a clean election picks from, lacks a
    committed record at its offset."""
    isr = controller_isr(s, lay)
    for r in range(lay.replicas):
        if member(isr, r) and not holds_committed(s, lay, r):
            return True
    return False


@kernel
def committed_milestone(s, lay):
    """The highest stage of `COMMITTED_MILESTONES` that state `s` is at (0: none)."""
    end = committed_end(s, lay)
    if end == 0:
        return 0
    if isr_lacks_committed(s, lay):
        return 4
    ldr = true_leader(s, lay)
    if ldr != NONE and hw(s, lay, ldr) < end:
        return 3
    ldr = controller_leader(s, lay)
    if ldr != NONE and hw(s, lay, ldr) < end:
        return 2
    return 1
