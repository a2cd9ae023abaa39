"""Replication in the faithful variants, as Kafka's `KafkaRaftClient` does it: followers pull
the log with FETCH, the leader answers with every record from the fetch offset on or with
where the follower's log diverges, counts each voter's fetch offset towards its HW, and the
follower appends and flushes, or truncates; the leader appends client values and flushes its
log after counting its own LEO.

A leader's log longer than its flushed part means it is inside `flushLeaderLog`, between
counting its new LEO and flushing: it takes no step but the flush, a crash, and answering
FETCHes (the parked ones its new records complete). Each function is one step; None where it is
not enabled."""

from __future__ import annotations

from . import channels, messages as msg
from .epoch_cache import diverging, truncation_offset
from .leader_state import counted
from .quorum_state import common_response, illegal, is_voter
from .rules import Rules
from .state import FOLLOWER, LEADER, NIL, WRITTEN, KRaftState, last_epoch, with_voter

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def in_poll(s: KRaftState, i: int) -> bool:
    """Voter i, a leader, has counted records it has not flushed yet."""
    return s.flushed[i] < len(s.log[i])


def send_fetch(s: KRaftState, i: int) -> KRaftState | None:
    """A follower asks its leader for the records after its log end (`buildFetchRequest`: its
    epoch, its LEO as the fetch offset, the epoch of its last record)."""
    if s.role[i] != FOLLOWER or not channels.free(s, i, s.leader[i] - 1):
        return None
    log = s.log[i]
    return channels.send(s, msg.fetch_request(i + 1, s.leader[i], s.epoch[i], len(log), last_epoch(log)))


def handle_fetch_request(s: KRaftState, m: tuple, r: Rules) -> KRaftState:
    """`handleFetchRequest`: an older epoch is answered FENCED_LEADER_EPOCH, a newer one
    UNKNOWN_LEADER_EPOCH, a voter that does not lead NOT_LEADER_OR_FOLLOWER; a position the
    leader's log does not continue gets the diverging epoch (`validateOffsetAndEpoch`); else the
    leader sends every record from the fetch offset on with its HW, and if the fetcher is a
    voter, records its fetch offset as its end offset and updates the HW (an observer's fetches
    count for nothing)."""
    i, f, epoch = msg.dest(m) - 1, msg.source(m) - 1, msg.epoch(m)
    offset, last = msg.fetch_offset(m), msg.last_fetched_epoch(m)
    error = msg.FENCED_LEADER_EPOCH if epoch < s.epoch[i] else msg.UNKNOWN_LEADER if epoch > s.epoch[i] \
        else msg.NOT_LEADER if s.role[i] != LEADER else 0
    if error:
        answer = msg.FetchResponse(msg.NOT_OK, error, s.leader[i], 0, 0, 0, (), ())
        return channels.received(s, m, msg.fetch_response(i + 1, f + 1, s.epoch[i], answer))
    end = diverging(s.log[i], offset, last)
    if end is not None:
        answer = msg.FetchResponse(msg.DIVERGING, 0, i + 1, s.hw[i], end[1], end[0], (), ())
        return channels.received(s, m, msg.fetch_response(i + 1, f + 1, s.epoch[i], answer))
    if is_voter(s, f, r.directory_ids):
        s = counted(s, i, f, offset)
    answer = msg.FetchResponse(msg.OK, 0, i + 1, s.hw[i], 0, 0, s.log[i][offset:], ())
    return channels.received(s, m, msg.fetch_response(i + 1, f + 1, s.epoch[i], answer))


def handle_fetch_response(s: KRaftState, m: tuple) -> KRaftState:
    """`handleFetchResponse`: after the common handling of responses, a follower told it
    diverges truncates (`truncateToEndOffset`; below its HW Kafka throws); sent records, it
    appends and flushes them (a voter flushes before it fetches again) and takes the leader's
    HW as far as its own LEO (`updateFollowerHighWatermark`; a lower one than it has throws)."""
    i, answer = msg.dest(m) - 1, msg.fields(m)
    s, handled = common_response(channels.received(s, m), i, answer.leader, msg.epoch(m), answer.error)
    if handled or s.role[i] != FOLLOWER:
        return s
    if answer.result == msg.DIVERGING:
        if answer.diverging_end_offset < s.hw[i]:
            return illegal(s, i)
        cut = truncation_offset(s.log[i], answer.diverging_end_offset, answer.diverging_epoch)
        if cut < s.hw[i]:
            return illegal(s, i)
        return with_voter(s, i, log=s.log[i][:cut], flushed=min(s.flushed[i], cut))
    log = s.log[i] + answer.entries
    s = with_voter(s, i, log=log, flushed=len(log))
    if answer.hwm == NIL:
        return s
    hw = min(len(log), answer.hwm)
    return illegal(s, i) if hw < s.hw[i] else with_voter(s, i, hw=hw)


def client_append(s: KRaftState, i: int, v: int) -> KRaftState | None:
    """The leader appends client value v (1..m) in its epoch, after its LeaderChange record,
    and counts its new LEO (`appendAsLeader`, then `flushLeaderLog`); v is written, and is
    acknowledged when the HW passes it."""
    if s.role[i] != LEADER or len(s.log[i]) == s.start_offset[i] or in_poll(s, i) or s.acked[v - 1] != NIL:
        return None
    s = with_voter(s, i, log=s.log[i] + ((s.epoch[i], v),))._replace(acked=s.acked[:v - 1] + (WRITTEN,) + s.acked[v:])
    return counted(s, i, i, len(s.log[i]))


def flush(s: KRaftState, i: int) -> KRaftState | None:
    """The leader flushes its log (`log.flush`, the end of `flushLeaderLog`)."""
    if not in_poll(s, i):
        return None
    return with_voter(s, i, flushed=len(s.log[i]))
