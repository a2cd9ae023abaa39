"""The producer without retries: each write goes to a replica that believes it leads, in one
atomic step (`model.fetch.retries` models the retrying producer instead)."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit
from checker.kernel.guards import holds

from .guards import WRITE_ALIVE, WRITE_ENOUGH_INSYNC, WRITE_LEADS, WRITE_NO_RETRIES, WRITE_RECORDS_LEFT, WRITE_ROOM
from .hw import advance_hw
from .kinds import PRODUCER_WRITE
from .isr import enough_insync
from .layout import (ACKS_1, ACKS_ALL, ack, add_pending, alive, append, cache_epoch, cache_push, cache_size,
                     count_write, epoch, leader, leo, next_record_id, set_flushed)


@kernel
def record_appended(t, lay, r, rid, repoch):
    """Broker r appends record (rid, repoch) at its LEO, starting a new epoch-cache entry when
    the record's epoch is not the cache's latest; under flush=sync the record is on disk at once."""
    n = cache_size(t, lay, r)
    if n == 0 or cache_epoch(t, lay, r, n - 1) < repoch:
        cache_push(t, lay, r, repoch, leo(t, lay, r))
    append(t, lay, r, rid, repoch)
    if not lay.flush_async:
        set_flushed(t, lay, r, leo(t, lay, r))


@kernel
def producer_write(s, lay, out, acts, tally, n):
    """A write to replica r that believes it leads. With acks=all it is refused
    (NotEnoughReplicas) while r's ISR is smaller than min.insync.replicas (`isr.enough_insync`). The leader appends it
    in its epoch and recomputes its HW. acks=1 acknowledges now; acks=all waits for the HW (see
    `ghost.update_ghost`); acks=0 never answers. Not a step of the retrying producer."""
    if not (holds(tally, WRITE_NO_RETRIES, not lay.retries)
            and holds(tally, WRITE_RECORDS_LEFT, next_record_id(s, lay) < lay.max_records)):
        return n
    for r in range(lay.replicas):
        if not (holds(tally, WRITE_ALIVE, alive(s, lay, r)) and holds(tally, WRITE_LEADS, leader(s, lay, r) == r)
                and holds(tally, WRITE_ROOM, leo(s, lay, r) < lay.log_size)):
            continue
        if lay.acks == ACKS_ALL and not holds(tally, WRITE_ENOUGH_INSYNC, enough_insync(s, lay, r)):
            continue
        t = emit(s, out, acts, n, action_code(PRODUCER_WRITE, r, 0, 0))
        rid, e, offset = next_record_id(s, lay), epoch(s, lay, r), leo(s, lay, r)
        record_appended(t, lay, r, rid, e)
        advance_hw(t, lay, r)
        count_write(t, lay)
        if lay.ghost and lay.acks == ACKS_1:
            ack(t, lay, offset, rid, e)
        elif lay.ghost and lay.acks == ACKS_ALL:
            add_pending(t, lay, offset, rid, e, r, e)
        n += 1
    return n
