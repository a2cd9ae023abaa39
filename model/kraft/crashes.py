"""Crashes in the faithful variants: a voter stops and starts again, from what its disk kept.

What survives is the quorum-state file (written and synced at every durable transition) and
the flushed part of the log; the unflushed tail (a leader's records between counting its LEO
and flushing), the HW, a candidate's votes and a leader's view of the voters are lost, and so
is everything in flight to the voter. A voter may also come back on a new, empty disk.
Each function is one step; None where it is not enabled."""

from __future__ import annotations

from . import channels
from .bounds import KRaftBounds
from .quorum_state import formatted, restored
from .state import ILLEGAL, KRaftState, with_voter

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def restart(s: KRaftState, i: int, b: KRaftBounds) -> KRaftState | None:
    """Voter i crashes and restarts: its log is cut to what it flushed, and its role read back
    from its quorum-state file (`QuorumState.initialize`: a leader comes back resigned, a
    candidate a candidate, a voter having voted). The bound `max-restarts` counts these."""
    if s.restarts >= b.max_restarts or s.role[i] == ILLEGAL:
        return None
    s = with_voter(s, i, log=s.log[i][:s.flushed[i]])
    return channels.cut_off(restored(s, i), i)._replace(restarts=s.restarts + 1)


def lose_disk(s: KRaftState, i: int, b: KRaftBounds) -> KRaftState | None:
    """Voter i crashes and comes back on a new, empty disk: no log and no quorum-state file,
    unattached in epoch 0, under a new directory id. The bound `max-disk-losses` counts these."""
    if s.disk_losses >= b.max_disk_losses or s.role[i] == ILLEGAL:
        return None
    return channels.cut_off(formatted(s, i), i)._replace(disk_losses=s.disk_losses + 1)
