"""Replicas acting on LeaderAndIsr requests: becoming leader or follower."""

from __future__ import annotations

from .bounds import FetchConfig
from .hw import advanced_hw
from .state import NONE, NO_FETCH, FetchState, with_broker


def become_leader(state: FetchState, config: FetchConfig):
    """The live replica a request names leader, in an epoch above its own, takes the epoch and
    ISR, starts its epoch in its cache at its LEO and forgets remote LEOs. Its HW is its old
    follower HW, which may lag the previous leader's (KAFKA-2334)."""
    for r, b in enumerate(state.brokers):
        if not b.alive:
            continue
        for request in b.inbox:
            if request.leader == r and request.epoch > b.epoch:
                yield ("BecomeLeader", r, request.epoch), with_broker(state, r, _lead(b, r, request, config))


def _lead(b, r: int, request, config: FetchConfig):
    """Broker b (id r) taking leadership in the request's epoch."""
    cache = b.cache + ((request.epoch, b.leo),)
    remote = tuple(b.leo if f == r else -1 for f in range(config.replicas))
    return advanced_hw(r, b._replace(epoch=request.epoch, leader=r, isr=request.isr, cache=cache, remote=remote,
                                     fetch=NO_FETCH, inbox=_newer(b.inbox, request.epoch)))


def become_follower(state: FetchState, config: FetchConfig, variant):
    """A live replica takes a request naming another leader in an epoch above its own: it
    truncates at its variant's point (the epoch variants ask the live leader; under kip320 only a
    leader already in that epoch answers), caps its HW there, follows the new leader and drops
    its in-flight fetch."""
    for r, b in enumerate(state.brokers):
        if not b.alive:
            continue
        for request in b.inbox:
            leader = request.leader
            if leader in (r, NONE) or request.epoch <= b.epoch:
                continue
            lb = state.brokers[leader]
            if variant.asks_leader and not lb.alive:
                continue
            if variant.fenced and not (lb.leader == leader and lb.epoch == request.epoch):
                continue
            k = min(variant.truncate(b, lb), b.leo)
            after = b._replace(log=b.log[:k], flushed=min(b.flushed, k), cache=tuple(e for e in b.cache if e[1] < k),
                               hw=min(b.hw, k), epoch=request.epoch, leader=leader, isr=0, fetch=NO_FETCH,
                               inbox=_newer(b.inbox, request.epoch))
            yield ("BecomeFollower", r, leader, request.epoch), with_broker(state, r, after)


def _newer(inbox: tuple, epoch: int) -> tuple:
    """The requests still worth handling once a broker is in `epoch` (later ones only)."""
    return tuple(q for q in inbox if q.epoch > epoch)
