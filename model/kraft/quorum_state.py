"""A voter's role in the faithful variants, as Kafka's `QuorumState` changes it, with what
`KafkaRaftClient` does around each change.

Each transition writes the quorum-state file (`durableTransitionTo`: epoch, leader, vote),
except Resigned, which lives in memory only; so the file always holds the election of the
voter's last role but Resigned, whose election (its own leadership) it shares with the Leader
role it came from. The state keeps no copy of the file: `restored` reads the election off the
role. Every transition resets the voter's connections (`resetConnections`), drops what its
last role kept in memory (a candidate's votes, a leader's view of the voters), and keeps its HW
(`state.highWatermark()` passed on), except that a new leader starts without one. A transition
`QuorumState` refuses becomes the illegal role, as the IllegalStateException it throws.
"""

from __future__ import annotations

from . import channels, messages as msg
from .state import (CANDIDATE, FOLLOWER, ILLEGAL, LEADER, NIL, RESIGNED, UNATTACHED, VOTED, KRaftState, last_epoch,
                    with_voter)

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _become(s: KRaftState, i: int, role: int, epoch: int, leader: int = NIL, voted: int = NIL) -> KRaftState:
    """Voter i (index) in its new role, with its connections reset and its old role's memory
    gone."""
    n = len(s.role)
    s = with_voter(s, i, role=role, epoch=epoch, leader=leader, voted_for=voted, votes=0, heard=0,
                   end_offset=(0,) * n, start_offset=0)
    return channels.reset(s, i)


def illegal(s: KRaftState, i: int) -> KRaftState:
    """Voter i took a step Kafka refuses with an exception."""
    return with_voter(s, i, role=ILLEGAL)


def to_unattached(s: KRaftState, i: int, epoch: int) -> KRaftState:
    """`transitionToUnattached`: a higher epoch, no leader and no vote known."""
    return _become(s, i, UNATTACHED, epoch) if epoch > s.epoch[i] else illegal(s, i)


def to_voted(s: KRaftState, i: int, candidate: int) -> KRaftState:
    """`transitionToVoted`: an unattached voter grants its vote in its epoch, written to the
    quorum-state file before it answers."""
    return _become(s, i, VOTED, s.epoch[i], voted=candidate) if s.role[i] == UNATTACHED else illegal(s, i)


def to_follower(s: KRaftState, i: int, epoch: int, leader: int) -> KRaftState:
    """`transitionToFollower`: follow `leader` in `epoch`; refused for itself as leader, an
    older epoch, or an epoch it already follows or leads in."""
    if leader == i + 1 or epoch < s.epoch[i] or (epoch == s.epoch[i] and s.role[i] in (FOLLOWER, LEADER)):
        return illegal(s, i)
    return _become(s, i, FOLLOWER, epoch, leader=leader)


def to_candidate(s: KRaftState, i: int) -> KRaftState:
    """`transitionToCandidate`: stand in the next epoch, voting for itself."""
    s = _become(s, i, CANDIDATE, s.epoch[i] + 1, voted=i + 1)
    return with_voter(s, i, votes=1 << i, heard=1 << i)


def to_leader(s: KRaftState, i: int) -> KRaftState:
    """`transitionToLeader`: a candidate granted a majority leads its epoch, which starts at
    its log end offset (`epochStartOffset`); its `LeaderState` has no HW yet and has heard from
    no voter but itself."""
    s = _become(s, i, LEADER, s.epoch[i], leader=i + 1)
    return with_voter(s, i, start_offset=len(s.log[i]), heard=1 << i, hw=0)


def to_resigned(s: KRaftState, i: int) -> KRaftState:
    """`ResignedState`: a leader that gave up its epoch and will lead it no more (memory only:
    the file still names it leader)."""
    return _become(s, i, RESIGNED, s.epoch[i], leader=i + 1)


def majority(s: KRaftState, votes: int) -> bool:
    """A majority of the voters (`CandidateState.isVoteGranted`: more than half)."""
    return 2 * bin(votes).count("1") > len(s.role)


def consistent_leader(s: KRaftState, i: int, leader: int, epoch: int) -> bool:
    """`hasConsistentLeader`: a message that names voter i leader finds it leading, and no two
    leaders of one epoch are named."""
    if leader == i + 1:
        return s.role[i] == LEADER and epoch == s.epoch[i]
    return epoch != s.epoch[i] or leader == NIL or s.leader[i] == NIL or s.leader[i] == leader


