"""One partition's replication state, read the same way from the `spec` and the `fetch` model,
so that a counterexample can be diagnosed without caring which model found it.

A `PartitionView` keeps what a protocol engineer reasons with: every replica's log, HW, leader
epoch, the leader it follows, whether it is up and how much of its log is flushed, its epoch
cache, and the controller's leader epoch, leader and ISR (the quorum state, for `spec`), plus
the ghost records the `fetch` model keeps for its invariants (acknowledged and committed
writes, the highest HW consumers have seen).
"""

from __future__ import annotations

from typing import NamedTuple

from model.spec.state import NONE

class ReplicaView(NamedTuple):
    """One replica: its log (records with the epoch they were appended in), its HW, the leader
    epoch it is in, the leader it follows (itself when it presumes leadership, NONE when none),
    its ISR view, whether it is up, how many records are flushed, and its leader-epoch cache
    ((epoch, start offset) pairs)."""

    log: tuple
    hw: int
    epoch: int
    leader: int
    isr: int
    alive: bool
    flushed: int
    cache: tuple

    @property
    def leo(self) -> int:
        """Log end offset: the offset the next record gets."""
        return len(self.log)


class PartitionView(NamedTuple):
    """Every replica, the controller's leader epoch, leader and ISR, and the ghost records:
    (offset, record) pairs acknowledged to producers and committed (`fetch` with ghost
    variables; empty otherwise), the highest HW consumers have seen, and the controller's
    eligible leader replicas (rule elr=on; a bit mask like the ISR)."""

    replicas: tuple
    epoch: int
    leader: int
    isr: int
    acked: tuple = ()
    committed: tuple = ()
    consumer_hw: int = 0
    elr: int = 0

    def leads(self, r: int) -> bool:
        """Replica r is up and presumes leadership (it may be a zombie of an older epoch)."""
        rep = self.replicas[r]
        return rep.alive and rep.leader == r

    def true_leader(self) -> int:
        """The controller's leader when it is up and leads in the controller's epoch, else NONE."""
        r = self.leader
        return r if r != NONE and self.leads(r) and self.replicas[r].epoch == self.epoch else NONE


def epoch_cache(log: tuple) -> tuple:
    """The (epoch, start offset) pairs of a log, as a leader-epoch cache built from its records."""
    cache = []
    for offset, record in enumerate(log):
        if not cache or cache[-1][0] != record.epoch:
            cache.append((record.epoch, offset))
    return tuple(cache)


def _spec_view(state) -> PartitionView:
    reps = tuple(ReplicaView(rep.log, rep.hw, rep.epoch, rep.leader, rep.isr, True, len(rep.log), epoch_cache(rep.log))
                 for rep in state.replicas)
    q = state.quorum
    return PartitionView(reps, q.epoch, q.leader, q.isr)


def _fetch_view(state) -> PartitionView:
    reps = tuple(ReplicaView(b.log, b.hw, b.epoch, b.leader, b.isr, b.alive, b.flushed, b.cache) for b in state.brokers)
    c = state.controller
    return PartitionView(reps, c.epoch, c.leader, c.isr, state.acked, state.committed, state.consumer_hw, c.elr)


_READERS = {"spec": _spec_view, "fetch": _fetch_view}


def partition_views(trace) -> list[PartitionView] | None:
    """Every state of the trace as a `PartitionView`, the initial one first; None for a model
    that does not replicate a partition (two-phase commit)."""
    read = _READERS.get(trace.model)
    return None if read is None else [read(s) for s in trace.states()]


def holds_at(view: PartitionView, r: int, offset: int, record) -> bool:
    """Replica r's log has exactly `record` at `offset`."""
    log = view.replicas[r].log
    return offset < len(log) and log[offset] == record


class CrossEpochFetch(NamedTuple):
    """A FETCH a leader served although the follower was in another leader epoch (nothing
    checks epochs on the fetch path before KIP-320): at step `served` the leader, in
    `leader_epoch`, answered `follower`, in `follower_epoch`; the records reached the follower's
    log at step `applied` (the same step in `spec`, where a fetch is one step)."""

    applied: int
    served: int
    follower: int
    leader: int
    follower_epoch: int
    leader_epoch: int


def cross_epoch_fetches(trace, views: list[PartitionView]) -> dict[int, CrossEpochFetch]:
    """Every fetch served across leader epochs, by the step its records reached the follower."""
    states, found = trace.states(), {}
    for k, step in enumerate(trace.steps, 1):
        kind, *args = step.action
        if kind == "FollowerReplicate":  # spec: the follower copies from the leader it follows
            f, ldr = args
            served, asked = k, views[k - 1].replicas[f].epoch
        elif kind == "FollowerApplyResponse" and states[k - 1].brokers[args[0]].fetch.records:  # fetch
            f, ldr = args[0], states[k - 1].brokers[args[0]].fetch.leader
            served = max(j for j in range(1, k) if trace.steps[j - 1].action == ("LeaderServeFetch", ldr, f))
            asked = states[served - 1].brokers[f].fetch.epoch
        else:
            continue
        answered = views[served - 1].replicas[ldr].epoch
        if asked != answered:
            found[k] = CrossEpochFetch(k, served, f, ldr, asked, answered)
    return found
