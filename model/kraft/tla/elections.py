"""Variant `tla`'s election steps, one kernel function per action of the specification, named
as it names them: Restart, RequestVote, HandleRequestVoteRequest, HandleRequestVoteResponse,
BecomeLeader, HandleBeginQuorumRequest. Each appends its successors to `out` (`checker.kernel.steps`)."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..messages import BEGIN_QUORUM_REQUEST, FENCED_LEADER_EPOCH, VOTE_REQUEST
from ..state import CANDIDATE, FOLLOWER, LEADER, NIL, UNATTACHED, VOTED
from . import messages as msg
from .bag import discard, reply, send_multiple_once
from .guards import (BEGIN_NEVER_SENT, ELECTIONS_LEFT, MAY_TIME_OUT, NEVER_ASKED, NOT_CANDIDATE, RESTARTS_LEFT,
                     VOTES_WON)
from .kinds import BECOME_LEADER, HANDLE_BEGIN_QUORUM, HANDLE_VOTE_REQUEST, HANDLE_VOTE_RESPONSE, REQUEST_VOTE, RESTART
from .layout import (ELECTIONS, EPOCH, HW, LEADER as LEADER_AT, RESTARTS, ROLE, VOTED_FOR, VOTES, clear_end_offsets,
                     clear_pending, get, last_epoch, log_length, put)
from .transitions import common_response, maybe_transition, standing, take, to_voted


@kernel
def handler_code(kind, i, k):
    """The code of handling the bag's k-th message, received by voter i (index)."""
    return action_code(kind, i + 1, k >> 4, k & 15)


@kernel
def restart(s, lay, out, acts, tally, n):
    """Restart: a voter comes back as a follower of no one, keeping its epoch, vote and log,
    with no HW, no pending FETCH and no leader state."""
    if not holds(tally, RESTARTS_LEFT, s[RESTARTS] < lay.max_restarts):
        return n
    for i in range(lay.replicas):
        t = emit(s, out, acts, n, action_code(RESTART, i + 1, 0, 0))
        put(t, lay, i, ROLE, FOLLOWER)
        put(t, lay, i, LEADER_AT, NIL)
        put(t, lay, i, VOTES, 0)
        put(t, lay, i, HW, 0)
        clear_end_offsets(t, lay, i)
        clear_pending(t, lay, i)
        t[RESTARTS] += 1
        n += 1
    return n


@kernel
def majority(lay, votes):
    """More than half of the voters are in the bitmask `votes`."""
    count = 0
    for k in range(lay.replicas):
        count += (votes >> k) & 1
    return 2 * count > lay.replicas


@kernel
def request_vote(s, lay, out, acts, tally, n):
    """RequestVote: a voter times out, becomes a candidate in the next epoch, votes for itself
    and sends every other voter a Vote request with where its log ends (all only if none of
    them was ever sent)."""
    if not holds(tally, ELECTIONS_LEFT, s[ELECTIONS] < lay.max_elections):
        return n
    for i in range(lay.replicas):
        role = get(s, lay, i, ROLE)
        if not holds(tally, MAY_TIME_OUT, role == FOLLOWER or role == CANDIDATE or role == UNATTACHED):
            continue
        epoch = get(s, lay, i, EPOCH) + 1
        t = emit(s, out, acts, n, action_code(REQUEST_VOTE, i + 1, 0, 0))
        if not holds(tally, NEVER_ASKED, send_multiple_once(t, lay, VOTE_REQUEST, i + 1, epoch, last_epoch(s, lay, i),
                                                             log_length(s, lay, i))):
            continue
        take(t, lay, i, (CANDIDATE, epoch, NIL))
        put(t, lay, i, VOTED_FOR, i + 1)
        put(t, lay, i, VOTES, 1 << i)
        clear_pending(t, lay, i)
        t[ELECTIONS] += 1
        n += 1
    return n


