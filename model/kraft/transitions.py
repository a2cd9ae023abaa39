"""How a voter's role, epoch and known leader change on what it hears, as the TLA+
specification writes `QuorumState`'s transitions (MaybeTransition, MaybeHandleCommonResponse):
a higher epoch makes it a follower of the sender's leader (or unattached when no leader is
named), a leader named in its own epoch makes it that leader's follower, and anything
`QuorumState` would refuse puts it in the illegal state, which the invariant `no-illegal-state`
catches."""

from __future__ import annotations

from typing import NamedTuple

from .state import FOLLOWER, ILLEGAL, LEADER, NIL, UNATTACHED, VOTED, KRaftState

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


class Standing(NamedTuple):
    """A voter's role, epoch and leader (0: none known)."""

    role: int
    epoch: int
    leader: int


ILLEGAL_STANDING = Standing(ILLEGAL, 0, NIL)


def standing(s: KRaftState, i: int) -> Standing:
    """Voter i's (index) standing now."""
    return Standing(s.role[i], s.epoch[i], s.leader[i])


def consistent_leader(s: KRaftState, i: int, leader: int, epoch: int) -> bool:
    """Whether voter i and a peer that names `leader` in `epoch` agree on leadership
    (HasConsistentLeader): if the peer names i, i must lead; otherwise they must not name two
    different leaders of one epoch."""
    if leader == i + 1:
        return s.role[i] == LEADER
    return epoch != s.epoch[i] or leader == NIL or s.leader[i] == NIL or s.leader[i] == leader


def to_follower(s: KRaftState, i: int, leader: int, epoch: int) -> Standing:
    """TransitionToFollower: illegal for a voter that already follows or leads in that epoch."""
    if s.epoch[i] == epoch and s.role[i] in (FOLLOWER, LEADER):
        return ILLEGAL_STANDING
    return Standing(FOLLOWER, epoch, leader)


def to_voted(epoch: int, before: Standing) -> Standing:
    """TransitionToVoted: only an unattached voter (or one of an older epoch) may vote."""
    if before.epoch == epoch and before.role != UNATTACHED:
        return ILLEGAL_STANDING
    return Standing(VOTED, epoch, NIL)


def maybe_transition(s: KRaftState, i: int, leader: int, epoch: int) -> Standing:
    """MaybeTransition: what voter i becomes on hearing of `leader` (0: none) in `epoch`."""
    if not consistent_leader(s, i, leader, epoch):
        return ILLEGAL_STANDING
    if epoch > s.epoch[i]:
        return Standing(UNATTACHED, epoch, NIL) if leader == NIL else to_follower(s, i, leader, epoch)
    if leader != NIL and s.leader[i] == NIL:
        return to_follower(s, i, leader, epoch)
    return standing(s, i)


def common_response(s: KRaftState, i: int, leader: int, epoch: int, error: int) -> tuple[Standing, bool]:
    """MaybeHandleCommonResponse: voter i's standing after a response naming `leader` in
    `epoch` with `error`, and whether that handled the response (a stale epoch, a higher epoch,
    an error or news of the leader); an unhandled one is the step's own business."""
    if epoch < s.epoch[i]:
        return standing(s, i), True
    if epoch > s.epoch[i] or error:
        return maybe_transition(s, i, leader, epoch), True
    if leader != NIL and s.leader[i] == NIL:
        return Standing(FOLLOWER, s.epoch[i], leader), True
    return standing(s, i), False
