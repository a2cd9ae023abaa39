"""The `spec` model's next-state relation: every action, in the specification's order."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .controller import controller_elect_leader, controller_shrink_isr
from .leadership import become_leader, leader_write
from .replication import (become_follower, follower_replicate, leader_expand_isr, leader_inc_high_watermark,
                          leader_shrink_isr)


@kernel
def successors(s, lay, out, acts, tally):
    """Write every enabled step from state `s` into `out` (rows) and `acts` (action codes);
    return how many there are."""
    n = controller_elect_leader(s, lay, out, acts, tally, 0)
    n = controller_shrink_isr(s, lay, out, acts, tally, n)
    n = become_leader(s, lay, out, acts, tally, n)
    n = leader_write(s, lay, out, acts, tally, n)
    n = leader_inc_high_watermark(s, lay, out, acts, tally, n)
    n = leader_shrink_isr(s, lay, out, acts, tally, n)
    n = leader_expand_isr(s, lay, out, acts, tally, n)
    n = follower_replicate(s, lay, out, acts, tally, n)
    return become_follower(s, lay, out, acts, tally, n)


def max_successors(lay) -> int:
    """An upper bound on the steps enabled in one state (the size of a successor buffer)."""
    n, e = lay.replicas, lay.max_epoch + 1
    return 2 * n + e + n + n + 2 * n * n + n * n + e * n
