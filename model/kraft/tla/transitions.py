"""How a voter's role, epoch and known leader change on what it hears, as the TLA+
specification writes `QuorumState`'s transitions (MaybeTransition, MaybeHandleCommonResponse),
over packed states. A standing is (role, epoch, leader): a higher epoch makes a voter a follower
of the sender's leader (or unattached when no leader is named), a leader named in its own
epoch makes it that leader's follower, and anything `QuorumState` would refuse puts it in the
illegal state, which the invariant `no-illegal-state` catches."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..state import FOLLOWER, ILLEGAL, LEADER, NIL, UNATTACHED, VOTED
from .layout import EPOCH, LEADER as LEADER_AT, ROLE, get, put

ILLEGAL_STANDING = (ILLEGAL, 0, NIL)


@kernel
def standing(s, lay, i):
    """Voter i's (index) standing now: (role, epoch, leader)."""
    return get(s, lay, i, ROLE), get(s, lay, i, EPOCH), get(s, lay, i, LEADER_AT)


@kernel
def take(t, lay, i, new):
    """Voter i takes standing `new`."""
    put(t, lay, i, ROLE, new[0])
    put(t, lay, i, EPOCH, new[1])
    put(t, lay, i, LEADER_AT, new[2])


@kernel
def consistent_leader(s, lay, i, leader, epoch):
    """Whether voter i and a peer that names `leader` in `epoch` agree on leadership
    (HasConsistentLeader): if the peer names i, i must lead; otherwise they must not name two
    different leaders of one epoch."""
    if leader == i + 1:
        return get(s, lay, i, ROLE) == LEADER
    known = get(s, lay, i, LEADER_AT)
    return epoch != get(s, lay, i, EPOCH) or leader == NIL or known == NIL or known == leader


@kernel
def to_follower(s, lay, i, leader, epoch):
    """TransitionToFollower: illegal for a voter that already follows or leads in that epoch."""
    role = get(s, lay, i, ROLE)
    if get(s, lay, i, EPOCH) == epoch and (role == FOLLOWER or role == LEADER):
        return ILLEGAL_STANDING
    return FOLLOWER, epoch, leader


@kernel
def to_voted(epoch, before):
    """TransitionToVoted: only an unattached voter (or one of an older epoch) may vote."""
    if before[1] == epoch and before[0] != UNATTACHED:
        return ILLEGAL_STANDING
    return VOTED, epoch, NIL


@kernel
def maybe_transition(s, lay, i, leader, epoch):
    """MaybeTransition: what voter i becomes on hearing of `leader` (0: none) in `epoch`."""
    if not consistent_leader(s, lay, i, leader, epoch):
        return ILLEGAL_STANDING
    if epoch > get(s, lay, i, EPOCH):
        if leader == NIL:
            return UNATTACHED, epoch, NIL
        return to_follower(s, lay, i, leader, epoch)
    if leader != NIL and get(s, lay, i, LEADER_AT) == NIL:
        return to_follower(s, lay, i, leader, epoch)
    return standing(s, lay, i)


@kernel
def common_response(s, lay, i, leader, epoch, error):
    """MaybeHandleCommonResponse: voter i's standing after a response naming `leader` in
    `epoch` with `error`, and whether that handled the response (a stale epoch, a higher epoch,
    an error or news of the leader); an unhandled one is the step's own business."""
    mine = get(s, lay, i, EPOCH)
    if epoch < mine:
        return standing(s, lay, i), True
    if epoch > mine or error != 0:
        return maybe_transition(s, lay, i, leader, epoch), True
    if leader != NIL and get(s, lay, i, LEADER_AT) == NIL:
        return (FOLLOWER, mine, leader), True
    return standing(s, lay, i), False
