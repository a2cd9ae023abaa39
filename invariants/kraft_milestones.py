"""Milestones on the way to a lost acknowledged value in the `kraft` model, for simulation to
steer by (`checker.simulation.splitting`).

KRaft's losses end the same way: a voter whose log lacks an acknowledged value wins an election.
For that, first a majority of the voters must lack the value, which a commit forbids unless a
voter lost it (an unflushed tail in a crash, a whole disk) or the majorities that counted no
longer meet (voter sets changed in haste, an earlier epoch's record counted); then such a voter
must stand in an epoch newer than any holder's. Each stage is a condition over one state, read
over the voter fields every variant shares (`model.kraft.tla.layout`); a state's level is the
highest stage it is at, and a story may skip stages.

The stages are hints, not rules: they never change what a step does or what an invariant says,
only where simulation spends its walks.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from model.kraft.state import ACKED, CANDIDATE, LEADER, PROSPECTIVE
from model.kraft.tla.layout import EPOCH, ROLE, acked, get, holds_value

ACKED_MILESTONES = (
    "a client value is acknowledged",
    "a majority of the controllers lacks an acknowledged value (a crash, a lost disk or a change of voters took it)",
    "a controller that lacks an acknowledged value stands (prospective, candidate) or leads in the newest epoch",
)
"""The stages of `acked_milestone`, levels 1 to 3."""


@kernel
def acked_milestone(s, lay):
    """The highest stage of `ACKED_MILESTONES` that state `s` is at (0: none)."""
    newest = 0
    for i in range(lay.replicas):
        newest = max(newest, get(s, lay, i, EPOCH))
    level = 0
    for v in range(1, lay.values + 1):
        if acked(s, lay, v) != ACKED:
            continue
        lacking = 0
        for i in range(lay.replicas):
            if not holds_value(s, lay, i, v):
                lacking += 1
        if 2 * lacking <= lay.replicas:
            level = max(level, 1)
            continue
        level = max(level, 2)
        for i in range(lay.replicas):
            role = get(s, lay, i, ROLE)
            if not holds_value(s, lay, i, v) and get(s, lay, i, EPOCH) == newest and \
                    (role == PROSPECTIVE or role == CANDIDATE or role == LEADER):
                return 3
    return level
