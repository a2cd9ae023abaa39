"""KRaft's messages as readable states show them (`KRaftState.messages`), for both kinds of
variant; the kernels pack them (`model.kraft.tla.messages`, `model.kraft.kafka.channels`).

A message is a tuple (type, source, destination, epoch, its own fields): voters are 1..n, 0 is
Nil, and the epoch is the sender's, or for a response the one the answer is about.

    Vote request              last log epoch, log end offset; in the faithful variants also the
                              directory id it is addressed to
    Pre-vote request          as a Vote request (4.0: a Vote request with PreVote set, sent in
                              the sender's own epoch; only the faithful variants have it)
    Vote response             leader known, granted (0/1), error
    BeginQuorumEpoch          -
    BeginQuorumEpoch response error; in the faithful variants also the leader known
    FETCH                     fetch offset, last fetched epoch; in the faithful variants also
                              the fetcher's directory id and whether it is parked at a leader
                              inside flushLeaderLog (it found nothing new before the append)
    FETCH response            result, error, leader, HW, diverging epoch, diverging end offset,
                              the records sent ((epoch, value) pairs), and in variant `tla` the
                              FETCH it answers (empty in the faithful variants)

In the faithful variants a request ends with one more item: 1 while its sender still expects
the answer, 0 once a reset of the sender's connections made it stale.

Variant `tla` keeps the specification's bag: each message ever sent with how many copies are in
flight; a message handled has its count lowered, and stays known at 0, since the
specification's sending rules look at every message ever sent. The faithful variants' messages
are each in flight once (count 1), at most one per connection."""

from __future__ import annotations

from typing import NamedTuple


VOTE_REQUEST, VOTE_RESPONSE, BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FETCH_REQUEST, FETCH_RESPONSE, \
    PRE_VOTE_REQUEST = range(1, 8)
NAMES = {VOTE_REQUEST: "Vote request", VOTE_RESPONSE: "Vote response", BEGIN_QUORUM_REQUEST: "BeginQuorumEpoch",
         BEGIN_QUORUM_RESPONSE: "BeginQuorumEpoch response", FETCH_REQUEST: "FETCH", FETCH_RESPONSE: "FETCH response",
         PRE_VOTE_REQUEST: "Pre-vote request"}

OK, NOT_OK, DIVERGING = 1, 2, 3
"""A FETCH response's result: records (maybe none), an error, or a diverging epoch."""
FENCED_LEADER_EPOCH, NOT_LEADER, UNKNOWN_LEADER, INVALID_VOTER_KEY = 1, 2, 3, 4
"""Errors (0 is none): the sender's epoch is behind, the receiver does not lead, the receiver
has not heard of the sender's epoch, or (KIP-853) the request was addressed to a voter whose
directory id the receiver no longer has."""
RESULTS = {OK: "ok", NOT_OK: "error", DIVERGING: "diverging"}
ERRORS = {0: "none", FENCED_LEADER_EPOCH: "FENCED_LEADER_EPOCH", NOT_LEADER: "NOT_LEADER",
          UNKNOWN_LEADER: "UNKNOWN_LEADER", INVALID_VOTER_KEY: "INVALID_VOTER_KEY"}
REQUESTS = (VOTE_REQUEST, BEGIN_QUORUM_REQUEST, FETCH_REQUEST, PRE_VOTE_REQUEST)


def source(m: tuple) -> int:
    """The voter that sent `m` (1..n)."""
    return m[1]


def dest(m: tuple) -> int:
    """The voter `m` is addressed to (1..n)."""
    return m[2]


def epoch(m: tuple) -> int:
    """The epoch `m` carries: the sender's, or for a response, the one the answer is about."""
    return m[3]


class VoteResponse(NamedTuple):
    """A Vote response: the leader the voter knows (0: none), whether it granted its vote, and
    an error."""

    leader: int
    granted: int
    error: int


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


def fields(m: tuple):
    """A Vote or FETCH response's own fields, by name."""
    return VoteResponse(*m[4:]) if m[0] == VOTE_RESPONSE else FetchResponse(*m[4:])


def fetch_offset(m: tuple) -> int:
    """A FETCH request's fetch offset: the follower's log end offset."""
    return m[4]


def last_fetched_epoch(m: tuple) -> int:
    """A FETCH request's last fetched epoch: the epoch of the follower's last entry."""
    return m[5]