@kernel
def handle_vote_request(s, lay, out, acts, tally, n, k, m):
    """HandleRequestVoteRequest: a voter grants its vote when it has not voted in that epoch
    (or voted for this candidate) and the candidate's log ends no earlier than its own; a
    request from an older epoch is answered FENCED_LEADER_EPOCH."""
    i, j, epoch = m[msg.DEST] - 1, m[msg.SOURCE], m[msg.EPOCH]
    t = emit(s, out, acts, n, handler_code(HANDLE_VOTE_REQUEST, i, k))
    mine = get(s, lay, i, EPOCH)
    if epoch < mine:
        answer = msg.vote_response(i + 1, j, mine, get(s, lay, i, LEADER_AT), 0, FENCED_LEADER_EPOCH)
        return n + 1 if reply(t, lay, answer, m) else n
    before = (UNATTACHED, epoch, NIL) if epoch > mine else standing(s, lay, i)
    their_last, their_length = m[msg.LAST_LOG_EPOCH], m[msg.LAST_LOG_OFFSET]
    our_last, our_length = last_epoch(s, lay, i), log_length(s, lay, i)
    log_ok = their_last > our_last or (their_last == our_last and their_length >= our_length)
    grant = log_ok and (before[0] == UNATTACHED or (before[0] == VOTED and get(s, lay, i, VOTED_FOR) == j))
    after = to_voted(epoch, before) if grant and before[0] == UNATTACHED else before
    if not reply(t, lay, msg.vote_response(i + 1, j, epoch, after[2], 1 if grant else 0, NIL), m):
        return n
    take(t, lay, i, after)
    if grant:
        put(t, lay, i, VOTED_FOR, j)
    if after[0] != get(s, lay, i, ROLE):
        clear_pending(t, lay, i)
    return n + 1


@kernel
def handle_vote_response(s, lay, out, acts, tally, n, k, m):
    """HandleRequestVoteResponse: a response of another epoch, an error or news of a leader
    moves the candidate as any response does; otherwise a candidate counts a granted vote."""
    i, j = m[msg.DEST] - 1, m[msg.SOURCE]
    new, handled = common_response(s, lay, i, m[msg.LEADER], m[msg.EPOCH], m[msg.ERROR])
    if not holds(tally, NOT_CANDIDATE, handled or get(s, lay, i, ROLE) == CANDIDATE):
        return n
    t = emit(s, out, acts, n, handler_code(HANDLE_VOTE_RESPONSE, i, k))
    discard(t, lay, m)
    if handled:
        take(t, lay, i, new)
    elif m[msg.GRANTED]:
        put(t, lay, i, VOTES, get(s, lay, i, VOTES) | (1 << (j - 1)))
    return n + 1


@kernel
def become_leader(s, lay, out, acts, tally, n):
    """BecomeLeader: a candidate with a majority of votes leads its epoch and sends every other
    voter BeginQuorumEpoch (only if none of those was ever sent)."""
    for i in range(lay.replicas):
        if not holds(tally, VOTES_WON, get(s, lay, i, ROLE) == CANDIDATE and majority(lay, get(s, lay, i, VOTES))):
            continue
        t = emit(s, out, acts, n, action_code(BECOME_LEADER, i + 1, 0, 0))
        if not holds(tally, BEGIN_NEVER_SENT,
                     send_multiple_once(t, lay, BEGIN_QUORUM_REQUEST, i + 1, get(s, lay, i, EPOCH), 0, 0)):
            continue
        put(t, lay, i, ROLE, LEADER)
        put(t, lay, i, LEADER_AT, i + 1)
        clear_end_offsets(t, lay, i)
        n += 1
    return n


@kernel
def handle_begin_quorum(s, lay, out, acts, tally, n, k, m):
    """HandleBeginQuorumRequest: a voter follows the new leader unless the request's epoch is
    older than its own (answered FENCED_LEADER_EPOCH)."""
    i, j, epoch = m[msg.DEST] - 1, m[msg.SOURCE], m[msg.EPOCH]
    t = emit(s, out, acts, n, handler_code(HANDLE_BEGIN_QUORUM, i, k))
    mine = get(s, lay, i, EPOCH)
    if epoch < mine:
        return n + 1 if reply(t, lay, msg.begin_quorum_response(i + 1, j, mine, FENCED_LEADER_EPOCH), m) else n
    new = maybe_transition(s, lay, i, j, epoch)
    if not reply(t, lay, msg.begin_quorum_response(i + 1, j, epoch, NIL), m):
        return n
    take(t, lay, i, new)
    clear_pending(t, lay, i)
    return n + 1
