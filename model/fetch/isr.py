"""The leader's ISR changes, each written to the controller's record (fenced by epoch)."""

from __future__ import annotations

from .bounds import FetchConfig
from .hw import advanced_hw, is_true_leader
from .state import FetchState, members, with_broker


def _write_isr(state: FetchState, leader: int, isr: int) -> FetchState:
    """The leader adopts `isr`, records it at the controller, and recomputes its HW."""
    b = advanced_hw(leader, state.brokers[leader]._replace(isr=isr))
    return with_broker(state, leader, b)._replace(controller=state.controller._replace(isr=isr))


def leader_shrink_isr(state: FetchState, config: FetchConfig):
    """The true leader drops a follower whose remote LEO is behind its own LEO: in abstract time,
    "lagged longer than replica.lag.time.max.ms" may be decided whenever it is behind."""
    for leader, b in enumerate(state.brokers):
        if not is_true_leader(state, leader):
            continue
        for f in members(b.isr):
            if f != leader and b.remote[f] < b.leo:
                yield ("LeaderShrinkIsr", leader, f), _write_isr(state, leader, b.isr & ~(1 << f))


def leader_expand_isr(state: FetchState, config: FetchConfig, fenced: bool):
    """The true leader adds a follower whose remote LEO has reached its HW (under kip320, also the
    start offset of the leader's current epoch)."""
    for leader, b in enumerate(state.brokers):
        if not is_true_leader(state, leader):
            continue
        epoch_start = b.cache[-1][1] if b.cache else 0
        for f in range(config.replicas):
            if b.isr >> f & 1 or f == leader or b.remote[f] < b.hw:
                continue
            if fenced and b.remote[f] < epoch_start:
                continue
            yield ("LeaderExpandIsr", leader, f), _write_isr(state, leader, b.isr | 1 << f)
