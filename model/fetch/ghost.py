"""Ghost variables: what producers were promised and what consumers could read. Only the
invariants read them; the model keeps them only when built with ghost on, so plain runs are
not inflated."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .hw import is_true_leader, leads_epoch
from .isr import enough_insync
from .layout import (ack, commit, committed_epoch, committed_offset, consumer_hw, controller_leader, ghost_records,
                     has_record, hw, leo, pending_count, pending_epoch, pending_leader, pending_offset,
                     pending_record_epoch, pending_record_id, record_epoch, record_id, remove_pending, set_consumer_hw)
from .state import NONE


@kernel
def true_leader(s, lay):
    """The replica that is the controller's leader and acts as leader in its epoch (NONE if none)."""
    ldr = controller_leader(s, lay)
    return ldr if ldr != NONE and is_true_leader(s, lay, ldr) else NONE


@kernel
def holds_committed(s, lay, r):
    """Broker r's log holds every record ever committed, each at the offset it was committed
    at."""
    for rid in range(ghost_records(lay)):
        offset = committed_offset(s, lay, rid)
        if offset >= 0 and not has_record(s, lay, r, offset, rid, committed_epoch(s, lay, rid)):
            return False
    return True


@kernel
def update_ghost(t, lay):
    """After any step: records below the true leader's HW become committed (and the highest such
    HW is what consumers have seen); an acks=all write is acknowledged once its leader, still
    leading in its epoch, has its HW past the write's offset, unless the ISR has shrunk below
    min.insync.replicas by then (NotEnoughReplicasAfterAppend), and forgotten if its leader
    crashed or lost the epoch."""
    ldr = true_leader(t, lay)
    if ldr != NONE:
        h = hw(t, lay, ldr)
        for offset in range(min(h, leo(t, lay, ldr))):
            commit(t, lay, offset, record_id(t, lay, ldr, offset), record_epoch(t, lay, ldr, offset))
        set_consumer_hw(t, lay, max(consumer_hw(t, lay), h))
    i = 0
    while i < pending_count(t, lay):
        p = pending_leader(t, lay, i)
        if not leads_epoch(t, lay, p, pending_epoch(t, lay, i)):
            remove_pending(t, lay, i)
        elif hw(t, lay, p) > pending_offset(t, lay, i):
            if enough_insync(t, lay, p):
                ack(t, lay, pending_offset(t, lay, i), pending_record_id(t, lay, i), pending_record_epoch(t, lay, i))
            remove_pending(t, lay, i)
        else:
            i += 1
