"""Ghost variables: what producers were promised and what consumers could read. Only the
invariants read them; the model keeps them only when an invariant needs them, so plain runs
are not inflated."""

from __future__ import annotations

from .bounds import FetchConfig
from .hw import is_true_leader
from .state import FetchState, members


def true_leader(state: FetchState) -> int | None:
    """The replica that is the controller's leader and acts as leader in its epoch, if any."""
    leader = state.controller.leader
    return leader if leader >= 0 and is_true_leader(state, leader) else None


def update_ghost(state: FetchState, config: FetchConfig) -> FetchState:
    """After any step: records below the true leader's HW become committed (and the highest such
    HW is what consumers have seen); an acks=all write is acknowledged once its leader, still
    leading in its epoch, has its HW past the write's offset, unless the ISR has shrunk below
    min.insync.replicas by then (NotEnoughReplicasAfterAppend), and forgotten if its leader
    crashed or lost the epoch."""
    committed, acked, pending, seen = state.committed, state.acked, [], state.consumer_hw
    t = true_leader(state)
    if t is not None:
        b = state.brokers[t]
        new = tuple((offset, record) for offset, record in enumerate(b.log[:b.hw]) if (offset, record) not in committed)
        committed = tuple(sorted(committed + new))
        seen = max(seen, b.hw)
    for p in state.pending:
        b = state.brokers[p.leader]
        if not (b.alive and b.leader == p.leader and b.epoch == p.epoch):
            continue
        if b.hw > p.offset:
            if len(list(members(b.isr))) >= config.min_insync_replicas:
                acked = tuple(sorted(acked + ((p.offset, p.record),)))
            continue
        pending.append(p)
    return state._replace(committed=committed, acked=acked, pending=tuple(pending), consumer_hw=seen)
