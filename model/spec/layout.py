"""The `spec` model's packed state: one row of int8 slots, read and written through the named
accessors below (the only code that knows offsets).

    header   next_record_id, quorum epoch, quorum leader, quorum ISR, then one (leader, ISR)
             pair per leader epoch 0..max_epoch for the LeaderAndIsr request of that epoch
             (each controller update takes the next epoch, so there is at most one per
             epoch); the leader slot holds leader + 2, so 0 means "never sent" and 1 NONE
    replica  HW, epoch, leader, ISR, LEO, then one (id, epoch) pair per log offset

Replica ids are 0..N-1 and NONE is -1; an ISR is a bitmask. Slots past a log's LEO and past
the last request are always 0, so each state has exactly one row. Bounds travel at run time in
`SpecLayout`, so one compiled kernel serves every bounds set.
"""

from __future__ import annotations

from typing import NamedTuple

from checker.kernel.jit import kernel

from .bounds import SpecBounds

NEXT_RECORD_ID, QUORUM_EPOCH, QUORUM_LEADER, QUORUM_ISR, REQUESTS = range(5)
NOT_SENT = 0
"""A request leader slot's value for an epoch whose request was never sent."""
HW, EPOCH, LEADER, ISR, LEO, LOG = range(6)


class SpecLayout(NamedTuple):
    """Bounds, the protocol variant (an index into `VARIANT_NAMES`) and where things are."""

    replicas: int
    log_size: int
    max_records: int
    max_epoch: int
    variant: int
    width: int
    replica_base: int
    replica_stride: int


VARIANT_NAMES = ("hw", "kip101", "kip279", "kip320")
HW_TRUNCATION, KIP101, KIP279, KIP320 = range(4)


def spec_layout(bounds: SpecBounds, variant: str) -> SpecLayout:
    """The layout for these bounds and variant; rows are padded to a multiple of 8 bytes."""
    base = REQUESTS + 2 * (bounds.max_epoch + 1)
    stride = LOG + 2 * bounds.log_size
    width = -(-(base + bounds.replicas * stride) // 8) * 8
    return SpecLayout(bounds.replicas, bounds.log_size, bounds.max_records, bounds.max_epoch,
                      VARIANT_NAMES.index(variant), width, base, stride)


# ----- the controller's quorum state and its LeaderAndIsr requests ------------------------------


@kernel
def next_record_id(s, lay):
    """How many producer writes have happened (the next write's id)."""
    return s[NEXT_RECORD_ID]


@kernel
def count_write(t, lay):
    """One more producer write has happened."""
    t[NEXT_RECORD_ID] += 1


@kernel
def quorum_epoch(s, lay):
    """The leader epoch in the controller's record (-1 before the first election)."""
    return s[QUORUM_EPOCH]


@kernel
def quorum_leader(s, lay):
    """The leader in the controller's record (NONE when leaderless)."""
    return s[QUORUM_LEADER]


@kernel
def quorum_isr(s, lay):
    """The ISR in the controller's record."""
    return s[QUORUM_ISR]


@kernel
def set_quorum_isr(t, lay, isr):
    """The controller's record gets a new ISR (same epoch and leader)."""
    t[QUORUM_ISR] = isr


@kernel
def request_sent(s, lay, epoch):
    """The controller has sent a LeaderAndIsr request in epoch `epoch`."""
    return s[REQUESTS + 2 * epoch] != NOT_SENT


@kernel
def request_leader(s, lay, epoch):
    """The leader named by epoch `epoch`'s LeaderAndIsr request (NONE: leaderless)."""
    return s[REQUESTS + 2 * epoch] - 2


@kernel
def request_isr(s, lay, epoch):
    """The ISR sent in epoch `epoch`'s LeaderAndIsr request."""
    return s[REQUESTS + 2 * epoch + 1]


@kernel
def record_update(t, lay, epoch, leader, isr):
    """The controller records (epoch, leader, ISR) in the quorum and sends it as a request."""
    t[QUORUM_EPOCH] = epoch
    t[QUORUM_LEADER] = leader
    t[QUORUM_ISR] = isr
    t[REQUESTS + 2 * epoch] = leader + 2
    t[REQUESTS + 2 * epoch + 1] = isr


# ----- one replica: its local view and its log ---------------------------------------------------


@kernel
def _at(lay, r):
    return lay.replica_base + r * lay.replica_stride


@kernel
def hw(s, lay, r):
    """Replica r's high watermark."""
    return s[_at(lay, r) + HW]


@kernel
def set_hw(t, lay, r, value):
    """Replica r's HW becomes `value`."""
    t[_at(lay, r) + HW] = value


@kernel
def epoch(s, lay, r):
    """The leader epoch replica r knows (-1 before any request)."""
    return s[_at(lay, r) + EPOCH]


@kernel
def leader(s, lay, r):
    """The leader replica r follows (itself when it presumes leadership; NONE if nobody)."""
    return s[_at(lay, r) + LEADER]


@kernel
def isr(s, lay, r):
    """The ISR replica r was told about (or keeps, as leader)."""
    return s[_at(lay, r) + ISR]


@kernel
def set_view(t, lay, r, new_epoch, new_leader, new_isr):
    """Replica r takes a LeaderAndIsr: its epoch, leader and ISR."""
    at = _at(lay, r)
    t[at + EPOCH] = new_epoch
    t[at + LEADER] = new_leader
    t[at + ISR] = new_isr


@kernel
def set_isr(t, lay, r, value):
    """Replica r's ISR view becomes `value`."""
    t[_at(lay, r) + ISR] = value


@kernel
def leo(s, lay, r):
    """Replica r's log end offset (its log's length)."""
    return s[_at(lay, r) + LEO]


@kernel
def record_id(s, lay, r, offset):
    """The producer-write id of the record at `offset` in replica r's log."""
    return s[_at(lay, r) + LOG + 2 * offset]


@kernel
def record_epoch(s, lay, r, offset):
    """The leader epoch of the record at `offset` in replica r's log."""
    return s[_at(lay, r) + LOG + 2 * offset + 1]


@kernel
def same_record(s, lay, r1, r2, offset):
    """Replicas r1 and r2 hold the very same record (id and epoch) at `offset`."""
    return (record_id(s, lay, r1, offset) == record_id(s, lay, r2, offset)
            and record_epoch(s, lay, r1, offset) == record_epoch(s, lay, r2, offset))


@kernel
def append(t, lay, r, rid, repoch):
    """Replica r appends record (rid, repoch) at its LEO."""
    at = _at(lay, r)
    end = t[at + LEO]
    t[at + LOG + 2 * end] = rid
    t[at + LOG + 2 * end + 1] = repoch
    t[at + LEO] = end + 1


@kernel
def truncate(t, lay, r, k):
    """Replica r keeps the first k records of its log."""
    at = _at(lay, r)
    for i in range(2 * k, 2 * t[at + LEO]):
        t[at + LOG + i] = 0
    t[at + LEO] = k


# ----- replica sets --------------------------------------------------------------------------------


@kernel
def member(replicas, r):
    """Replica r is in the replica set (bitmask) `replicas`."""
    return (replicas >> r) & 1 == 1
