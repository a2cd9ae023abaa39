"""Replica actions every variant shares: taking leadership, accepting writes, and the
fenced write of a new ISR to the quorum."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import LEADER_REQUEST, WRITE_LEADS, WRITE_RECORDS_LEFT, WRITE_ROOM
from .kinds import BECOME_LEADER, LEADER_WRITE
from .layout import (append, count_write, epoch, leader, leo, next_record_id, quorum_epoch, quorum_leader,
                     request_sent, request_isr, request_leader, set_isr, set_quorum_isr, set_view)
from .state import NONE


@kernel
def presumes_leadership(s, lay, r):
    """Replica r believes it is the leader (it accepts writes whether or not it is right)."""
    return leader(s, lay, r) == r


@kernel
def is_true_leader(s, lay, r):
    """Replica r leads in the quorum, presumes leadership, and is in the quorum's epoch."""
    return quorum_leader(s, lay) == r and presumes_leadership(s, lay, r) and epoch(s, lay, r) == quorum_epoch(s, lay)


@kernel
def quorum_isr_update(t, lay, r, new_isr):
    """The true leader r writes a new ISR to the quorum and adopts it (callers check
    `is_true_leader`: the write is fenced). The epoch does not change and no LeaderAndIsr
    request is sent."""
    set_isr(t, lay, r, new_isr)
    set_quorum_isr(t, lay, new_isr)


@kernel
def become_leader(s, lay, out, acts, tally, n):
    """The replica named leader by a LeaderAndIsr request with an epoch above its own takes the
    epoch and the ISR. It keeps its log and its HW, which typically lags the previous
    leader's true HW."""
    for e in range(lay.max_epoch + 1):
        r = request_leader(s, lay, e)
        if holds(tally, LEADER_REQUEST, request_sent(s, lay, e) and r != NONE and e > epoch(s, lay, r)):
            t = emit(s, out, acts, n, action_code(BECOME_LEADER, r, e, 0))
            set_view(t, lay, r, e, r, request_isr(s, lay, e))
            n += 1
    return n


@kernel
def leader_write(s, lay, out, acts, tally, n):
    """A replica that presumes leadership appends a producer write, stamped with its own
    leader epoch, while writes and log space remain. Zombie leaders accept writes too: only
    replication and ISR fencing protect the partition from them."""
    if not holds(tally, WRITE_RECORDS_LEFT, next_record_id(s, lay) < lay.max_records):
        return n
    for r in range(lay.replicas):
        if holds(tally, WRITE_LEADS, presumes_leadership(s, lay, r)) and holds(tally, WRITE_ROOM,
                                                                                 leo(s, lay, r) < lay.log_size):
            t = emit(s, out, acts, n, action_code(LEADER_WRITE, r, 0, 0))
            append(t, lay, r, next_record_id(s, lay), epoch(s, lay, r))
            count_write(t, lay)
            n += 1
    return n
