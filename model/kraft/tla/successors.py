"""Variant `tla`'s next-state relation, the specification's Next: every voter's own steps,
then every step that handles a message in flight, by the message's type."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..messages import BEGIN_QUORUM_REQUEST, FETCH_REQUEST, FETCH_RESPONSE, VOTE_REQUEST, VOTE_RESPONSE
from .bag import count_at, message_at
from .elections import become_leader, handle_begin_quorum, handle_vote_request, handle_vote_response, request_vote, \
    restart
from .layout import BAG_SIZE
from .replication import accept_fetch, client_request, diverging_fetch, handle_fetch_response, reject_fetch, send_fetch


@kernel
def successors(s, lay, out, acts, tally):
    """Write every enabled step from state `s` into `out` (rows) and `acts` (action codes);
    return how many there are."""
    n = restart(s, lay, out, acts, tally, 0)
    n = request_vote(s, lay, out, acts, tally, n)
    n = become_leader(s, lay, out, acts, tally, n)
    n = client_request(s, lay, out, acts, tally, n)
    n = send_fetch(s, lay, out, acts, tally, n)
    for k in range(s[BAG_SIZE]):
        if count_at(s, lay, k) <= 0:
            continue
        m = message_at(s, lay, k)
        kind = m[0]
        if kind == VOTE_REQUEST:
            n = handle_vote_request(s, lay, out, acts, tally, n, k, m)
        elif kind == VOTE_RESPONSE:
            n = handle_vote_response(s, lay, out, acts, tally, n, k, m)
        elif kind == BEGIN_QUORUM_REQUEST:
            n = handle_begin_quorum(s, lay, out, acts, tally, n, k, m)
        elif kind == FETCH_REQUEST:
            n = reject_fetch(s, lay, out, acts, tally, n, k, m)
            n = diverging_fetch(s, lay, out, acts, tally, n, k, m)
            n = accept_fetch(s, lay, out, acts, tally, n, k, m)
        elif kind == FETCH_RESPONSE:
            n = handle_fetch_response(s, lay, out, acts, tally, n, k, m)
    return n


def max_successors(lay) -> int:
    """An upper bound on the steps enabled in one state (the size of a successor buffer)."""
    return lay.replicas * (4 + lay.values) + 2 * lay.bag_capacity
