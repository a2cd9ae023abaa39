"""A voter's role in the faithful variants, as Kafka's `QuorumState` changes it, with what
`KafkaRaftClient` does around each change, over packed rows (each function changes row `t` in
place).

Each transition writes the quorum-state file (`durableTransitionTo`: epoch, leader, vote),
except Resigned, which lives in memory only; so the file always holds the election of the
voter's last role but Resigned and Prospective, which share theirs with the role they came
from (a Resigned voter's is its own leadership). The row keeps no copy of the file: `restore`
reads the election off the voter's fields. Every transition but a granted vote resets the
voter's connections (`resetConnections`), drops what its last role kept in memory (a
candidate's votes, a leader's view of the voters), and keeps its HW
(`state.highWatermark()` passed on), except that a new leader starts without one. A transition
`QuorumState` refuses becomes the illegal role, as the IllegalStateException it throws."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..messages import FENCED_LEADER_EPOCH, NOT_LEADER, UNKNOWN_LEADER
from ..state import CANDIDATE, FOLLOWER, ILLEGAL, LEADER, NIL, PROSPECTIVE, RESIGNED, UNATTACHED, VOTED
from ..tla.layout import EPOCH, HW, LEADER as LEADER_AT, ROLE, VOTED_FOR, VOTES, get, last_epoch, put, truncate
from . import channels
from .layout import BOOT_SET, DIRECTORY, FLUSHED, HEARD, START_OFFSET, clear_leader_state, log_end
from .voter_set import has_id, voter_set


@kernel
def become(t, lay, i, role, epoch, leader, voted):
    """Voter i (index) in its new role, with its connections reset and its old role's memory
    gone."""
    put(t, lay, i, ROLE, role)
    put(t, lay, i, EPOCH, epoch)
    put(t, lay, i, LEADER_AT, leader)
    put(t, lay, i, VOTED_FOR, voted)
    put(t, lay, i, VOTES, 0)
    put(t, lay, i, HEARD, 0)
    put(t, lay, i, START_OFFSET, 0)
    clear_leader_state(t, lay, i)
    channels.reset(t, lay, i)


@kernel
def illegal(t, lay, i):
    """Voter i took a step Kafka refuses with an exception."""
    put(t, lay, i, ROLE, ILLEGAL)


@kernel
def to_unattached(t, lay, i, epoch):
    """`transitionToUnattached`: a higher epoch, no leader and no vote known."""
    if epoch > get(t, lay, i, EPOCH):
        become(t, lay, i, UNATTACHED, epoch, NIL, NIL)
    else:
        illegal(t, lay, i)


@kernel
def to_voted(t, lay, i, candidate):
    """Voter i grants its vote in its epoch, written to the quorum-state file before it answers,
    and stays in its role with its connections as they were: an unattached voter becomes voted
    (`unattachedAddVotedState`; 3.9 `transitionToUnattachedVotedState`), a prospective that has
    not voted starts counting its pre-votes afresh (`prospectiveAddVotedState`, 4.0)."""
    role = get(t, lay, i, ROLE)
    if role == UNATTACHED:
        put(t, lay, i, ROLE, VOTED)
        put(t, lay, i, VOTED_FOR, candidate)
    elif role == PROSPECTIVE and get(t, lay, i, VOTED_FOR) == NIL:
        put(t, lay, i, VOTED_FOR, candidate)
        put(t, lay, i, VOTES, 1 << i)
        put(t, lay, i, HEARD, 1 << i)
    else:
        illegal(t, lay, i)


@kernel
def to_follower(t, lay, i, epoch, leader):
    """`transitionToFollower`: follow `leader` (1..n) in `epoch`; refused for itself as leader,
    an older epoch, or an epoch it already follows or leads in. Within its epoch a voter keeps
    its vote (4.0: "State transitions within the same epoch should preserve voted key"); 3.9
    dropped it."""
    mine, role = get(t, lay, i, EPOCH), get(t, lay, i, ROLE)
    if leader == i + 1 or epoch < mine or (epoch == mine and (role == FOLLOWER or role == LEADER)):
        illegal(t, lay, i)
    else:
        kept = get(t, lay, i, VOTED_FOR) if lay.keeps_vote and epoch == mine else NIL
        become(t, lay, i, FOLLOWER, epoch, leader, kept)


@kernel
def _counts_itself(t, lay, i):
    """Voter i, a nominee (candidate or prospective), has its own vote and no other answer."""
    put(t, lay, i, VOTES, 1 << i)
    put(t, lay, i, HEARD, 1 << i)


@kernel
def to_candidate(t, lay, i):
    """`transitionToCandidate`: stand in the next epoch, voting for itself. Under pre-vote (4.0)
    only a prospective may (`checkValidTransitionToCandidate`)."""
    if lay.pre_vote and get(t, lay, i, ROLE) != PROSPECTIVE:
        illegal(t, lay, i)
        return
    become(t, lay, i, CANDIDATE, get(t, lay, i, EPOCH) + 1, NIL, i + 1)
    _counts_itself(t, lay, i)


@kernel
def to_prospective(t, lay, i):
    """`transitionToProspective` (4.0, KIP-996): voter i asks, in its own epoch, whether it could
    win, counting its own pre-vote. It keeps the epoch's leader and (rule `election` pre-vote) its
    vote; nothing is written to the quorum-state file, which keeps the election of the role it
    came from."""
    voted = get(t, lay, i, VOTED_FOR) if lay.keeps_vote else NIL
    become(t, lay, i, PROSPECTIVE, get(t, lay, i, EPOCH), get(t, lay, i, LEADER_AT), voted)
    _counts_itself(t, lay, i)


@kernel
def _follow_or_wait(t, lay, i, epoch, leader, voted):
    """Voter i in `epoch` knowing `leader` (1..n, or NIL) with vote `voted`: a follower of the
    leader if its voter set names it (Kafka knows its endpoints), else unattached, voted if it
    voted."""
    if leader != NIL and has_id(lay, voter_set(t, lay, i), leader - 1):
        become(t, lay, i, FOLLOWER, epoch, leader, voted)
    else:
        become(t, lay, i, VOTED if voted != NIL else UNATTACHED, epoch, leader, voted)


@kernel
def prospective_loses(t, lay, i):
    """`prospectiveTransitionAfterElectionLoss` (4.0): a prospective refused by a majority, or
    whose election timer ran out, stays in its epoch: a follower of the leader it knows, else
    unattached, keeping (rule `election` pre-vote) its vote."""
    voted = get(t, lay, i, VOTED_FOR) if lay.keeps_vote else NIL
    _follow_or_wait(t, lay, i, get(t, lay, i, EPOCH), get(t, lay, i, LEADER_AT), voted)


@kernel
def to_leader(t, lay, i):
    """`transitionToLeader`: a candidate granted a majority leads its epoch, which starts at
    its log end offset (`epochStartOffset`); its `LeaderState` has no HW yet and has heard from
    no voter but itself."""
    become(t, lay, i, LEADER, get(t, lay, i, EPOCH), i + 1, NIL)
    put(t, lay, i, START_OFFSET, log_end(t, lay, i))
    put(t, lay, i, HEARD, 1 << i)
    put(t, lay, i, HW, 0)


@kernel
def consistent_leader(t, lay, i, leader, epoch):
    """`hasConsistentLeader`: a message that names voter i leader finds it leading, and no two
    leaders of one epoch are named."""
    if leader == i + 1:
        return get(t, lay, i, ROLE) == LEADER and epoch == get(t, lay, i, EPOCH)
    known = get(t, lay, i, LEADER_AT)
    return epoch != get(t, lay, i, EPOCH) or leader == NIL or known == NIL or known == leader


@kernel
def maybe_transition(t, lay, i, leader, epoch):
    """`maybeTransition`: what voter i becomes on hearing of `leader` (0: none) in `epoch`."""
    if not consistent_leader(t, lay, i, leader, epoch):
        illegal(t, lay, i)
    elif epoch > get(t, lay, i, EPOCH):
        if leader == NIL:
            to_unattached(t, lay, i, epoch)
        else:
            to_follower(t, lay, i, epoch, leader)
    elif leader != NIL and get(t, lay, i, LEADER_AT) == NIL:
        to_follower(t, lay, i, epoch, leader)


@kernel
def common_response(t, lay, i, leader, epoch, error):
    """`maybeHandleCommonResponse`: voter i after a response naming `leader` in `epoch` with
    `error`; whether that handled it. Older epochs and UNKNOWN_LEADER_EPOCH are ignored; a
    newer epoch, FENCED_LEADER_EPOCH or NOT_LEADER_OR_FOLLOWER move it as `maybe_transition`
    does; news of its own epoch's leader makes it a follower, the response then handled on only
    if it carries no error; INVALID_VOTER_KEY is ignored."""
    mine = get(t, lay, i, EPOCH)
    if epoch < mine or error == UNKNOWN_LEADER:
        return True
    if epoch > mine or error == FENCED_LEADER_EPOCH or error == NOT_LEADER:
        maybe_transition(t, lay, i, leader, epoch)
        return True
    if leader != NIL and get(t, lay, i, LEADER_AT) == NIL:
        to_follower(t, lay, i, epoch, leader)
    return error != 0


@kernel
def can_grant_vote(t, lay, i, candidate, log_up_to_date, pre_vote):
    """`canGrantVote` of voter i's role. A real vote: unattached, voted or prospective
    (`unattachedOrProspectiveCanGrantVote`), only to the candidate it voted for if it voted (its
    log not looked at again), else never while it knows a leader, else if the candidate's log is
    at least as up to date as its own; any other role, never. A pre-vote (4.0): if the log is up
    to date, by any role but a leader, and a follower only until its leader first answered its
    FETCH (`FollowerState.hasFetchedFromLeader`); the vote and leader it knows do not matter."""
    role = get(t, lay, i, ROLE)
    if pre_vote:
        if role == FOLLOWER:
            return log_up_to_date and get(t, lay, i, HEARD) == 0
        return log_up_to_date and role != LEADER
    if role != UNATTACHED and role != VOTED and role != PROSPECTIVE:
        return False
    if get(t, lay, i, VOTED_FOR) != NIL:
        return get(t, lay, i, VOTED_FOR) == candidate
    return log_up_to_date and get(t, lay, i, LEADER_AT) == NIL


@kernel
def restore(t, lay, i):
    """`QuorumState.initialize`: voter i's role after a restart, read from its quorum-state file
    (the election, epoch, leader and vote, of its last role but Resigned and Prospective, which
    keep the election of the role they came from, so the row's own fields are the file's) and its
    log: unattached in the log's last epoch if the file's is older; a leader resigned in its
    epoch; a voter that voted for itself a candidate again, with only its own vote; knowing a
    leader, its follower (unattached knowing it if its voter set does not name it), keeping its
    vote (4.0); else unattached, voted if it voted. Its HW is not restored."""
    epoch, voted, leader = get(t, lay, i, EPOCH), get(t, lay, i, VOTED_FOR), get(t, lay, i, LEADER_AT)
    put(t, lay, i, HW, 0)
    if epoch < last_epoch(t, lay, i):
        become(t, lay, i, UNATTACHED, last_epoch(t, lay, i), NIL, NIL)
    elif leader == i + 1:
        become(t, lay, i, RESIGNED, epoch, leader, NIL)
    elif voted == i + 1:
        become(t, lay, i, CANDIDATE, epoch, NIL, voted)
        _counts_itself(t, lay, i)
    elif leader != NIL:
        _follow_or_wait(t, lay, i, epoch, leader, voted if lay.keeps_vote else NIL)
    else:
        become(t, lay, i, VOTED if voted != NIL else UNATTACHED, epoch, NIL, voted)


@kernel
def format_disk(t, lay, i):
    """Voter i restarted on a new, empty disk: no log, and no quorum-state file, so unattached
    in epoch 0 with no vote (`QuorumState.initialize` on a missing file). `kafka-storage format`
    gives the disk its directory id (`Formatter.doFormat`): with `--no-initial-controllers` a new
    one and no bootstrap checkpoint; with `--initial-controllers` (`lay.reformat_listed`), for a
    controller that list names (the bootstrap voters), the id listed for it, its first, and the
    bootstrap checkpoint again (`writeDynamicQuorumSnapshot`), so it is the voter it was; a spare's
    first format command had `--no-initial-controllers`, and it gets a new id either way."""
    truncate(t, lay, i, 0)
    put(t, lay, i, FLUSHED, 0)
    if lay.reformat_listed and has_id(lay, t[lay.extra_at + BOOT_SET], i):
        put(t, lay, i, DIRECTORY, 0)
    else:
        put(t, lay, i, DIRECTORY, get(t, lay, i, DIRECTORY) + 1)
    become(t, lay, i, UNATTACHED, 0, NIL, NIL)
    put(t, lay, i, HW, 0)
