"""KRaft's messages as the TLA+ specification sends them (the faithful variants add a few fields).

A message is a tuple (type, source, destination, epoch, ...): voters are 1..n, 0 is Nil. The
bag maps each message ever sent to how many copies are in flight; a message handled (or
dropped) has its count lowered, and stays known at 0, since sending looks at every message
ever sent: a Vote or BeginQuorumEpoch request is sent once, and a FETCH response is never sent
twice (the specification's way to bound retries)."""

from __future__ import annotations

from typing import NamedTuple


VOTE_REQUEST, VOTE_RESPONSE, BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FETCH_REQUEST, FETCH_RESPONSE = range(1, 7)
NAMES = {VOTE_REQUEST: "Vote request", VOTE_RESPONSE: "Vote response", BEGIN_QUORUM_REQUEST: "BeginQuorumEpoch",
         BEGIN_QUORUM_RESPONSE: "BeginQuorumEpoch response", FETCH_REQUEST: "FETCH", FETCH_RESPONSE: "FETCH response"}

OK, NOT_OK, DIVERGING = 1, 2, 3
"""A FETCH response's result: records (maybe none), an error, or a diverging epoch."""
FENCED_LEADER_EPOCH, NOT_LEADER, UNKNOWN_LEADER, INVALID_VOTER_KEY = 1, 2, 3, 4
"""Errors (0 is none): the sender's epoch is behind, the receiver does not lead, the receiver
has not heard of the sender's epoch, or (KIP-853) the request was addressed to a voter whose
directory id the receiver no longer has."""
RESULTS = {OK: "ok", NOT_OK: "error", DIVERGING: "diverging"}
ERRORS = {0: "none", FENCED_LEADER_EPOCH: "FENCED_LEADER_EPOCH", NOT_LEADER: "NOT_LEADER",
          UNKNOWN_LEADER: "UNKNOWN_LEADER", INVALID_VOTER_KEY: "INVALID_VOTER_KEY"}
REQUESTS = (VOTE_REQUEST, BEGIN_QUORUM_REQUEST, FETCH_REQUEST)


def source(m: tuple) -> int:
    """The voter that sent `m` (1..n)."""
    return m[1]


def dest(m: tuple) -> int:
    """The voter `m` is addressed to (1..n)."""
    return m[2]


def epoch(m: tuple) -> int:
    """The epoch `m` carries: the sender's, or for a response, the one the answer is about."""
    return m[3]


def vote_request(src: int, dst: int, epoch: int, last_log_epoch: int, last_log_offset: int) -> tuple:
    """A candidate's Vote request, with where its log ends."""
    return (VOTE_REQUEST, src, dst, epoch, last_log_epoch, last_log_offset)


class VoteResponse(NamedTuple):
    """A Vote response: the leader the voter knows (0: none), whether it granted its vote, and
    an error."""

    leader: int
    granted: int
    error: int


def vote_response(src: int, dst: int, epoch: int, leader: int, granted: bool, error: int) -> tuple:
    """A voter's answer to a Vote request."""
    return (VOTE_RESPONSE, src, dst, epoch, leader, int(granted), error)


def begin_quorum_request(src: int, dst: int, epoch: int) -> tuple:
    """A new leader's BeginQuorumEpoch request to a voter."""
    return (BEGIN_QUORUM_REQUEST, src, dst, epoch)


def begin_quorum_response(src: int, dst: int, epoch: int, error: int, *leader: int) -> tuple:
    """A voter's answer to BeginQuorumEpoch. The specification's carries no leader and no step
    handles it (Kafka needs it for liveness only); the faithful variants' names the leader the
    voter knows, and the leader counts it as the voter's acknowledgement of its epoch."""
    return (BEGIN_QUORUM_RESPONSE, src, dst, epoch, error, *leader)


def fetch_request(src: int, dst: int, epoch: int, fetch_offset: int, last_fetched_epoch: int) -> tuple:
    """A follower's FETCH: its epoch, its log end offset and the epoch of its last entry."""
    return (FETCH_REQUEST, src, dst, epoch, fetch_offset, last_fetched_epoch)


class FetchResponse(NamedTuple):
    """The fields of a FETCH response after (type, source, destination, epoch)."""

    result: int
    error: int
    leader: int
    hwm: int
    diverging_epoch: int
    diverging_end_offset: int
    entries: tuple
    correlation: tuple


def fetch_response(src: int, dst: int, epoch: int, answer: FetchResponse) -> tuple:
    """A leader's (or a non-leader's) answer to a FETCH."""
    return (FETCH_RESPONSE, src, dst, epoch, *answer)


def fields(m: tuple):
    """A Vote or FETCH response's own fields, by name."""
    return VoteResponse(*m[4:]) if m[0] == VOTE_RESPONSE else FetchResponse(*m[4:])


def fetch_offset(m: tuple) -> int:
    """A FETCH request's fetch offset: the follower's log end offset."""
    return m[4]


def last_fetched_epoch(m: tuple) -> int:
    """A FETCH request's last fetched epoch: the epoch of the follower's last entry."""
    return m[5]


def last_log(m: tuple) -> tuple[int, int]:
    """A Vote request's (epoch of the candidate's last entry, its log end offset)."""
    return m[4], m[5]


def renamed(m: tuple, voter: tuple[int, ...]) -> tuple:
    """`m` with every voter it names renamed (`voter[k]` is k's new name; voter[0] = 0)."""
    kind = m[0]
    out = [kind, voter[m[1]], voter[m[2]], *m[3:]]
    if kind == VOTE_RESPONSE:
        out[4] = voter[m[4]]
    elif kind == FETCH_RESPONSE:
        out[6] = voter[m[6]]
        out[11] = renamed(m[11], voter) if m[11] else ()
    elif kind == BEGIN_QUORUM_RESPONSE and len(m) > 5:
        out[5] = voter[m[5]]
    return tuple(out)
