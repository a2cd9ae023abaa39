"""The faithful variants' network: one connection per (requester, receiver) pair, as Kafka's
`RequestManager` keeps them, and what `KafkaRaftClient.resetConnections` does on every role
change, over packed rows.

A voter has at most one request in flight to each other voter; the answer travels back on the
same connection, so a connection holds at most one message, its request or its response, in
one record (`model.kraft.kafka.layout`): the message's type, the epoch it carries, for a request
whether its sender still expects the answer, and its own fields:

    Vote request              A last log epoch, B log end offset, C the directory id addressed
    Pre-vote request          as a Vote request
    Vote response             A leader known, B granted, C error
    BeginQuorumEpoch          -
    BeginQuorumEpoch response A error, B leader known
    FETCH                     A fetch offset, B last fetched epoch, C the fetcher's directory id,
                              D PARKED while its leader, inside flushLeaderLog, may complete it
    FETCH response            A result, B error, C leader, D HW, E diverging epoch,
                              F diverging end offset, then the records it carries

A request's source is the connection's requester and its destination the receiver; a
response's the other way round. Every change of role or epoch, and every restart, resets the
sender's connections, so the answers to its earlier requests are dropped where they arrive
(`isResponseExpected` fails on their correlation id). Here a reset drops the answers already on
their way back at once, and marks the requests still in flight as no longer expected: the
receiver still acts on such a request (TCP delivers it), and its answer is dropped as it would
be on arrival. A connection is free again once its message is gone, so the sender's next
request to that voter waits for the old one; in Kafka the new request would follow the old one
on the same connection, so the order in which the receiver handles them is the same.

Nothing is lost in flight: a request that is never answered is one that has not been handled
yet (an abstraction: Kafka's request timeout, which gives up on it, is not modelled)."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..messages import BEGIN_QUORUM_REQUEST, FETCH_REQUEST, PRE_VOTE_REQUEST, VOTE_REQUEST
from .layout import EPOCH_SENT, KIND, LIVE, A, B, C, D, E, F

EXPECTED = 1
"""A request's LIVE slot while its sender still expects the answer (0: no longer)."""
PARKED = 1
"""A FETCH request's D slot while its receiver, a leader, is inside `flushLeaderLog` and the
FETCH is one Kafka parked before the append that began it (`fetching.parks`): the leader may
answer it before the flush, with the records just appended. The model answers every other
FETCH at once (`handleFetchRequest` at a poll), and so needs the mark only for those."""


@kernel
def connection(lay, requester, receiver):
    """Where the record of the connection from voter `requester` to voter `receiver` (indices)
    starts."""
    c = requester * (lay.replicas - 1) + receiver - (1 if receiver > requester else 0)
    return lay.channel_base + c * lay.record


@kernel
def is_request(kind):
    """A message of this type is a request (Vote, pre-vote, BeginQuorumEpoch, FETCH)."""
    return kind == VOTE_REQUEST or kind == BEGIN_QUORUM_REQUEST or kind == FETCH_REQUEST or kind == PRE_VOTE_REQUEST


@kernel
def free(s, lay, i, j):
    """Voter i (index) may send voter j (index) a request: nothing is in flight on i's
    connection to j."""
    return s[connection(lay, i, j) + KIND] == 0


@kernel
def send(t, lay, i, j, kind, epoch, a, b, c):
    """Voter i sends voter j a request of type `kind` carrying `epoch` and fields a, b, c, and
    expects the answer."""
    at = connection(lay, i, j)
    t[at + KIND], t[at + EPOCH_SENT], t[at + LIVE], t[at + A], t[at + B], t[at + C] = kind, epoch, EXPECTED, a, b, c


@kernel
def idle(s, lay, i):
    """Voter i has no request in flight (`RequestManager.hasAnyInflightRequest` is false): none
    of its requests is still expected, and no answer is on its way back to it."""
    for j in range(lay.replicas):
        if j != i:
            at = connection(lay, i, j)
            kind = s[at + KIND]
            if kind != 0 and (not is_request(kind) or s[at + LIVE]):
                return False
    return True


@kernel
def unpark_fetches(t, lay, i):
    """No FETCH on its way to voter i is parked any longer: its flush ended `flushLeaderLog`."""
    for j in range(lay.replicas):
        if j != i and t[connection(lay, j, i) + KIND] == FETCH_REQUEST:
            t[connection(lay, j, i) + D] = 0


@kernel
def clear(t, lay, at):
    """The connection whose record starts at `at` holds no message."""
    for x in range(lay.record):
        t[at + x] = 0


@kernel
def reset(t, lay, i):
    """Voter i reset its connections: answers on their way to it are dropped, and its requests
    in flight are no longer expected."""
    for j in range(lay.replicas):
        if j == i:
            continue
        at = connection(lay, i, j)
        if is_request(t[at + KIND]):
            t[at + LIVE] = 0
        elif t[at + KIND] != 0:
            clear(t, lay, at)


@kernel
def cut_off(t, lay, i):
    """Voter i stopped: whatever was on its way to it is gone with its connections, and its own
    requests still in flight are answered to no one."""
    reset(t, lay, i)
    for j in range(lay.replicas):
        if j != i and is_request(t[connection(lay, j, i) + KIND]):
            clear(t, lay, connection(lay, j, i))


@kernel
def answer(t, lay, at, kind, epoch, a, b, c, d, e, f):
    """The receiver of the request that was on the connection at `at` answers it there with a
    response of type `kind` carrying `epoch` and fields a..f (the request is gone: `clear`)."""
    t[at + KIND], t[at + EPOCH_SENT], t[at + LIVE] = kind, epoch, 0
    t[at + A], t[at + B], t[at + C], t[at + D], t[at + E], t[at + F] = a, b, c, d, e, f
