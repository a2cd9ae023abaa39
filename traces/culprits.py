"""The earlier steps behind a damaging step, found in a trace's `PartitionView`s: when a record
was committed and by whom, the stale request and cross-epoch fetch that brought it to a
replica, the writes and losses that left two replicas with different records at one offset,
and how a truncation chose its point."""

from __future__ import annotations

from typing import NamedTuple

from . import history
from .cause import Cause, Culprit, Damage, Diagnosis
from .partition import CrossEpochFetch, PartitionView, holds_at
from .trace import Trace
from .truncation import truncation


class Trail(NamedTuple):
    """A trace read for diagnosis: the trace, every state as a `PartitionView`, and the fetches
    served across leader epochs (by the step their records arrived)."""

    trace: Trace
    views: list[PartitionView]
    fetches: dict[int, CrossEpochFetch]

    def action(self, k: int) -> tuple:
        """The action of step k."""
        return self.trace.steps[k - 1].action

    def found(self, kind: Cause, damage: Damage, culprits=(), commit: Culprit | None = None) -> Diagnosis:
        """The diagnosis of this trace; culprits that could not be found (None) are left out."""
        ordered = tuple(sorted((c for c in culprits if c is not None), key=lambda c: c.step))
        return Diagnosis(kind, self.trace.invariant, len(self.trace), damage, ordered, commit)


def truncation_damage(trail: Trail, k: int, effect: str, offset: int, record) -> Damage:
    """The damage of the BecomeFollower at step k to `record` at `offset`: how the truncation
    point was chosen, and the step at which the controller had moved past the request's epoch
    when the request was stale."""
    _, r, ldr, epoch = trail.action(k)
    before = trail.views[k - 1]
    how = truncation(trail.trace, k, trail.views, r, ldr)
    stale = history.superseded(trail.views, epoch) if epoch < before.epoch else None
    return Damage(k, effect, r, ldr, offset, record, hw=how.follower_hw, truncation=how, stale_since=stale)


def commit(trail: Trail, offset: int, record, until: int) -> Culprit | None:
    """The step, up to `until`, at which `record` at `offset` became committed, and the leader
    whose HW passed it."""
    k = history.commit(trail.views, offset, record, until)
    if k is None:
        return None
    view = trail.views[k]
    leaders = [r for r in range(len(view.replicas))
               if view.leads(r) and view.replicas[r].hw > offset and holds_at(view, r, offset, record)]
    ldr = leaders[0] if leaders else view.true_leader()
    return Culprit(k, "commit", ldr, record=record, offset=offset, hw=view.replicas[ldr].hw)


def stale_culprits(trail: Trail, r: int, offset: int, record, k: int) -> list[Culprit]:
    """How replica r came to hold `record` before step k: the stale LeaderAndIsr it was following
    under, and the FETCH served across epochs that brought the record."""
    views = trail.views
    got = history.arrival(views, r, offset, record, k - 1)
    if got is None:
        return []
    culprits = []
    follows = [j for j in range(1, got) if trail.action(j)[:2] == ("BecomeFollower", r)]
    if follows:
        j = follows[-1]
        _, _, ldr, epoch = trail.action(j)
        if epoch < views[j - 1].epoch:
            culprits.append(Culprit(j, "stale-request", r, ldr, epoch=epoch, peer_epoch=views[j - 1].epoch))
    fetch = trail.fetches.get(got)
    if fetch is not None:
        culprits.append(Culprit(fetch.served, "cross-epoch-fetch", r, fetch.leader, record, offset,
                                fetch.follower_epoch, fetch.leader_epoch))
    return culprits


def divergence_culprits(trail: Trail, damage: Damage) -> list[Culprit]:
    """Why the follower and its leader hold different records at the damaged offset: the write
    of the newer record, and either the step at which its replica lost the other record or,
    when it never had it, the other record's write. The leader may write its record only after
    the follower kept its own above the leader's end: that write is the trace's last step, the
    failure itself, and no culprit."""
    views, offset, k, last = trail.views, damage.offset, damage.step, len(trail.views) - 1
    sides = [(damage.replica, damage.record, damage.peer_record), (damage.peer, damage.peer_record, damage.record)]

    def arrived(side) -> int:
        """When the side's record reached its replica: by the damage step, or else after it."""
        return (history.arrival(views, side[0], offset, side[1], k) or history.arrival(views, side[0], offset, side[1], last)
                or 0)

    holder, newer, other = max(sides, key=arrived)
    lost = history.loss(views, holder, offset, other, k)
    newest = write(trail, offset, newer)
    return [newest if newest.step < last else None,
            Culprit(lost, "loss", holder, record=other, offset=offset) if lost else write(trail, offset, other)]


def hw_source(trail: Trail, r: int, k: int) -> Culprit | None:
    """The FETCH answer from which replica r last raised its HW before step k, when a leader of
    another epoch served it (before KIP-320 nothing on the fetch path compares leader epochs);
    None when r's HW came otherwise."""
    states = trail.trace.states()
    for j in range(k - 1, 0, -1):
        if trail.views[j].replicas[r].hw <= trail.views[j - 1].replicas[r].hw:
            continue
        if trail.action(j) != ("FollowerApplyResponse", r):
            return None
        ldr = states[j - 1].brokers[r].fetch.leader
        served = max(i for i in range(1, j) if trail.action(i) == ("LeaderServeFetch", ldr, r))
        asked, answered = states[served - 1].brokers[r].fetch.epoch, trail.views[served - 1].replicas[ldr].epoch
        if asked == answered:
            return None
        return Culprit(served, "cross-epoch-hw", r, ldr, epoch=asked, peer_epoch=answered,
                       hw=trail.views[j].replicas[r].hw)
    return None


def write(trail: Trail, offset: int, record) -> Culprit:
    """The leader's append that first put `record` at `offset`."""
    k = history.creation(trail.views, offset, record)
    writer = next(r for r in range(len(trail.views[k].replicas)) if holds_at(trail.views[k], r, offset, record))
    return Culprit(k, "write", writer, record=record, offset=offset)
