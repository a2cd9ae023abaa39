"""How a leader's high watermark moves, and who is the true leader."""

from __future__ import annotations

from .state import Broker, FetchState, members


def is_true_leader(state: FetchState, r: int) -> bool:
    """r is alive, believes it leads, and is the controller's leader in the controller's epoch."""
    b, c = state.brokers[r], state.controller
    return b.alive and b.leader == r and c.leader == r and b.epoch == c.epoch


def advanced_hw(leader: int, broker: Broker) -> Broker:
    """The leader after recomputing its HW: the minimum over its ISR of the LEOs it knows (its
    own, and each follower's remote LEO, the offset of that follower's latest FETCH). It never
    moves backwards while the replica stays leader. Kafka recomputes it on a produce append, a
    follower fetch, becoming leader and an ISR change; callers do so on exactly those steps."""
    known = [broker.leo if f == leader else max(broker.remote[f], 0) for f in members(broker.isr)]
    hw = min(known, default=broker.leo)
    return broker._replace(hw=hw) if hw > broker.hw else broker
