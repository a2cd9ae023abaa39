"""Elections in the faithful variants, as Kafka's `KafkaRaftClient` holds them: a voter times
out and stands in the next epoch, asks each voter for its vote, and leads as soon as a majority
granted it; the new leader tells the voters with BeginQuorumEpoch. Under pre-vote (4.0, KIP-996)
a voter that times out first asks, in its own epoch and as a prospective, for votes that bind no
one, and stands only once a majority granted them.

Each function is one step of voter i (index), or of the receiver of the message on the
connection whose record starts at `at`, and appends its successor to `out`
(`checker.kernel.steps`)."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..messages import (BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FENCED_LEADER_EPOCH, INVALID_VOTER_KEY,
                        PRE_VOTE_REQUEST, VOTE_REQUEST, VOTE_RESPONSE)
from ..state import CANDIDATE, CONTROL, FOLLOWER, LEADER, NIL, PROSPECTIVE, RESIGNED, UNATTACHED, VOTED
from ..tla.layout import ELECTIONS, EPOCH, LEADER as LEADER_AT, ROLE, VOTED_FOR, VOTES, append, get, last_epoch, put
from .channels import answer, clear, free, send
from .fetching import begin_flush
from .guards import CANDIDATE_ASKS, ELECTIONS_LEFT, IS_VOTER, LEADER_TELLS, MAY_STAND, NEW_LEADER, PROSPECTIVE_WAITS
from .kinds import (APPEND_LEADER_CHANGE, HANDLE_BEGIN_QUORUM, HANDLE_BEGIN_QUORUM_RESPONSE, HANDLE_VOTE_REQUEST,
                    HANDLE_VOTE_RESPONSE, PROSPECTIVE_TIMEOUT, SEND_BEGIN_QUORUM, SEND_VOTE_REQUESTS, TIMEOUT)
from .layout import DIRECTORY, EPOCH_SENT, HEARD, START_OFFSET, LIVE, A, B, C, log_end
from .quorum_state import (can_grant_vote, common_response, maybe_transition, prospective_loses, to_candidate, to_leader,
                           to_prospective, to_unattached, to_voted)
from .voter_set import has_id, is_voter, majority, named_directory, refused, voter_set, voters_record_at


@kernel
def timeout(s, lay, out, acts, tally, n, i):
    """A voter's election timer runs out (an unattached, voted or resigned voter's election
    timeout, a follower's fetch timeout, a candidate's election timeout and backoff). Without
    pre-vote it becomes a candidate in the next epoch, voting for itself
    (`transitionToCandidate`); under pre-vote (4.0; a resigned voter takes `ResignedTimeout`
    instead) a prospective in its own epoch (`transitionToProspective`), which stands once a
    majority grants its pre-vote. Either leads at once if it is the only voter. An observer
    never stands; the bound `max-elections` counts these steps."""
    if not holds(tally, ELECTIONS_LEFT, s[ELECTIONS] < lay.max_elections):
        return n
    role = get(s, lay, i, ROLE)
    if not holds(tally, MAY_STAND, role == UNATTACHED or role == VOTED or role == FOLLOWER or role == CANDIDATE
                 or (role == RESIGNED and not lay.pre_vote)):
        return n
    if not holds(tally, IS_VOTER, is_voter(s, lay, i)):
        return n
    t = emit(s, out, acts, n, action_code(TIMEOUT, i + 1, 0, 0))
    t[ELECTIONS] += 1
    if lay.pre_vote:
        to_prospective(t, lay, i)
    else:
        to_candidate(t, lay, i)
    _count(t, lay, i)
    return n + 1


@kernel
def prospective_timeout(s, lay, out, acts, tally, n, i):
    """A prospective's election timer runs out before it won its pre-vote (`pollProspective`, 4.0):
    it goes back to following the leader it knows, else to unattached, in its epoch and keeping
    its vote (`prospectiveTransitionAfterElectionLoss`). Not an election: --max-elections does
    not count it."""
    if not holds(tally, PROSPECTIVE_WAITS, get(s, lay, i, ROLE) == PROSPECTIVE):
        return n
    t = emit(s, out, acts, n, action_code(PROSPECTIVE_TIMEOUT, i + 1, 0, 0))
    prospective_loses(t, lay, i)
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
    """A candidate's poll sends a Vote request, a prospective's a pre-vote request (4.0, in its
    own epoch), with where its log ends (its last epoch and LEO) and the voter's key as its set
    names it, to every voter it has no answer from and a free connection to, as long as a
    majority has not refused it (`maybeSendVoteRequests`)."""
    role, voters = get(s, lay, i, ROLE), _unasked(s, lay, i)
    if not holds(tally, CANDIDATE_ASKS, (role == CANDIDATE or role == PROSPECTIVE) and voters != 0 and
                 not refused(lay, voter_set(s, lay, i), get(s, lay, i, VOTES), get(s, lay, i, HEARD))):
        return n
    t = emit(s, out, acts, n, action_code(SEND_VOTE_REQUESTS, i + 1, 0, 0))
    code, kind = voter_set(s, lay, i), PRE_VOTE_REQUEST if role == PROSPECTIVE else VOTE_REQUEST
    for j in range(lay.replicas):
        if (voters >> j) & 1:
            send(t, lay, i, j, kind, get(s, lay, i, EPOCH), last_epoch(s, lay, i), log_end(s, lay, i),
                 named_directory(lay, code, j))
    return n + 1


@kernel
def handle_vote_request(s, lay, out, acts, tally, n, at, j, candidate, pre_vote):
    """`handleVoteRequest` by voter j of `candidate`'s request (indices), a Vote or (4.0) a
    pre-vote: a request of an older epoch is answered FENCED_LEADER_EPOCH; a newer epoch first
    makes the voter unattached in it, whatever it answers, pre-votes too; under KIP-853 a request
    for a directory id the voter no longer has is refused INVALID_VOTER_KEY; otherwise the voter
    answers as `canGrantVote` says (the candidate's log compared by last epoch, then LEO) and, if
    it granted a real vote and has not voted, writes the vote to its quorum-state file before it
    answers. A pre-vote writes nothing."""
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
            granted = 1 if can_grant_vote(t, lay, j, candidate + 1, up_to_date, pre_vote) else 0
            role = get(t, lay, j, ROLE)
            if granted and not pre_vote and (role == UNATTACHED or (role == PROSPECTIVE and
                                                                    get(t, lay, j, VOTED_FOR) == NIL)):
                to_voted(t, lay, j, candidate + 1)
    if live:
        answer(t, lay, at, VOTE_RESPONSE, get(t, lay, j, EPOCH), get(t, lay, j, LEADER_AT), granted, error, 0, 0, 0)
    return n + 1


@kernel
def _count(t, lay, i):
    """Nominee i counts its answers (`maybeTransitionForward`, `maybeHandleElectionLoss`): a
    candidate granted a majority leads; a prospective granted a majority stands as a candidate in
    the next epoch (leading at once if it is the only voter), and one a majority refused goes back
    (`prospective_loses`). A refused candidate waits for its backoff, a Timeout."""
    code = voter_set(t, lay, i)
    votes = get(t, lay, i, VOTES)
    if get(t, lay, i, ROLE) == PROSPECTIVE:
        if majority(lay, code, votes):
            to_candidate(t, lay, i)
            votes = get(t, lay, i, VOTES)
        elif refused(lay, code, votes, get(t, lay, i, HEARD)):
            prospective_loses(t, lay, i)
    if get(t, lay, i, ROLE) == CANDIDATE and majority(lay, code, votes):
        to_leader(t, lay, i)


@kernel
def handle_vote_response(s, lay, out, acts, tally, n, at, i, j):
    """`handleVoteResponse` by nominee i (a candidate, or under pre-vote a prospective) of voter
    j's answer: after the common handling of responses, a nominee records the answer and counts
    (`_count`). An answer to a pre-vote never reaches a candidate: becoming one reset the
    prospective's connections."""
    epoch, leader, granted, error = int(s[at + EPOCH_SENT]), int(s[at + A]), int(s[at + B]), int(s[at + C])
    t = emit(s, out, acts, n, action_code(HANDLE_VOTE_RESPONSE, i + 1, j + 1, epoch))
    clear(t, lay, at)
    role = get(t, lay, i, ROLE)
    if common_response(t, lay, i, leader, epoch, error) or (role != CANDIDATE and role != PROSPECTIVE):
        return n + 1
    put(t, lay, i, VOTES, get(t, lay, i, VOTES) | (granted << j))
    put(t, lay, i, HEARD, get(t, lay, i, HEARD) | 1 << j)
    _count(t, lay, i)
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
    begin_flush(s, t, lay, i)
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
