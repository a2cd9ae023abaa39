"""The faithful variants' network: one connection per (requester, receiver) pair, as Kafka's
`RequestManager` keeps them, and what `KafkaRaftClient.resetConnections` does on every role
change.

A voter has at most one request in flight to each other voter; the answer travels back on the
same connection, so a pair holds at most one message, its request or its response. A request
carries, as its last item, whether its sender still expects the answer: every change of role
or epoch, and every restart, resets the sender's connections, so the answers to its earlier
requests are dropped where they arrive (`isResponseExpected` fails on their correlation id).
Here a reset drops the answers already on their way back at once, and marks the requests still
in flight as no longer expected: the receiver still acts on such a request (TCP delivers it),
and its answer is dropped as it would be on arrival. A connection is free again once its
message is gone, so the sender's next request to that voter waits for the old one; in Kafka the
new request would follow the old one on the same connection, so the order in which the receiver
handles them is the same.

Messages are kept as the specification's bag is (sorted (message, count) pairs), each with
count 1. Nothing is lost in flight: a request that is never answered is one that has not been
handled yet (an abstraction: Kafka's request timeout, which gives up on it, is not modelled).
"""

from __future__ import annotations

from . import messages as msg
from .state import KRaftState

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

LIVE, STALE = 1, 0
"""A request's last item: its sender still expects the answer, or not."""


def _requester(m: tuple) -> int:
    """The voter (1..n) that opened the connection `m` travels on."""
    return msg.source(m) if m[0] in msg.REQUESTS else msg.dest(m)


def _receiver(m: tuple) -> int:
    return msg.dest(m) if m[0] in msg.REQUESTS else msg.source(m)


def free(s: KRaftState, i: int, j: int) -> bool:
    """Voter i (index) may send voter j (index) a request: nothing is in flight between them on
    i's connection to j."""
    return not any(_requester(m) == i + 1 and _receiver(m) == j + 1 for m, _ in s.messages)


def send(s: KRaftState, request: tuple) -> KRaftState:
    """`s` with `request` (built without its last item) in flight, expected by its sender."""
    return send_all(s, [request])


def send_all(s: KRaftState, requests: list[tuple]) -> KRaftState | None:
    """`s` with every one of `requests` in flight, as `send` puts one; None when there are
    none (a poll that sends nothing is no step)."""
    if not requests:
        return None
    return s._replace(messages=tuple(sorted(s.messages + tuple((r + (LIVE,), 1) for r in requests))))


def expected(request: tuple) -> bool:
    """Whether the request's sender still expects its answer."""
    return request[-1] == LIVE


def received(s: KRaftState, m: tuple, answer: tuple | None = None) -> KRaftState:
    """`s` with `m` handled: gone from the network, and for an expected request, `answer` sent
    back on the same connection."""
    rest = tuple(x for x in s.messages if x[0] != m)
    if answer is not None and m[0] in msg.REQUESTS and expected(m):
        rest = tuple(sorted(rest + ((answer, 1),)))
    return s._replace(messages=rest)


def reset(s: KRaftState, i: int) -> KRaftState:
    """`s` after voter i (index) reset its connections: answers on their way to it are dropped,
    and its requests in flight are no longer expected."""
    me = i + 1
    kept = []
    for m, c in s.messages:
        if m[0] in msg.REQUESTS:
            kept.append((m[:-1] + (STALE,) if msg.source(m) == me else m, c))
        elif msg.dest(m) != me:
            kept.append((m, c))
    return s._replace(messages=tuple(sorted(kept)))


def cut_off(s: KRaftState, i: int) -> KRaftState:
    """`s` after voter i (index) stopped: whatever was on its way to it is gone with its
    connections, and its own requests still in flight are answered to no one."""
    me = i + 1
    kept = [(m[:-1] + (STALE,), c) if m[0] in msg.REQUESTS and msg.source(m) == me else (m, c)
            for m, c in s.messages if msg.dest(m) != me]
    return s._replace(messages=tuple(sorted(kept)))
