"""The controller: notices dead and restarted brokers, elects leaders, sends LeaderAndIsr.

Every election bumps the leader epoch (up to `max_epoch`) and sends LeaderAndIsr to the live
brokers, which may handle their requests late and in any order (a broker ignores one whose
epoch is not above its own; a crash loses the requests not yet handled). A broker that comes
back is sent the current LeaderAndIsr when the controller notices it.
"""

from __future__ import annotations

from .bounds import FetchConfig
from .state import NO_EPOCH, NONE, FetchState, LeaderAndIsr, members, with_broker


def _update(state: FetchState, config: FetchConfig, leader: int, isr: int, offline: int) -> FetchState | None:
    """A new epoch with this leader and ISR, recorded and sent; None when epochs are used up."""
    epoch = state.controller.epoch + 1
    if epoch > config.max_epoch:
        return None
    request = LeaderAndIsr(epoch, leader, isr)
    brokers = tuple(b._replace(inbox=b.inbox + (request,)) if b.alive else b for b in state.brokers)
    return state._replace(controller=state.controller._replace(epoch=epoch, leader=leader, isr=isr, offline=offline),
                          brokers=brokers)


def _elect(state: FetchState, config: FetchConfig, isr: int, offline: int) -> tuple[int, int]:
    """(leader, ISR) after an election: the first live ISR member; if none, with unclean
    election a live replica outside the ISR (which becomes the whole ISR); else offline."""
    live = [r for r in range(config.replicas) if not offline >> r & 1 and state.brokers[r].alive]
    for r in members(isr):
        if r in live:
            return r, isr
    if config.unclean_leader_election and live:
        return live[0], 1 << live[0]
    return NONE, isr


def controller_notice_failure(state: FetchState, config: FetchConfig):
    """The controller notices that broker r died: it leaves the ISR (unless it is the last member,
    as Kafka keeps it), and if it led, a new leader is elected."""
    c = state.controller
    for r, b in enumerate(state.brokers):
        if b.alive or c.offline >> r & 1:
            continue
        offline = c.offline | 1 << r
        isr = c.isr & ~(1 << r) if c.isr & ~(1 << r) else c.isr
        leader, isr = _elect(state, config, isr, offline) if c.leader in (r, NONE) else (c.leader, isr)
        after = _update(state, config, leader, isr, offline)
        if after is not None:
            yield ("ControllerNoticeFailure", r), after


def controller_notice_restart(state: FetchState, config: FetchConfig):
    """The controller notices that broker r is back (it knows no epoch and has no request to
    handle). If the partition is offline, or r was its leader (it restarted before the
    controller noticed it had died), a leader is elected in a new epoch: a restarted broker never
    resumes leadership in an old epoch, since it may have lost records of it. Otherwise r is
    sent the current LeaderAndIsr."""
    c = state.controller
    for r, b in enumerate(state.brokers):
        if not (b.alive and b.epoch == NO_EPOCH and not b.inbox and state.crashes):
            continue
        offline = c.offline & ~(1 << r)
        leader, isr = _elect(state, config, c.isr, offline) if c.leader in (NONE, r) else (NONE, c.isr)
        if leader != NONE:
            after = _update(state, config, leader, isr, offline)
            if after is None:
                continue
        else:
            current = LeaderAndIsr(c.epoch, c.leader, c.isr)
            after = with_broker(state, r, b._replace(inbox=(current,)))._replace(controller=c._replace(offline=offline))
        yield ("ControllerNoticeRestart", r), after
