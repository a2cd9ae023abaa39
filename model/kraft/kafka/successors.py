"""The faithful variants' next-state relation: every step Kafka's `raft` module can take from
a packed state, under the rule set the layout carries. A voter that took a step Kafka refuses
(the illegal role) takes no more; a leader inside `flushLeaderLog` takes no step but the flush,
a crash and answering the FETCHes parked at it; a leader asked to resign takes none but resigning and a crash
(`KafkaRaftClient.poll` polls its state before it handles the next message)."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel

from ..messages import BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FETCH_REQUEST, FETCH_RESPONSE, PRE_VOTE_REQUEST, \
    VOTE_REQUEST, VOTE_RESPONSE
from ..state import ILLEGAL
from ..tla.layout import ROLE, get
from .channels import connection, is_request
from .crashes import lose_disk, restart
from .elections import (append_leader_change, handle_begin_quorum, handle_begin_quorum_response, handle_vote_request,
                        handle_vote_response, prospective_timeout, send_begin_quorum, send_vote_requests, timeout)
from .fetching import client_append, flush, handle_fetch_request, handle_fetch_response, send_fetch
from .guards import NOT_FLUSHING, NOT_RESIGNING, RECEIVER_READY
from .layout import KIND, in_poll
from .reconfiguration import add_voter, asked_to_resign, remove_voter, resign, resigned_timeout


@kernel
def _voter_steps(s, lay, out, acts, tally, n, i):
    """Voter i's own steps: a crash, then the flush it is inside, or else its poll's steps."""
    n = restart(s, lay, out, acts, tally, n, i)
    n = lose_disk(s, lay, out, acts, tally, n, i)
    n = flush(s, lay, out, acts, tally, n, i)
    if not holds(tally, NOT_FLUSHING, not in_poll(s, lay, i)):
        return n
    n = resign(s, lay, out, acts, tally, n, i)
    if not holds(tally, NOT_RESIGNING, not asked_to_resign(s, lay, i)):
        return n
    n = timeout(s, lay, out, acts, tally, n, i)
    n = prospective_timeout(s, lay, out, acts, tally, n, i)
    n = resigned_timeout(s, lay, out, acts, tally, n, i)
    n = append_leader_change(s, lay, out, acts, tally, n, i)
    n = client_append(s, lay, out, acts, tally, n, i)
    n = add_voter(s, lay, out, acts, tally, n, i)
    n = remove_voter(s, lay, out, acts, tally, n, i)
    n = send_fetch(s, lay, out, acts, tally, n, i)
    n = send_vote_requests(s, lay, out, acts, tally, n, i)
    return send_begin_quorum(s, lay, out, acts, tally, n, i)


@kernel
def _handle(s, lay, out, acts, tally, n, at, kind, receiver, sender):
    """The receiver's step on the message of type `kind` on the connection at `at`."""
    if get(s, lay, receiver, ROLE) == ILLEGAL:
        return n
    if not holds(tally, NOT_RESIGNING, not asked_to_resign(s, lay, receiver)):
        return n
    if kind == FETCH_REQUEST:
        return handle_fetch_request(s, lay, out, acts, tally, n, at, receiver, sender)
    if not holds(tally, RECEIVER_READY, not in_poll(s, lay, receiver)):
        return n
    if kind == VOTE_REQUEST or kind == PRE_VOTE_REQUEST:
        return handle_vote_request(s, lay, out, acts, tally, n, at, receiver, sender, kind == PRE_VOTE_REQUEST)
    if kind == VOTE_RESPONSE:
        return handle_vote_response(s, lay, out, acts, tally, n, at, receiver, sender)
    if kind == BEGIN_QUORUM_REQUEST:
        return handle_begin_quorum(s, lay, out, acts, tally, n, at, receiver, sender)
    if kind == BEGIN_QUORUM_RESPONSE:
        return handle_begin_quorum_response(s, lay, out, acts, tally, n, at, receiver, sender)
    if kind == FETCH_RESPONSE:
        return handle_fetch_response(s, lay, out, acts, tally, n, at, receiver, sender)
    return n


@kernel
def successors(s, lay, out, acts, tally):
    """Write every enabled step from state `s` into `out` (rows) and `acts` (action codes);
    return how many there are."""
    n = 0
    for i in range(lay.replicas):
        if get(s, lay, i, ROLE) != ILLEGAL:
            n = _voter_steps(s, lay, out, acts, tally, n, i)
    for requester in range(lay.replicas):
        for receiver in range(lay.replicas):
            if receiver == requester:
                continue
            at = connection(lay, requester, receiver)
            kind = s[at + KIND]
            if kind == 0:
                continue
            if is_request(kind):
                n = _handle(s, lay, out, acts, tally, n, at, kind, receiver, requester)
            else:
                n = _handle(s, lay, out, acts, tally, n, at, kind, requester, receiver)
    return n


def max_successors(lay) -> int:
    """An upper bound on the steps enabled in one state (the size of a successor buffer)."""
    return lay.replicas * (9 + lay.values + 3 * lay.replicas) + lay.replicas * (lay.replicas - 1)
