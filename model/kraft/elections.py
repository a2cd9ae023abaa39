"""Elections in the faithful variants, as Kafka's `KafkaRaftClient` holds them: a voter times
out and stands in the next epoch, asks each voter for its vote, and leads as soon as a majority
granted it; the new leader tells the voters with BeginQuorumEpoch.

Each function is one step; None where the step is not enabled. `i` is the acting voter's index,
`m` the message handled (voters 1..n inside it)."""

from __future__ import annotations

from . import channels, messages as msg
from .bounds import KRaftBounds
from .leader_state import counted
from .quorum_state import (can_grant_vote, common_response, is_voter, majority, maybe_transition, to_candidate,
                           to_leader, to_unattached, to_voted)
from .rules import Rules
from .state import CANDIDATE, CONTROL, FOLLOWER, LEADER, RESIGNED, UNATTACHED, VOTED, KRaftState, last_epoch, with_voter

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def timeout(s: KRaftState, i: int, b: KRaftBounds, r: Rules) -> KRaftState | None:
    """A voter's election timer runs out (an unattached, voted or resigned voter's election
    timeout, a follower's fetch timeout, a candidate's election timeout and backoff): it
    becomes a candidate in the next epoch, voting for itself (`transitionToCandidate`). An
    observer never stands; the bound `max-elections` counts these steps."""
    if s.elections >= b.max_elections or s.role[i] not in (UNATTACHED, VOTED, FOLLOWER, CANDIDATE, RESIGNED) \
            or not is_voter(s, i, r.directory_ids):
        return None
    s = to_candidate(s, i)._replace(elections=s.elections + 1)
    return to_leader(s, i) if majority(s, s.votes[i]) else s


def send_vote_requests(s: KRaftState, i: int) -> KRaftState | None:
    """A candidate's poll sends a Vote request, with where its log ends (its last epoch and
    LEO), to every voter it has no answer from and a free connection to
    (`maybeSendVoteRequests`)."""
    if s.role[i] != CANDIDATE:
        return None
    log = s.log[i]
    to = [j for j in range(len(s.role)) if j != i and not s.heard[i] >> j & 1 and channels.free(s, i, j)]
    return channels.send_all(s, [msg.vote_request(i + 1, j + 1, s.epoch[i], last_epoch(log), len(log)) for j in to])


def handle_vote_request(s: KRaftState, m: tuple, r: Rules) -> KRaftState:
    """`handleVoteRequest`: a request of an older epoch is answered FENCED_LEADER_EPOCH; a newer
    epoch first makes the voter unattached in it, whatever it answers; under KIP-853 a request
    for a directory id the voter no longer has is refused INVALID_VOTER_KEY; otherwise the voter
    grants its vote as `canGrantVote` says (the candidate's log compared by last epoch, then
    LEO) and, unattached, writes the vote to its quorum-state file before it answers."""
    j, candidate, epoch = msg.dest(m) - 1, msg.source(m), msg.epoch(m)
    if epoch < s.epoch[j]:
        answer = msg.vote_response(j + 1, candidate, s.epoch[j], s.leader[j], False, msg.FENCED_LEADER_EPOCH)
        return channels.received(s, m, answer)
    if epoch > s.epoch[j]:
        s = to_unattached(s, j, epoch)
    if not is_voter(s, j, r.directory_ids):
        answer = msg.vote_response(j + 1, candidate, s.epoch[j], s.leader[j], False, msg.INVALID_VOTER_KEY)
        return channels.received(s, m, answer)
    log = s.log[j]
    grant = can_grant_vote(s, j, candidate, msg.last_log(m) >= (last_epoch(log), len(log)))
    if grant and s.role[j] == UNATTACHED:
        s = to_voted(s, j, candidate)
    return channels.received(s, m, msg.vote_response(j + 1, candidate, s.epoch[j], s.leader[j], grant, 0))


def handle_vote_response(s: KRaftState, m: tuple) -> KRaftState:
    """`handleVoteResponse`: after the common handling of responses, a candidate records the
    answer and, granted a majority, leads at once (`maybeTransitionToLeader`)."""
    i, j, answer = msg.dest(m) - 1, msg.source(m) - 1, msg.fields(m)
    s, handled = common_response(channels.received(s, m), i, answer.leader, msg.epoch(m), answer.error)
    if handled or s.role[i] != CANDIDATE:
        return s
    votes = s.votes[i] | (1 << j if answer.granted else 0)
    s = with_voter(s, i, votes=votes, heard=s.heard[i] | 1 << j)
    return to_leader(s, i) if majority(s, votes) else s


def append_leader_change(s: KRaftState, i: int) -> KRaftState | None:
    """A new leader appends its epoch's LeaderChange control record at the epoch's start offset
    (`appendLeaderChangeMessage`, drained on its next poll) and counts its own LEO
    (`flushLeaderLog` updates the leader's end offset before it flushes)."""
    if s.role[i] != LEADER or len(s.log[i]) != s.start_offset[i]:
        return None
    s = with_voter(s, i, log=s.log[i] + ((s.epoch[i], CONTROL),))
    return counted(s, i, i, len(s.log[i]))


def send_begin_quorum(s: KRaftState, i: int, r: Rules) -> KRaftState | None:
    """A leader's poll sends BeginQuorumEpoch to every voter it has a free connection to that
    has not acknowledged its epoch (by a BeginQuorumEpoch answer or a FETCH; 3.8
    `maybeSendRequests` to `nonAcknowledgingVoters`), or acknowledged or not (3.9
    `maybeSendBeginQuorumEpochRequests`, on a timer)."""
    if s.role[i] != LEADER:
        return None
    to = [j for j in range(len(s.role)) if j != i and (r.periodic_begin_quorum or not s.heard[i] >> j & 1)
          and channels.free(s, i, j)]
    return channels.send_all(s, [msg.begin_quorum_request(i + 1, j + 1, s.epoch[i]) for j in to])


def handle_begin_quorum(s: KRaftState, m: tuple, r: Rules) -> KRaftState:
    """`handleBeginQuorumEpochRequest`: an older epoch is answered FENCED_LEADER_EPOCH;
    otherwise the voter follows the leader (`maybeTransition`), and under KIP-853 answers
    INVALID_VOTER_KEY if the request was for a directory id it no longer has."""
    j, leader, epoch = msg.dest(m) - 1, msg.source(m), msg.epoch(m)
    if epoch < s.epoch[j]:
        error = msg.FENCED_LEADER_EPOCH
    else:
        s = maybe_transition(s, j, leader, epoch)
        error = 0 if is_voter(s, j, r.directory_ids) else msg.INVALID_VOTER_KEY
    return channels.received(s, m, msg.begin_quorum_response(j + 1, leader, s.epoch[j], error, s.leader[j]))


def handle_begin_quorum_response(s: KRaftState, m: tuple) -> KRaftState:
    """`handleBeginQuorumEpochResponse`: after the common handling of responses, the leader
    counts the voter as having acknowledged its epoch."""
    i, j = msg.dest(m) - 1, msg.source(m) - 1
    epoch, error, leader = m[3], m[4], m[5]
    s, handled = common_response(channels.received(s, m), i, leader, epoch, error)
    if handled or s.role[i] != LEADER or epoch != s.epoch[i]:
        return s
    return with_voter(s, i, heard=s.heard[i] | 1 << j)
