"""Eligible leader replicas (KIP-966 part 1; the `kip966` variant only).

With Kafka 3.7's strict rule a leader's HW stands still while its ISR is below
min.insync.replicas, so a replica that leaves the ISR then still holds every committed record.
The controller keeps such replicas as the partition's eligible leader replicas (ELR), lets the
ISR become empty, and when it is empty may elect an unfenced ELR member. It learns at each
registration whether the broker shut down cleanly: one that did not (it may have lost its
unflushed tail) leaves the ISR and the ELR. Changing the ELR needs no new leader epoch.

Elections pick, in this order: a live ISR member if the ISR is not empty; else an unfenced
ELR member; else, when the ELR is empty too, the last known leader (the leader when the ISR
last became empty) if it is unfenced (`PartitionChangeBuilder.canElectLastKnownLeader` @ 1eb7644
(trunk, not a tag) needs both the target ISR and the target ELR empty).
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds

from .guards import ELR_MEMBER_UNFENCED, ISR_EMPTY, LAST_LEADER_UNFENCED
from .layout import (RUNNING, controller_isr, controller_leader, elr, last_known_leader, last_stop, member,
                     set_elr, set_last_known_leader, size)
from .state import NONE
from .rule_kernels import eligible_leaders


@kernel
def registered(s, lay, r):
    """Broker r has registered with the controller since it last stopped, so the controller
    knows whether it shut down cleanly (always true outside kip966, which keeps no record)."""
    return last_stop(s, lay, r) == RUNNING


@kernel
def elr_after(s, lay, isr_after, unclean):
    """The ELR once the controller's ISR goes from s's to `isr_after`: empty while the ISR has
    at least min.insync.replicas members; otherwise the ELR and the old ISR, less the new ISR
    and the replicas in `unclean` (those registering after an unclean shutdown). Zero outside
    kip966."""
    if not eligible_leaders(lay) or size(isr_after) >= lay.min_insync:
        return 0
    return (elr(s, lay) | controller_isr(s, lay)) & ~isr_after & ~unclean


@kernel
def elr_candidates(s, lay, tally, isr, new_elr, up):
    """Whom a kip966 election may pick among the unfenced replicas `up`, when the ISR is `isr`
    and the ELR `new_elr`: the ISR's live members if the ISR is not empty; else the unfenced
    ELR members; else, only when the ELR is empty, the last known leader if it is unfenced
    (Kafka waits for a fenced ELR member rather than elect it); else nobody."""
    if not holds(tally, ISR_EMPTY, isr == 0):
        return isr & up
    if holds(tally, ELR_MEMBER_UNFENCED, new_elr & up != 0):
        return new_elr & up
    last = last_known_leader(s, lay)
    if holds(tally, LAST_LEADER_UNFENCED, new_elr == 0 and last != NONE and member(up, last)):
        return 1 << last
    return 0


@kernel
def elr_after_election(lay, chosen, isr, new_elr):
    """The ELR once `chosen` is elected with the ISR `isr` and the ELR `new_elr` before the
    election: unchanged for an ISR member, less the new leader for an ELR member (which becomes
    the whole ISR), and empty after any other choice (the last known leader or an unclean
    election, which makes the new leader the whole ISR)."""
    if member(isr, chosen) or chosen == NONE:
        return new_elr
    if member(new_elr, chosen):
        return new_elr & ~(1 << chosen)
    return 0


@kernel
def record_elr(s, t, lay, new_elr):
    """The controller's record in `t` (its leader and ISR already written) gets ELR `new_elr`;
    the last known leader becomes s's leader when this change empties the ISR, and is forgotten
    once the partition has a leader. Nothing outside kip966."""
    if not eligible_leaders(lay):
        return
    set_elr(t, lay, new_elr)
    before = controller_leader(s, lay)
    if controller_isr(t, lay) == 0 and controller_isr(s, lay) != 0 and before != NONE:
        set_last_known_leader(t, lay, before)
    elif controller_leader(t, lay) != NONE:
        set_last_known_leader(t, lay, NONE)
