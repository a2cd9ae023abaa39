"""The `spec` model's packed state: one row of int8 slots, read and written through the named
accessors below and those both Kafka models share (`model.kafka_accessors`, re-exported here:
a replica's HW, epoch, leader, ISR, LEO and log), the only code that knows offsets.

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

from ..kafka_accessors import (NEXT_RECORD_ID, append, block_at, count_write, epoch, hw, isr, leader,  # noqa: F401
                               leo, member, next_record_id, record_epoch, record_id, same_record, set_hw, set_isr,
                               set_view, truncate)
from .bounds import SpecBounds

QUORUM_EPOCH, QUORUM_LEADER, QUORUM_ISR, REQUESTS = range(1, 5)  # after NEXT_RECORD_ID
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

    VIEW_AT, LEO_AT, LOG_AT = HW, LEO, LOG
    """Where a replica's view, LEO and log start in its block (see `model.kafka_accessors`)."""


VARIANT_NAMES = ("hw", "kip101", "kip279", "kip320")
HW_TRUNCATION, KIP101, KIP279, KIP320 = range(4)


def spec_layout(bounds: SpecBounds, variant: str) -> SpecLayout:
    """The layout for these bounds and variant; rows are padded to a multiple of 8 bytes."""
    base = REQUESTS + 2 * (bounds.max_epoch + 1)
    stride = LOG + 2 * bounds.log_size
    width = -(-(base + bounds.replicas * stride) // 8) * 8
    return SpecLayout(bounds.replicas, bounds.log_size, bounds.max_records, bounds.max_epoch,
                      VARIANT_NAMES.index(variant), width, base, stride)


# ----- the controller's quorum state and its LeaderAndIsr requests --------------------------------


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


