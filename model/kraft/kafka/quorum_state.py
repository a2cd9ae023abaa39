"""A voter's role in the faithful variants, as Kafka's `QuorumState` changes it, with what
`KafkaRaftClient` does around each change, over packed rows (each function changes row `t` in
place).

Each transition writes the quorum-state file (`durableTransitionTo`: epoch, leader, vote),
except Resigned, which lives in memory only; so the file always holds the election of the
voter's last role but Resigned, whose election (its own leadership) it shares with the Leader
role it came from. The row keeps no copy of the file: `restore` reads the election off the
role. Every transition resets the voter's connections (`resetConnections`), drops what its
last role kept in memory (a candidate's votes, a leader's view of the voters), and keeps its HW
(`state.highWatermark()` passed on), except that a new leader starts without one. A transition
`QuorumState` refuses becomes the illegal role, as the IllegalStateException it throws."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..messages import FENCED_LEADER_EPOCH, NOT_LEADER, UNKNOWN_LEADER
from ..state import CANDIDATE, FOLLOWER, ILLEGAL, LEADER, NIL, RESIGNED, UNATTACHED, VOTED
from ..tla.layout import EPOCH, HW, LEADER as LEADER_AT, ROLE, VOTED_FOR, VOTES, get, last_epoch, put, truncate
from . import channels
from .layout import DIRECTORY, FLUSHED, HEARD, START_OFFSET, clear_leader_state, log_end
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
    """`transitionToVoted`: an unattached voter grants its vote in its epoch, written to the
    quorum-state file before it answers."""
    if get(t, lay, i, ROLE) == UNATTACHED:
        become(t, lay, i, VOTED, get(t, lay, i, EPOCH), NIL, candidate)
    else:
        illegal(t, lay, i)


@kernel
def to_follower(t, lay, i, epoch, leader):
    """`transitionToFollower`: follow `leader` (1..n) in `epoch`; refused for itself as leader,
    an older epoch, or an epoch it already follows or leads in."""
    mine, role = get(t, lay, i, EPOCH), get(t, lay, i, ROLE)
    if leader == i + 1 or epoch < mine or (epoch == mine and (role == FOLLOWER or role == LEADER)):
        illegal(t, lay, i)
    else:
        become(t, lay, i, FOLLOWER, epoch, leader, NIL)


@kernel
def to_candidate(t, lay, i):
    """`transitionToCandidate`: stand in the next epoch, voting for itself."""
    become(t, lay, i, CANDIDATE, get(t, lay, i, EPOCH) + 1, NIL, i + 1)
    put(t, lay, i, VOTES, 1 << i)
    put(t, lay, i, HEARD, 1 << i)


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
def can_grant_vote(t, lay, i, candidate, log_up_to_date):
    """`canGrantVote` of voter i's role: unattached with no leader known, if the candidate's log
    is at least as up to date as its own; voted, only for the candidate it voted for (its log not
    looked at again); any other role, never."""
    role = get(t, lay, i, ROLE)
    if role == UNATTACHED:
        return log_up_to_date and get(t, lay, i, LEADER_AT) == NIL
    return role == VOTED and get(t, lay, i, VOTED_FOR) == candidate


@kernel
def restore(t, lay, i):
    """`QuorumState.initialize`: voter i's role after a restart, read from its quorum-state
    file (the election of its last role but Resigned) and its log: unattached in the log's last
    epoch if the file's is older; a leader resigned in its epoch; a candidate a candidate again
    in its epoch, with only its own vote; a voter voted; a follower following; else
    unattached. Its HW is not restored."""
    role, epoch, voted, leader = get(t, lay, i, ROLE), get(t, lay, i, EPOCH), get(t, lay, i, VOTED_FOR), \
        get(t, lay, i, LEADER_AT)
    become(t, lay, i, UNATTACHED, epoch, NIL, NIL)
    put(t, lay, i, HW, 0)
    if epoch < last_epoch(t, lay, i):
        put(t, lay, i, EPOCH, last_epoch(t, lay, i))
    elif role == LEADER or role == RESIGNED:
        put(t, lay, i, ROLE, RESIGNED)
        put(t, lay, i, LEADER_AT, i + 1)
    elif role == CANDIDATE:
        put(t, lay, i, ROLE, CANDIDATE)
        put(t, lay, i, VOTED_FOR, i + 1)
        put(t, lay, i, VOTES, 1 << i)
        put(t, lay, i, HEARD, 1 << i)
    elif role == VOTED:
        put(t, lay, i, ROLE, VOTED)
        put(t, lay, i, VOTED_FOR, voted)
    elif role == FOLLOWER:
        put(t, lay, i, ROLE, FOLLOWER if has_id(lay, voter_set(t, lay, i), leader - 1) else UNATTACHED)
        put(t, lay, i, LEADER_AT, leader)


@kernel
def format_disk(t, lay, i):
    """Voter i restarted on a new, empty disk: no log, and no quorum-state file, so unattached
    in epoch 0 with no vote (`QuorumState.initialize` on a missing file), under a new directory
    id."""
    truncate(t, lay, i, 0)
    put(t, lay, i, FLUSHED, 0)
    put(t, lay, i, DIRECTORY, get(t, lay, i, DIRECTORY) + 1)
    become(t, lay, i, UNATTACHED, 0, NIL, NIL)
    put(t, lay, i, HW, 0)
