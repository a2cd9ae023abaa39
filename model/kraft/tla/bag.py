"""The specification's bag of messages in a packed row: every message ever sent, as records
(`model.kraft.tla.messages`) in ascending order, each with its count of copies in flight. A
message handled has its count lowered and stays at 0, since the specification's sending rules
look at every message ever sent: a Vote or BeginQuorumEpoch request is sent once, and a FETCH
response is never sent twice (the specification's way to bound retries)."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..messages import FETCH_RESPONSE
from .layout import BAG_SIZE, COUNT, RECORD
from .messages import request

MESSAGE_SLOTS = RECORD - 1
"""The slots of a record that hold the message (the last holds its count)."""


@kernel
def record_at(lay, k):
    """Where the bag's k-th record starts."""
    return lay.bag_base + k * RECORD


@kernel
def message_at(s, lay, k):
    """The bag's k-th message, as a message tuple."""
    b = lay.bag_base + k * RECORD
    return (int(s[b]), int(s[b + 1]), int(s[b + 2]), int(s[b + 3]), int(s[b + 4]), int(s[b + 5]), int(s[b + 6]),
            int(s[b + 7]), int(s[b + 8]), int(s[b + 9]), int(s[b + 10]), int(s[b + 11]), int(s[b + 12]),
            int(s[b + 13]), int(s[b + 14]))


@kernel
def count_at(s, lay, k):
    """How many copies of the bag's k-th message are in flight."""
    return int(s[lay.bag_base + k * RECORD + COUNT])


@kernel
def _compare(s, b, m):
    """How the record at slot b compares with message m: -1, 0 or 1."""
    for x in range(MESSAGE_SLOTS):
        if s[b + x] != m[x]:
            return -1 if s[b + x] < m[x] else 1
    return 0


@kernel
def place(s, lay, m):
    """Where message m is, or would go, in the bag: (index, whether it is there)."""
    size = int(s[BAG_SIZE])
    for k in range(size):
        order = _compare(s, lay.bag_base + k * RECORD, m)
        if order == 0:
            return k, True
        if order > 0:
            return k, False
    return size, False


@kernel
def ever_sent(s, lay, m):
    """Message m was sent once, whether or not it is still in flight."""
    return place(s, lay, m)[1]


@kernel
def in_flight(s, lay, m):
    """How many copies of message m are in flight."""
    k, known = place(s, lay, m)
    return count_at(s, lay, k) if known else 0


@kernel
def add(t, lay, m):
    """One more copy of message m in flight (its record made, in order, if it is new)."""
    k, known = place(t, lay, m)
    if not known:
        size = int(t[BAG_SIZE])
        if size >= lay.bag_capacity:
            raise OverflowError("the kraft message bag outgrew its layout")
        for x in range(record_at(lay, size + 1) - 1, record_at(lay, k) + RECORD - 1, -1):
            t[x] = t[x - RECORD]
        b = record_at(lay, k)
        for x in range(MESSAGE_SLOTS):
            t[b + x] = m[x]
        t[b + COUNT] = 0
        t[BAG_SIZE] = size + 1
    t[record_at(lay, k) + COUNT] += 1


@kernel
def send_multiple_once(t, lay, kind, src, epoch, a, b):
    """SendMultipleOnce: request `kind` (`messages.request`) from voter src (1..n) in `epoch` to
    every other voter, only if none of those was ever sent; False where one was."""
    for dst in range(1, lay.replicas + 1):
        if dst != src and ever_sent(t, lay, request(kind, src, dst, epoch, a, b)):
            return False
    for dst in range(1, lay.replicas + 1):
        if dst != src:
            add(t, lay, request(kind, src, dst, epoch, a, b))
    return True


@kernel
def discard(t, lay, m):
    """Discard: one copy of message m handled (False when none is in flight)."""
    k, known = place(t, lay, m)
    if not known or count_at(t, lay, k) <= 0:
        return False
    t[record_at(lay, k) + COUNT] -= 1
    return True


@kernel
def reply(t, lay, response, request):
    """Reply: `request` handled and `response` sent, except that a FETCH response is never sent
    twice (the specification's bound on empty fetches): False where the step cannot happen."""
    if in_flight(t, lay, request) <= 0:
        return False
    if response[0] == FETCH_RESPONSE and ever_sent(t, lay, response):
        return False
    discard(t, lay, request)
    add(t, lay, response)
    return True


@kernel
def sort_records(t, lay):
    """Put the bag's records back in ascending order (after a renaming), by insertion."""
    size = int(t[BAG_SIZE])
    for k in range(1, size):
        j = k
        while j > 0 and _compare(t, record_at(lay, j - 1), message_at(t, lay, j)) > 0:
            a, b = record_at(lay, j - 1), record_at(lay, j)
            for x in range(RECORD):
                t[a + x], t[b + x] = t[b + x], t[a + x]
            j -= 1
