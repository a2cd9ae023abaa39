"""Replica actions every variant shares: taking leadership, accepting writes, and the
fenced write of a new ISR to the quorum."""

from __future__ import annotations

from .bounds import SpecBounds
from .state import NONE, Record, Replica, SpecState, with_replica


def presumes_leadership(state: SpecState, r: int) -> bool:
    """Replica r believes it is the leader (it accepts writes whether or not it is right)."""
    return state.replicas[r].leader == r


def is_true_leader(state: SpecState, r: int) -> bool:
    """Replica r leads in the quorum, presumes leadership, and is in the quorum's epoch."""
    quorum = state.quorum
    replica = state.replicas[r]
    return quorum.leader == r and replica.leader == r and replica.epoch == quorum.epoch


def quorum_isr_update(state: SpecState, leader: int, isr: int) -> SpecState | None:
    """The leader writes a new ISR to the quorum and adopts it. The write is fenced: only the
    true leader of the quorum's current epoch succeeds (None otherwise). The epoch does not
    change and no LeaderAndIsr request is sent."""
    if not is_true_leader(state, leader):
        return None
    after = with_replica(state, leader, state.replicas[leader]._replace(isr=isr))
    return after._replace(quorum=after.quorum._replace(isr=isr))


def become_leader(state: SpecState, bounds: SpecBounds):
    """The replica named leader by a LeaderAndIsr request with an epoch above its own takes the
    epoch and the ISR. It keeps its log and its HW, which typically lags the previous
    leader's true HW."""
    replicas = state.replicas
    for request in state.requests:
        leader = request.leader
        if leader != NONE and request.epoch > replicas[leader].epoch:
            mine = Replica(replicas[leader].log, replicas[leader].hw, request.epoch, leader, request.isr)
            yield ("BecomeLeader", leader, request.epoch), with_replica(state, leader, mine)


def leader_write(state: SpecState, bounds: SpecBounds):
    """A replica that presumes leadership appends a producer write, stamped with its own
    leader epoch, while writes and log space remain. Zombie leaders accept writes too: only
    replication and ISR fencing protect the partition from them."""
    if state.next_record_id >= bounds.max_records:
        return
    for r, replica in enumerate(state.replicas):
        if replica.leader == r and len(replica.log) < bounds.log_size:
            record = Record(state.next_record_id, replica.epoch)
            replicas = with_replica(state, r, replica._replace(log=replica.log + (record,))).replicas
            yield ("LeaderWrite", r), SpecState(replicas, state.next_record_id + 1, state.requests, state.quorum)
