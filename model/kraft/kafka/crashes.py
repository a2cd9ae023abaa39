"""Crashes in the faithful variants: a voter stops and starts again, from what its disk kept.

What survives is the quorum-state file (written and synced at every durable transition) and
the flushed part of the log; the unflushed tail (a leader's records between counting its LEO
and flushing), the HW, a candidate's votes and a leader's view of the voters are lost, and so
is everything in flight to the voter. A voter may also come back on a new, empty disk. Each
function is one step of voter i (index) and appends its successor to `out`."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..tla.layout import RESTARTS, get, truncate
from .channels import cut_off
from .guards import DISKS_LEFT, RESTARTS_LEFT
from .kinds import LOSE_DISK, RESTART
from .layout import DISK_LOSSES, FLUSHED
from .quorum_state import format_disk, restore


@kernel
def restart(s, lay, out, acts, tally, n, i):
    """Voter i crashes and restarts: its log is cut to what it flushed, and its role read back
    from its quorum-state file (`QuorumState.initialize`: a leader comes back resigned, a
    candidate a candidate, a voter having voted). The bound `max-restarts` counts these."""
    if not holds(tally, RESTARTS_LEFT, s[RESTARTS] < lay.max_restarts):
        return n
    t = emit(s, out, acts, n, action_code(RESTART, i + 1, 0, 0))
    truncate(t, lay, i, get(s, lay, i, FLUSHED))
    restore(t, lay, i)
    cut_off(t, lay, i)
    t[RESTARTS] += 1
    return n + 1


@kernel
def lose_disk(s, lay, out, acts, tally, n, i):
    """Voter i crashes and comes back on a new, empty disk: no log and no quorum-state file,
    unattached in epoch 0, under the directory id the format command gives it (`format_disk`,
    `--reformat`). The bound `max-disk-losses` counts these."""
    if not holds(tally, DISKS_LEFT, s[DISK_LOSSES] < lay.max_disk_losses):
        return n
    t = emit(s, out, acts, n, action_code(LOSE_DISK, i + 1, 0, 0))
    format_disk(t, lay, i)
    cut_off(t, lay, i)
    t[DISK_LOSSES] += 1
    return n + 1
