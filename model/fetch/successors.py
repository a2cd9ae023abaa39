"""The `fetch` model's next-state relation: every action, then the ghost variables brought up
to date after each step (when the model keeps them)."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .controller import (controller_failover, controller_notice_failure, controller_notice_restart,
                         fence_live_broker, preferred_replica_election)
from .election import win_election
from .ghost import update_ghost
from .isr import leader_expand_isr, leader_shrink_isr
from .leadership import become_follower, become_leader
from .lifecycle import checkpoint_hw, clean_shutdown, crash, flush, restart, restart_empty
from .producer import producer_write
from .replication import follower_apply_response, follower_fetch, leader_serve_fetch
from .retries import leader_handle_produce, producer_receive_ack, producer_send, producer_timeout
from .shutdown import controlled_shutdown


@kernel
def successors(s, lay, out, acts, tally):
    """Write every enabled step from state `s` into `out` (rows) and `acts` (action codes);
    return how many there are."""
    n = producer_write(s, lay, out, acts, tally, 0)
    n = follower_fetch(s, lay, out, acts, tally, n)
    n = leader_serve_fetch(s, lay, out, acts, tally, n)
    n = follower_apply_response(s, lay, out, acts, tally, n)
    n = leader_shrink_isr(s, lay, out, acts, tally, n)
    n = leader_expand_isr(s, lay, out, acts, tally, n)
    n = crash(s, lay, out, acts, tally, n)
    n = clean_shutdown(s, lay, out, acts, tally, n)
    n = controlled_shutdown(s, lay, out, acts, tally, n)
    n = restart(s, lay, out, acts, tally, n)
    n = restart_empty(s, lay, out, acts, tally, n)
    n = checkpoint_hw(s, lay, out, acts, tally, n)
    n = flush(s, lay, out, acts, tally, n)
    n = controller_notice_failure(s, lay, out, acts, tally, n)
    n = controller_notice_restart(s, lay, out, acts, tally, n)
    n = fence_live_broker(s, lay, out, acts, tally, n)
    n = preferred_replica_election(s, lay, out, acts, tally, n)
    n = controller_failover(s, lay, out, acts, tally, n)
    n = become_leader(s, lay, out, acts, tally, n)
    n = become_follower(s, lay, out, acts, tally, n)
    n = win_election(s, lay, out, acts, tally, n)
    n = producer_send(s, lay, out, acts, tally, n)
    n = leader_handle_produce(s, lay, out, acts, tally, n)
    n = producer_receive_ack(s, lay, out, acts, tally, n)
    n = producer_timeout(s, lay, out, acts, tally, n)
    if lay.ghost:
        for j in range(n):
            update_ghost(out[j], lay)
    return n


def max_successors(lay) -> int:
    """An upper bound on the steps enabled in one state (the size of a successor buffer): one
    per replica for the single-replica steps, per (leader, follower) pair for the ISR steps,
    per (noticed broker, elected leader) for the controller's, per (replica, epoch) for
    handling LeaderAndIsr, and per (candidate, set of voters) for a majority quorum's election;
    with retries, one per (record, replica) for sends, per replica for handling a request, and
    two per record for an answer or a timeout; per replica for kip966's clean shutdown and for a
    restart on an empty disk; per (broker, elected leader) for a controlled shutdown and for the
    fencing of a live broker; one move of leadership to the preferred replica; and per elected leader
    (or none) for a controller failover."""
    n, e = lay.replicas, lay.max_epoch + 1
    retrying = lay.max_records * (n + 2) + n if lay.retries else 0
    return 10 * n + 6 * n * n + 2 * n * e + n * (1 << n) + retrying + 1 + n
