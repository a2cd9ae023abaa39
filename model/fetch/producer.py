"""The producer: writes go to the replica that believes it leads."""

from __future__ import annotations

from .bounds import FetchConfig
from .hw import advanced_hw
from .state import FetchState, Pending, Record, members, with_broker


def producer_write(state: FetchState, config: FetchConfig, ghost: bool):
    """A write to replica r that believes it leads. With acks=all it is refused
    (NotEnoughReplicas) while r's ISR is smaller than min.insync.replicas. The leader appends it
    in its epoch (on disk at once under flush=sync) and recomputes its HW. acks=1 acknowledges
    now; acks=all waits for the HW (see `ghost.settle_acks`); acks=0 never answers."""
    if state.next_record_id >= config.max_records:
        return
    for r, b in enumerate(state.brokers):
        if not (b.alive and b.leader == r and b.leo < config.log_size):
            continue
        if config.acks == "all" and len(list(members(b.isr))) < config.min_insync_replicas:
            continue
        record = Record(state.next_record_id, b.epoch)
        cache = b.cache if b.cache and b.cache[-1][0] == b.epoch else b.cache + ((b.epoch, b.leo),)
        log = b.log + (record,)
        after = b._replace(log=log, flushed=len(log) if config.flush == "sync" else b.flushed, cache=cache)
        after = advanced_hw(r, after)
        nxt = with_broker(state, r, after)._replace(next_record_id=state.next_record_id + 1)
        if ghost and config.acks == "1":
            nxt = nxt._replace(acked=tuple(sorted(nxt.acked + ((b.leo, record),))))
        elif ghost and config.acks == "all":
            nxt = nxt._replace(pending=nxt.pending + (Pending(b.leo, record, r, b.epoch),))
        yield ("ProducerWrite", r), nxt
