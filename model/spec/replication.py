"""The replication actions: HW advance, ISR shrink and expand, follower fetch, and becoming
follower. They are the same in every variant; the rules a variant changes are asked of
`variants` (truncation point, HW advance, ISR membership, epoch fencing)."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import (EXPAND_CAUGHT_UP, EXPAND_TRUE_LEADER, FOLLOW_NEWER, FOLLOW_REQUEST, FOLLOW_TRUNCATION, HW_ADVANCES,
                     REPLICATE_ACCEPTED, REPLICATE_BEHIND, REPLICATE_LEADS, SHRINK_LAGGING, SHRINK_TRUE_LEADER)
from . import variants
from .kinds import BECOME_FOLLOWER, FOLLOWER_REPLICATE, LEADER_EXPAND_ISR, LEADER_INC_HIGH_WATERMARK, LEADER_SHRINK_ISR
from .layout import (append, epoch, hw, isr, leader, leo, member, record_epoch, record_id, request_sent, request_isr,
                     request_leader, set_hw, set_view, truncate)
from .leadership import is_true_leader, quorum_isr_update
from .state import NONE


@kernel
def leader_inc_high_watermark(s, lay, out, acts, tally, n):
    """The leader advances its HW by one offset: the records below it become committed and
    visible to consumers. (Fetch requests are not modelled: all ISR members could have
    fetched, and this is the step in which the leader learns it.)"""
    for ldr in range(lay.replicas):
        if holds(tally, HW_ADVANCES, variants.can_advance_hw(s, lay, ldr)):
            t = emit(s, out, acts, n, action_code(LEADER_INC_HIGH_WATERMARK, ldr, 0, 0))
            set_hw(t, lay, ldr, hw(s, lay, ldr) + 1)
            n += 1
    return n


@kernel
def leader_shrink_isr(s, lay, out, acts, tally, n):
    """The leader drops a lagging follower from the ISR, through a fenced quorum write."""
    for ldr in range(lay.replicas):
        if not holds(tally, SHRINK_TRUE_LEADER, is_true_leader(s, lay, ldr)):
            continue
        view = isr(s, lay, ldr)
        for f in range(lay.replicas):
            if member(view, f) and f != ldr and holds(tally, SHRINK_LAGGING, variants.is_lagging(s, lay, ldr, f)):
                t = emit(s, out, acts, n, action_code(LEADER_SHRINK_ISR, ldr, f, 0))
                quorum_isr_update(t, lay, ldr, view & ~(1 << f))
                n += 1
    return n


@kernel
def leader_expand_isr(s, lay, out, acts, tally, n):
    """The leader adds a caught-up follower back to the ISR, through a fenced quorum write."""
    for ldr in range(lay.replicas):
        if not holds(tally, EXPAND_TRUE_LEADER, is_true_leader(s, lay, ldr)):
            continue
        view = isr(s, lay, ldr)
        for f in range(lay.replicas):
            if not member(view, f) and holds(tally, EXPAND_CAUGHT_UP, variants.may_join_isr(s, lay, ldr, f)):
                t = emit(s, out, acts, n, action_code(LEADER_EXPAND_ISR, ldr, f, 0))
                quorum_isr_update(t, lay, ldr, view | (1 << f))
                n += 1
    return n


@kernel
def follower_replicate(s, lay, out, acts, tally, n):
    """A follower copies the leader's record at its LEO and takes the leader's HW, capped by
    its own new LEO (a follower's HW is never above its log end)."""
    for ldr in range(lay.replicas):
        if not holds(tally, REPLICATE_LEADS, leader(s, lay, ldr) == ldr):
            continue
        for f in range(lay.replicas):
            end = leo(s, lay, f)
            if (leader(s, lay, f) == ldr
                    and holds(tally, REPLICATE_BEHIND, end < leo(s, lay, ldr) and end < lay.log_size)
                    and holds(tally, REPLICATE_ACCEPTED, variants.accepts_fetch(s, lay, ldr, f))):
                t = emit(s, out, acts, n, action_code(FOLLOWER_REPLICATE, f, ldr, 0))
                append(t, lay, f, record_id(s, lay, ldr, end), record_epoch(s, lay, ldr, end))
                set_hw(t, lay, f, min(hw(s, lay, ldr), end + 1))
                n += 1
    return n


@kernel
def become_follower(s, lay, out, acts, tally, n):
    """A replica receives a LeaderAndIsr request naming another replica leader in an epoch
    above its own: it truncates its log at the variant's truncation point, caps its HW
    there, and follows the new leader. Not enabled when the point lies beyond its log."""
    for e in range(lay.max_epoch + 1):
        ldr = request_leader(s, lay, e)
        if not holds(tally, FOLLOW_REQUEST, request_sent(s, lay, e) and ldr != NONE
                     and variants.may_become_follower(s, lay, ldr, e)):
            continue
        for r in range(lay.replicas):
            if r == ldr or not holds(tally, FOLLOW_NEWER, e > epoch(s, lay, r)):
                continue
            k = variants.truncation_point(s, lay, r, ldr)
            if not holds(tally, FOLLOW_TRUNCATION, k <= leo(s, lay, r)):
                continue
            t = emit(s, out, acts, n, action_code(BECOME_FOLLOWER, r, ldr, e))
            truncate(t, lay, r, k)
            set_hw(t, lay, r, min(k, hw(s, lay, r)))
            set_view(t, lay, r, e, ldr, request_isr(s, lay, e))
            n += 1
    return n
