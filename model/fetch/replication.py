"""Replication by FETCH: a follower sends, the leader serves, the follower applies the answer.

Three steps, so the leader learns a follower's progress only from its next FETCH, and the
follower learns the HW from the response after that: the two fetch rounds of scenario S0.
The response carries the HW read *after* the leader recorded the follower's new position
(the behaviour of current Kafka; the HW-truncation era read it before, which only delays the
follower's HW by one more round). At most one fetch per follower is in flight.
"""

from __future__ import annotations

from .bounds import FetchConfig
from .hw import advanced_hw
from .state import NO_FETCH, FetchRequest, FetchResponse, FetchState, with_broker


def follower_fetch(state: FetchState, config: FetchConfig):
    """A live follower with nothing in flight sends FETCH(offset = its LEO, its leader epoch) to
    the leader it follows."""
    for f, b in enumerate(state.brokers):
        if b.alive and b.leader not in (f, -1) and not b.fetch:
            request = FetchRequest(b.leader, b.leo, b.epoch)
            yield ("FollowerFetch", f), with_broker(state, f, b._replace(fetch=request))


def leader_serve_fetch(state: FetchState, config: FetchConfig, fenced: bool):
    """The live leader handles a follower's FETCH atomically: it records the fetch offset as that
    follower's remote LEO, may advance its HW, and answers with its records from that offset and
    its HW. A replica that does not believe it leads refuses (NOT_LEADER); under kip320 (`fenced`)
    so does a leader in another epoch than the follower's (FENCED/UNKNOWN_LEADER_EPOCH)."""
    for f, b in enumerate(state.brokers):
        request = b.fetch
        if not isinstance(request, FetchRequest) or not state.brokers[request.leader].alive:
            continue
        leader = request.leader
        lb = state.brokers[leader]
        if lb.leader != leader or (fenced and request.epoch != lb.epoch):
            answer = FetchResponse(leader, request.offset, (), 0, True)
            yield ("LeaderServeFetch", leader, f), with_broker(state, f, b._replace(fetch=answer))
            continue
        remote = lb.remote[:f] + (request.offset,) + lb.remote[f + 1:]
        served = advanced_hw(leader, lb._replace(remote=remote))
        answer = FetchResponse(leader, request.offset, served.log[request.offset:], served.hw, False)
        after = with_broker(with_broker(state, leader, served), f, b._replace(fetch=answer))
        yield ("LeaderServeFetch", leader, f), after


def follower_apply_response(state: FetchState, config: FetchConfig):
    """The follower applies the response: it appends the records that continue its log (a
    response for another offset, or from a leader it no longer follows, is dropped), updates
    its epoch cache, and sets HW = min(response HW, its LEO). The HW may go down: a follower's
    HW only mirrors the leader's."""
    for f, b in enumerate(state.brokers):
        answer = b.fetch
        if not (b.alive and isinstance(answer, FetchResponse)):
            continue
        if answer.fenced or answer.leader != b.leader or answer.offset != b.leo:
            yield ("FollowerApplyResponse", f), with_broker(state, f, b._replace(fetch=NO_FETCH))
            continue
        room = config.log_size - b.leo
        records = answer.records[:room]
        log = b.log + records
        cache = b.cache
        for offset, record in enumerate(records, b.leo):
            if not cache or cache[-1][0] < record.epoch:
                cache = cache + ((record.epoch, offset),)
        after = b._replace(log=log, flushed=len(log) if config.flush == "sync" else b.flushed, cache=cache,
                           hw=min(answer.hw, len(log)), fetch=NO_FETCH)
        yield ("FollowerApplyResponse", f), with_broker(state, f, after)