def maybe_transition(s: KRaftState, i: int, leader: int, epoch: int) -> KRaftState:
    """`maybeTransition`: what voter i becomes on hearing of `leader` (0: none) in `epoch`."""
    if not consistent_leader(s, i, leader, epoch):
        return illegal(s, i)
    if epoch > s.epoch[i]:
        return to_unattached(s, i, epoch) if leader == NIL else to_follower(s, i, epoch, leader)
    if leader != NIL and s.leader[i] == NIL:
        return to_follower(s, i, epoch, leader)
    return s


def common_response(s: KRaftState, i: int, leader: int, epoch: int, error: int) -> tuple[KRaftState, bool]:
    """`maybeHandleCommonResponse`: voter i after a response naming `leader` in `epoch` with
    `error`, and whether that handled it. Older epochs and UNKNOWN_LEADER_EPOCH are ignored; a
    newer epoch, FENCED_LEADER_EPOCH or NOT_LEADER_OR_FOLLOWER move it as `maybe_transition`
    does; news of its own epoch's leader makes it a follower, the response then handled on only
    if it carries no error; INVALID_VOTER_KEY is ignored."""
    if epoch < s.epoch[i] or error == msg.UNKNOWN_LEADER:
        return s, True
    if epoch > s.epoch[i] or error in (msg.FENCED_LEADER_EPOCH, msg.NOT_LEADER):
        return maybe_transition(s, i, leader, epoch), True
    if leader != NIL and s.leader[i] == NIL:
        return to_follower(s, i, epoch, leader), bool(error)
    return s, bool(error)


def can_grant_vote(s: KRaftState, i: int, candidate: int, log_up_to_date: bool) -> bool:
    """`canGrantVote` of voter i's role: unattached, if the candidate's log is at least as up to
    date as its own; voted, only for the candidate it voted for (its log not looked at again);
    any other role, never."""
    if s.role[i] == UNATTACHED:
        return log_up_to_date
    return s.role[i] == VOTED and s.voted_for[i] == candidate


def restored(s: KRaftState, i: int) -> KRaftState:
    """`QuorumState.initialize`: voter i's role after a restart, read from its quorum-state
    file (the election of its last role but Resigned) and its log: unattached in the log's last
    epoch if the file's is older; a leader resigned in its epoch; a candidate a candidate again
    in its epoch, with only its own vote; a voter voted; a follower following; else
    unattached. Its HW is not restored."""
    role, epoch, voted, leader = s.role[i], s.epoch[i], s.voted_for[i], s.leader[i]
    s = _become(s, i, UNATTACHED, epoch)
    s = with_voter(s, i, hw=0)
    if epoch < last_epoch(s.log[i]):
        return with_voter(s, i, epoch=last_epoch(s.log[i]))
    if role in (LEADER, RESIGNED):
        return with_voter(s, i, role=RESIGNED, leader=i + 1)
    if role == CANDIDATE:
        return with_voter(s, i, role=CANDIDATE, voted_for=i + 1, votes=1 << i, heard=1 << i)
    if role == VOTED:
        return with_voter(s, i, role=VOTED, voted_for=voted)
    if role == FOLLOWER:
        return with_voter(s, i, role=FOLLOWER, leader=leader)
    return s


def is_voter(s: KRaftState, i: int, directory_ids: bool) -> bool:
    """Voter i counts as the voter of its id: always when voters are known by node id
    (KIP-595); under KIP-853 only with the directory id the voter set names, its first
    (`VoterSet.isVoter` on the ReplicaKey), not the new one a lost disk gave it."""
    return not directory_ids or s.directory[i] == 0


def formatted(s: KRaftState, i: int) -> KRaftState:
    """Voter i restarted on a new, empty disk: no log, and no quorum-state file, so unattached
    in epoch 0 with no vote (`QuorumState.initialize` on a missing file), under a new directory
    id."""
    s = with_voter(s, i, log=(), flushed=0, directory=s.directory[i] + 1)
    return with_voter(_become(s, i, UNATTACHED, 0), i, hw=0)
