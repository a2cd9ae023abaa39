"""Questions about a trace's past, asked of its `PartitionView`s: when a replica got or lost a
record, when a record was first written, committed or acknowledged, when the controller
elected a replica or moved past an epoch. Steps are numbered from 1; `views[k]` is the state
after step k and `views[0]` the initial state."""

from __future__ import annotations

from .partition import NONE, PartitionView, holds_at


def arrival(views: list[PartitionView], r: int, offset: int, record, until: int) -> int | None:
    """The last step, up to `until`, at which `record` appeared at `offset` in replica r's log."""
    return next((k for k in range(until, 0, -1)
                 if holds_at(views[k], r, offset, record) and not holds_at(views[k - 1], r, offset, record)), None)


def loss(views: list[PartitionView], r: int, offset: int, record, until: int) -> int | None:
    """The last step, up to `until`, at which replica r's log stopped holding `record` at `offset`
    (a truncation, or a crash that dropped its unflushed tail)."""
    return next((k for k in range(until, 0, -1)
                 if holds_at(views[k - 1], r, offset, record) and not holds_at(views[k], r, offset, record)), None)


def creation(views: list[PartitionView], offset: int, record) -> int | None:
    """The step at which `record` first appeared at `offset` in any log: the leader's append."""
    return next((k for k in range(1, len(views))
                 if any(holds_at(views[k], r, offset, record) for r in range(len(views[k].replicas)))), None)


def exposed(view: PartitionView, offset: int, record) -> bool:
    """Some live replica that presumes leadership holds `record` at `offset` below its HW, or the
    model's ghost variables count it committed: consumers may have read it."""
    if (offset, record) in view.committed:
        return True
    return any(view.leads(r) and view.replicas[r].hw > offset and holds_at(view, r, offset, record)
               for r in range(len(view.replicas)))


def commit(views: list[PartitionView], offset: int, record, until: int) -> int | None:
    """The first step, up to `until`, after which `record` at `offset` was committed (below a
    presumed leader's HW)."""
    return next((k for k in range(1, until + 1) if exposed(views[k], offset, record)), None)


def acknowledgement(views: list[PartitionView], offset: int, record) -> int | None:
    """The step at which the producer's write of `record` at `offset` was acknowledged."""
    return next((k for k in range(1, len(views)) if (offset, record) in views[k].acked), None)


def election(views: list[PartitionView], r: int, until: int) -> int | None:
    """The last step, up to `until`, at which the controller made replica r leader of a new epoch."""
    return next((k for k in range(until, 0, -1)
                 if views[k].leader == r and (views[k - 1].leader, views[k - 1].epoch) != (r, views[k].epoch)), None)


def superseded(views: list[PartitionView], epoch: int) -> int | None:
    """The step at which the controller moved past leader epoch `epoch` (None: it never did)."""
    return next((k for k in range(1, len(views)) if views[k].epoch > epoch), None)


def leaderless_since(views: list[PartitionView]) -> int:
    """The step after which the controller has had no leader ever since (0: never had one)."""
    k = len(views) - 1
    while k > 0 and views[k - 1].leader == NONE:
        k -= 1
    return k
