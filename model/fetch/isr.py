"""The leader's ISR changes, each written to the controller's record (fenced by epoch)."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit
from checker.kernel.guards import holds

from .guards import (EXPAND_AFTER_FETCH, EXPAND_AT_EPOCH_START, EXPAND_AT_HW, EXPAND_FRESH, EXPAND_ISR_QUORUM,
                     EXPAND_OUTSIDE,
                     EXPAND_TRUE_LEADER, SHRINK_BEHIND, SHRINK_EPOCH, SHRINK_ISR_QUORUM, SHRINK_MEMBER,
                     SHRINK_TRUE_LEADER)
from .controller import controller_update
from .elr import elr_after, record_elr
from .hw import advance_hw, is_true_leader
from .kinds import LEADER_EXPAND_ISR, LEADER_SHRINK_ISR
from .layout import (cache_size, cache_start, controller_epoch, controller_offline, hw, isr, leo,
                     mark_remote_stale_at, member, remote_fresh, remote_leo, set_controller_isr, set_isr, size)
from .rule_kernels import broker_epochs, expands_in_fetch, fenced, majority_quorum, shrink_bumps_leader_epoch


@kernel
def write_isr(s, t, lay, ldr, new_isr):
    """The true leader adopts `new_isr`, records it at the controller (the write succeeds since
    it leads the controller's epoch; under kip966 the controller's ELR follows, with no new
    epoch), and recomputes its HW."""
    set_isr(t, lay, ldr, new_isr)
    set_controller_isr(t, lay, new_isr)
    record_elr(s, t, lay, elr_after(s, lay, new_isr, 0))
    advance_hw(t, lay, ldr)


@kernel
def enough_insync(s, lay, r):
    """Leader r may take, and acknowledge, an acks=all write: its ISR has at least
    min.insync.replicas members. A majority quorum has no such check: a write is acknowledged
    once a majority holds it."""
    return majority_quorum(lay) or size(isr(s, lay, r)) >= lay.min_insync


@kernel
def epoch_start(s, lay, r):
    """The first offset of broker r's latest leader epoch in its log (0 with an empty cache)."""
    n = cache_size(s, lay, r)
    return cache_start(s, lay, r, n - 1) if n else 0


@kernel
def leader_shrink_isr(s, lay, out, acts, tally, n):
    """The true leader drops a follower whose remote LEO is behind its own LEO: in abstract time,
    "lagged longer than replica.lag.time.max.ms" may be decided whenever it is behind. Under
    kip903 the controller commits the shrink in a new leader epoch with the same leader
    (`rule_kernels.shrink_bumps_leader_epoch`), which the leader itself takes up only when it handles
    that LeaderAndIsr; until then it keeps its old epoch and ISR (Kafka ignores the AlterPartition
    answer of another leader epoch: `Partition.handleAlterPartitionUpdate` @ 3.5.0). (A majority
    quorum has no ISR.)"""
    if not holds(tally, SHRINK_ISR_QUORUM, not majority_quorum(lay)):
        return n
    for ldr in range(lay.replicas):
        if not holds(tally, SHRINK_TRUE_LEADER, is_true_leader(s, lay, ldr)):
            continue
        view = isr(s, lay, ldr)
        for f in range(lay.replicas):
            if f == ldr or not holds(tally, SHRINK_MEMBER, member(view, f)):
                continue
            if not holds(tally, SHRINK_BEHIND, remote_leo(s, lay, ldr, f) < leo(s, lay, ldr)):
                continue
            shrunk = view & ~(1 << f)
            if not shrink_bumps_leader_epoch(lay):
                t = emit(s, out, acts, n, action_code(LEADER_SHRINK_ISR, ldr, f, 0))
                write_isr(s, t, lay, ldr, shrunk)
                mark_remote_stale_at(t, lay, ldr, f)  # it rejoins only on a FETCH made outside the ISR
                n += 1
            elif holds(tally, SHRINK_EPOCH, controller_epoch(s, lay) < lay.max_epoch):
                t = emit(s, out, acts, n, action_code(LEADER_SHRINK_ISR, ldr, f, 0))
                controller_update(s, t, lay, ldr, shrunk, elr_after(s, lay, shrunk, 0), controller_offline(s, lay))
                mark_remote_stale_at(t, lay, ldr, f)
                n += 1
    return n


@kernel
def may_join(s, lay, tally, ldr, f):
    """Follower f may join true leader ldr's ISR on the LEO ldr holds for it: f is outside the
    ISR, that LEO has reached ldr's HW (under kip320 and later, also the start offset of ldr's
    current epoch), and it came from a FETCH f made outside the ISR (`Partition.canAddReplicaToIsr`
    @ 3.4.0 looks only at a FETCH from a follower outside the ISR); from kip903 on, a FETCH of f's
    current registration, and never a broker the controller has fenced (KIP-903's broker epochs,
    KIP-841: `ReplicationControlManager.ineligibleReplicasForIsr` @ 3.5.0)."""
    known = remote_leo(s, lay, ldr, f)
    if f == ldr or not holds(tally, EXPAND_OUTSIDE, not member(isr(s, lay, ldr), f)):
        return False
    if not holds(tally, EXPAND_AT_HW, known >= hw(s, lay, ldr)):
        return False
    if fenced(lay) and not holds(tally, EXPAND_AT_EPOCH_START, known >= epoch_start(s, lay, ldr)):
        return False
    return holds(tally, EXPAND_FRESH, remote_fresh(s, lay, ldr, f)
                 and not (broker_epochs(lay) and member(controller_offline(s, lay), f)))


@kernel
def join_in_fetch(t, lay, tally, ldr, f):
    """Rule isr-expansion=in-fetch (Kafka 0.10 to 2.6): having recorded f's FETCH, the true leader
    adds f to its ISR at once if it may join (`may_join`), as part of handling that FETCH."""
    if expands_in_fetch(lay) and is_true_leader(t, lay, ldr) and may_join(t, lay, tally, ldr, f):
        write_isr(t, t, lay, ldr, isr(t, lay, ldr) | (1 << f))


@kernel
def leader_expand_isr(s, lay, out, acts, tally, n):
    """The true leader adds a follower that may join its ISR (`may_join`), at any moment after the
    FETCH that reported its LEO: rule isr-expansion=alter-partition (Kafka 2.7 on, an AlterPartition
    the controller commits later). Under isr-expansion=in-fetch the expansion is part of serving
    the FETCH (`join_in_fetch`), not a step of its own."""
    if not (holds(tally, EXPAND_ISR_QUORUM, not majority_quorum(lay))
            and holds(tally, EXPAND_AFTER_FETCH, not expands_in_fetch(lay))):
        return n
    for ldr in range(lay.replicas):
        if not holds(tally, EXPAND_TRUE_LEADER, is_true_leader(s, lay, ldr)):
            continue
        for f in range(lay.replicas):
            if may_join(s, lay, tally, ldr, f):
                t = emit(s, out, acts, n, action_code(LEADER_EXPAND_ISR, ldr, f, 0))
                write_isr(s, t, lay, ldr, isr(s, lay, ldr) | (1 << f))
                n += 1
    return n
