"""Elections in the faithful variants, as Kafka's `KafkaRaftClient` holds them: a voter times
out and stands in the next epoch, asks each voter for its vote, and leads as soon as a majority
granted it; the new leader tells the voters with BeginQuorumEpoch.

Each function is one step of voter i (index), or of the receiver of the message on the
connection whose record starts at `at`, and appends its successor to `out`
(`checker.kernel.steps`)."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..messages import (BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FENCED_LEADER_EPOCH, INVALID_VOTER_KEY,
                        VOTE_REQUEST, VOTE_RESPONSE)
from ..state import CANDIDATE, CONTROL, FOLLOWER, LEADER, RESIGNED, UNATTACHED, VOTED
from ..tla.layout import ELECTIONS, EPOCH, LEADER as LEADER_AT, ROLE, VOTES, append, get, last_epoch, put
from .channels import answer, clear, free, send
from .guards import CANDIDATE_ASKS, ELECTIONS_LEFT, IS_VOTER, LEADER_TELLS, MAY_STAND, NEW_LEADER
from .kinds import (APPEND_LEADER_CHANGE, HANDLE_BEGIN_QUORUM, HANDLE_BEGIN_QUORUM_RESPONSE, HANDLE_VOTE_REQUEST,
                    HANDLE_VOTE_RESPONSE, SEND_BEGIN_QUORUM, SEND_VOTE_REQUESTS, TIMEOUT)
from .layout import DIRECTORY, EPOCH_SENT, HEARD, START_OFFSET, LIVE, A, B, C, log_end
from .leader_state import counted_self
from .quorum_state import can_grant_vote, common_response, maybe_transition, to_candidate, to_leader, to_unattached, \
    to_voted
from .voter_set import has_id, is_voter, majority, named_directory, voter_set, voters_record_at


@kernel
def timeout(s, lay, out, acts, tally, n, i):
    """A voter's election timer runs out (an unattached, voted or resigned voter's election
    timeout, a follower's fetch timeout, a candidate's election timeout and backoff): it
    becomes a candidate in the next epoch, voting for itself (`transitionToCandidate`), and
    leads at once if that is a majority. An observer never stands; the bound `max-elections`
    counts these steps."""
    if not holds(tally, ELECTIONS_LEFT, s[ELECTIONS] < lay.max_elections):
        return n
    role = get(s, lay, i, ROLE)
    if not holds(tally, MAY_STAND, role == UNATTACHED or role == VOTED or role == FOLLOWER or role == CANDIDATE
                 or role == RESIGNED):
        return n
    if not holds(tally, IS_VOTER, is_voter(s, lay, i)):
        return n
    t = emit(s, out, acts, n, action_code(TIMEOUT, i + 1, 0, 0))
    to_candidate(t, lay, i)
    t[ELECTIONS] += 1
    if majority(lay, voter_set(t, lay, i), get(t, lay, i, VOTES)):
        to_leader(t, lay, i)
    return n + 1


@kernel
def _unasked(s, lay, i):
    """The voters of its set candidate i may ask for their vote (a bitmask): no answer from them
    yet, and a free connection to each."""
    voters, code = 0, voter_set(s, lay, i)
    for j in range(lay.replicas):
        if j != i and has_id(lay, code, j) and not (get(s, lay, i, HEARD) >> j) & 1 and free(s, lay, i, j):
            voters |= 1 << j
    return voters


@kernel
def send_vote_requests(s, lay, out, acts, tally, n, i):
    """A candidate's poll sends a Vote request, with where its log ends (its last epoch and
    LEO) and the voter's key as its set names it, to every voter it has no answer from and a
    free connection to (`maybeSendVoteRequests`)."""
    voters = _unasked(s, lay, i)
    if not holds(tally, CANDIDATE_ASKS, get(s, lay, i, ROLE) == CANDIDATE and voters != 0):
        return n
    t = emit(s, out, acts, n, action_code(SEND_VOTE_REQUESTS, i + 1, 0, 0))
    code = voter_set(s, lay, i)
    for j in range(lay.replicas):
        if (voters >> j) & 1:
            send(t, lay, i, j, VOTE_REQUEST, get(s, lay, i, EPOCH), last_epoch(s, lay, i), log_end(s, lay, i),
                 named_directory(lay, code, j))
    return n + 1


@kernel
def handle_vote_request(s, lay, out, acts, tally, n, at, j, candidate):
    """`handleVoteRequest` by voter j of `candidate`'s request (indices): a request of an older
    epoch is answered FENCED_LEADER_EPOCH; a newer epoch first makes the voter unattached in
    it, whatever it answers; under KIP-853 a request for a directory id the voter no longer has
    is refused INVALID_VOTER_KEY; otherwise the voter grants its vote as `canGrantVote` says
    (the candidate's log compared by last epoch, then LEO) and, unattached, writes the vote to
    its quorum-state file before it answers."""
    epoch, live = int(s[at + EPOCH_SENT]), s[at + LIVE]
    their_epoch, their_end, addressed = int(s[at + A]), int(s[at + B]), int(s[at + C])
    t = emit(s, out, acts, n, action_code(HANDLE_VOTE_REQUEST, j + 1, candidate + 1, epoch))
    clear(t, lay, at)
    granted, error = 0, 0
    if epoch < get(t, lay, j, EPOCH):
        error = FENCED_LEADER_EPOCH
    else:
        if epoch > get(t, lay, j, EPOCH):
            to_unattached(t, lay, j, epoch)
        if lay.directory_ids and addressed != get(t, lay, j, DIRECTORY):
            error = INVALID_VOTER_KEY
        else:
            mine = last_epoch(t, lay, j)
            up_to_date = their_epoch > mine or (their_epoch == mine and their_end >= log_end(t, lay, j))
            granted = 1 if can_grant_vote(t, lay, j, candidate + 1, up_to_date) else 0
            if granted and get(t, lay, j, ROLE) == UNATTACHED:
                to_voted(t, lay, j, candidate + 1)
    if live:
        answer(t, lay, at, VOTE_RESPONSE, get(t, lay, j, EPOCH), get(t, lay, j, LEADER_AT), granted, error, 0, 0, 0)
    return n + 1


@kernel
def handle_vote_response(s, lay, out, acts, tally, n, at, i, j):
    """`handleVoteResponse` by candidate i of voter j's answer: after the common handling of
    responses, a candidate records the answer and, granted a majority, leads at once
    (`maybeTransitionToLeader`)."""
    epoch, leader, granted, error = int(s[at + EPOCH_SENT]), int(s[at + A]), int(s[at + B]), int(s[at + C])
    t = emit(s, out, acts, n, action_code(HANDLE_VOTE_RESPONSE, i + 1, j + 1, epoch))
    clear(t, lay, at)
    if common_response(t, lay, i, leader, epoch, error) or get(t, lay, i, ROLE) != CANDIDATE:
        return n + 1
    votes = get(t, lay, i, VOTES) | (granted << j)
    put(t, lay, i, VOTES, votes)
    put(t, lay, i, HEARD, get(t, lay, i, HEARD) | 1 << j)
    if majority(lay, voter_set(t, lay, i), votes):
        to_leader(t, lay, i)
    return n + 1


@kernel
def append_leader_change(s, lay, out, acts, tally, n, i):
    """A new leader appends its epoch's control batch at the epoch's start offset
    (`LeaderState.appendStartOfEpochControlRecords`, drained on its next poll) and counts its own
    LEO (`flushLeaderLog` updates the leader's end offset before it flushes). The batch is a
    LeaderChange record; under KIP-853 a leader whose log holds no VotersRecord yet (its set
    came from the bootstrap checkpoint) adds a VotersRecord of that set to it, one batch
    replicated and committed as one log entry."""
    if not holds(tally, NEW_LEADER, get(s, lay, i, ROLE) == LEADER and
                 log_end(s, lay, i) == get(s, lay, i, START_OFFSET)):
        return n
    t = emit(s, out, acts, n, action_code(APPEND_LEADER_CHANGE, i + 1, 0, 0))
    from_bootstrap = lay.directory_ids and voters_record_at(s, lay, i) == 0
    append(t, lay, i, get(s, lay, i, EPOCH), -voter_set(s, lay, i) if from_bootstrap else CONTROL)
    counted_self(t, lay, i, log_end(t, lay, i))
    return n + 1


@kernel
def _untold(s, lay, i):
    """The voters of its latest set leader i sends BeginQuorumEpoch (a bitmask): those that
    have not acknowledged its epoch, or (3.9) every voter; each over a free connection."""
    voters, code = 0, voter_set(s, lay, i)
    for j in range(lay.replicas):
        if j != i and has_id(lay, code, j) and (lay.periodic_begin_quorum or not (get(s, lay, i, HEARD) >> j) & 1) and free(s, lay, i, j):
            voters |= 1 << j
    return voters


@kernel
def send_begin_quorum(s, lay, out, acts, tally, n, i):
    """A leader's poll sends BeginQuorumEpoch to every voter it has a free connection to that
    has not acknowledged its epoch (by a BeginQuorumEpoch answer or a FETCH; 3.8
    `maybeSendRequests` to `nonAcknowledgingVoters`), or acknowledged or not (3.9
    `maybeSendBeginQuorumEpochRequests`, on a timer)."""
    voters = _untold(s, lay, i)
    if not holds(tally, LEADER_TELLS, get(s, lay, i, ROLE) == LEADER and voters != 0):
        return n
    t = emit(s, out, acts, n, action_code(SEND_BEGIN_QUORUM, i + 1, 0, 0))
    code = voter_set(s, lay, i)
    for j in range(lay.replicas):
        if (voters >> j) & 1:
            send(t, lay, i, j, BEGIN_QUORUM_REQUEST, get(s, lay, i, EPOCH), named_directory(lay, code, j), 0, 0)
    return n + 1


@kernel
def handle_begin_quorum(s, lay, out, acts, tally, n, at, j, leader):
    """`handleBeginQuorumEpochRequest` by voter j of `leader`'s request (indices): an older
    epoch is answered FENCED_LEADER_EPOCH; otherwise the voter follows the leader
    (`maybeTransition`), and under KIP-853 answers INVALID_VOTER_KEY if the request was for a
    directory id it no longer has."""
    epoch, live, addressed = int(s[at + EPOCH_SENT]), s[at + LIVE], int(s[at + A])
    t = emit(s, out, acts, n, action_code(HANDLE_BEGIN_QUORUM, j + 1, leader + 1, epoch))
    clear(t, lay, at)
    if epoch < get(t, lay, j, EPOCH):
        error = FENCED_LEADER_EPOCH
    else:
        maybe_transition(t, lay, j, leader + 1, epoch)
        error = INVALID_VOTER_KEY if lay.directory_ids and addressed != get(t, lay, j, DIRECTORY) else 0
    if live:
        answer(t, lay, at, BEGIN_QUORUM_RESPONSE, get(t, lay, j, EPOCH), error, get(t, lay, j, LEADER_AT), 0, 0, 0, 0)
    return n + 1


@kernel
def handle_begin_quorum_response(s, lay, out, acts, tally, n, at, i, j):
    """`handleBeginQuorumEpochResponse` by leader i of voter j's answer: after the common
    handling of responses, the leader counts the voter as having acknowledged its epoch."""
    epoch, error, leader = int(s[at + EPOCH_SENT]), int(s[at + A]), int(s[at + B])
    t = emit(s, out, acts, n, action_code(HANDLE_BEGIN_QUORUM_RESPONSE, i + 1, j + 1, epoch))
    clear(t, lay, at)
    if common_response(t, lay, i, leader, epoch, error) or get(t, lay, i, ROLE) != LEADER or \
            epoch != get(t, lay, i, EPOCH):
        return n + 1
    put(t, lay, i, HEARD, get(t, lay, i, HEARD) | 1 << j)
    return n + 1
