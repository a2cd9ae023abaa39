"""Leader election by votes under a majority quorum (Raft; KRaft's metadata quorum).

A replica that hears nothing from a leader for long enough becomes a candidate in the next
epoch; in abstract time that may happen at any moment, to any live replica that is not the
true leader. It wins with the votes of a majority of the replicas (its own included), and a
replica votes only for a candidate whose log is at least as up to date as its own. Each epoch
is voted on once (the controller's record keeps the latest epoch, as KRaft's quorum state
does), so no replica votes twice in one epoch.

The election is one step: the candidate leads at once, and each voter, having granted its
vote, is in the new epoch and follows the candidate, so a leader of an older epoch can no
longer count it (fencing). Every other live replica learns the new epoch later, through the
request in its inbox (KRaft's BeginQuorumEpoch). Each set of exactly a majority of voters is
its own step: a larger set reaches the same states through those later deliveries.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import VOTE_CANDIDATE, VOTE_EPOCH, VOTE_GRANTED, VOTE_MAJORITY_QUORUM
from .hw import is_true_leader
from .kinds import NO_VOTER, WIN_ELECTION
from .layout import alive, controller_epoch, controller_offline, deliver, leo, member, set_controller, size
from .leadership import follow, take_leadership
from .quorum import at_least_as_up_to_date, majority
from .rule_kernels import majority_quorum


@kernel
def grants_vote(s, lay, v, c):
    """Live broker v would vote for candidate c: c's log is at least as up to date as v's."""
    return alive(s, lay, v) and at_least_as_up_to_date(s, lay, c, v)


@kernel
def other_voter(voters, c, skip):
    """The `skip`-th voter besides candidate c in the set `voters` (NO_VOTER past the last)."""
    for v in range(16):
        if member(voters, v) and v != c:
            if skip == 0:
                return v
            skip -= 1
    return NO_VOTER


@kernel
def win_election(s, lay, out, acts, tally, n):
    """Candidate c wins the next epoch with the votes of a majority (see the module docstring):
    it leads, with every replica as its voters (the ISR slot); its voters follow it; the other
    live replicas are sent the new epoch."""
    if not (holds(tally, VOTE_MAJORITY_QUORUM, majority_quorum(lay))
            and holds(tally, VOTE_EPOCH, controller_epoch(s, lay) < lay.max_epoch)):
        return n
    e = controller_epoch(s, lay) + 1
    everyone = (1 << lay.replicas) - 1
    for c in range(lay.replicas):
        if not holds(tally, VOTE_CANDIDATE, alive(s, lay, c) and not is_true_leader(s, lay, c)):
            continue
        for voters in range(1, 1 << lay.replicas):
            if not member(voters, c) or size(voters) != majority(lay):
                continue
            granted = True
            for v in range(lay.replicas):
                if member(voters, v) and v != c and not grants_vote(s, lay, v, c):
                    granted = False
            if not holds(tally, VOTE_GRANTED, granted):
                continue
            t = emit(s, out, acts, n, action_code(WIN_ELECTION, c, other_voter(voters, c, 0),
                                                  other_voter(voters, c, 1)))
            set_controller(t, lay, e, c, everyone, controller_offline(s, lay))
            take_leadership(t, lay, c, e, everyone)
            for r in range(lay.replicas):
                if member(voters, r) and r != c:
                    follow(t, lay, r, c, e, leo(s, lay, r))
                elif r != c and alive(s, lay, r):
                    deliver(t, lay, r, e, c, everyone)
            n += 1
    return n
