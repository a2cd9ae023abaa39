"""The packed state of the faithful variants: one row of int8 slots, read and written through
the accessors here and in `model.kraft.tla.layout`, the only code that knows offsets.

    header   elections, restarts, lost disks, then each client value's fate (0 not written,
             WRITTEN, ACKED)
    voter    epoch, role, voted for, leader, HW, votes granted (a bitmask), flushed offset, the
             epoch's start offset (as leader), whom it heard from (a bitmask: as candidate, the
             voters that answered its Vote; as leader, those that acknowledged its epoch), its
             directory id (0 the first disk, +1 per lost disk), log length, one (epoch, value)
             pair per log entry, then as leader each voter's fetched end offset
    network  one record per connection (requester, receiver), `model.kraft.kafka.channels`

The header and the voter block are variant `tla`'s, slot for slot, but for two places where
`tla` keeps what Kafka does not (the size of its bag, a voter's pending FETCH): they hold the
lost disks and the flushed offset, start offset, heard set and directory id here. So the
invariants (`invariants.kraft`), written over `tla`'s layout, read both, and the log and
leader-state accessors of `model.kraft.tla.layout` serve both. Offsets inside a log are 1-based
there; Kafka's offsets (the first entry at 0) are one less.

Bounds and the rule set travel at run time in `KafkaLayout`: one compiled kernel serves every
bounds set and every faithful variant."""

from __future__ import annotations

from typing import NamedTuple

from checker.kernel.jit import kernel

from ..tla.layout import ACKED, LOG, LOG_LENGTH, PENDING_LAST_EPOCH, PENDING_LEADER, get

DISK_LOSSES = 2
"""The header slot counting lost disks (variant `tla`'s bag size)."""
FLUSHED, START_OFFSET, HEARD, DIRECTORY = range(PENDING_LEADER, PENDING_LAST_EPOCH + 1)
"""The voter slots variant `tla` gives its pending FETCH."""

KIND, EPOCH_SENT, LIVE, A, B, C, D, E, F, ENTRIES = range(10)
"""A connection's record: the message's type (0: the connection is free), the epoch it
carries, for a request whether its sender still expects the answer, its own fields from A on
(`model.kraft.kafka.channels`), and for a FETCH response the number of records it carries
followed by one (epoch, value) pair each."""
ENTRY_PAIRS = ENTRIES + 1


class KafkaLayout(NamedTuple):
    """Bounds, rules and where things are (see the module docstring)."""

    replicas: int
    values: int
    max_elections: int
    max_restarts: int
    max_disk_losses: int
    periodic_begin_quorum: bool
    directory_ids: bool
    commit_past_epoch_start: bool
    log_capacity: int
    width: int
    voter_base: int
    voter_stride: int
    end_offset_at: int
    channel_base: int
    record: int


def kafka_layout(replicas: int, values: int, elections: int, restarts: int, disk_losses: int,
                 periodic_begin_quorum: bool, directory_ids: bool, commit_past_epoch_start: bool) -> KafkaLayout:
    """The layout for these bounds and rules. A log holds at most one LeaderChange record per
    election and every client value once. Rows are padded to a multiple of 8 slots."""
    logs = elections + values
    end_offset_at = LOG + 2 * logs
    stride = end_offset_at + replicas
    base = ACKED + values
    channel_base = base + replicas * stride
    record = ENTRY_PAIRS + 2 * logs
    width = -(-(channel_base + replicas * (replicas - 1) * record) // 8) * 8
    return KafkaLayout(replicas, values, elections, restarts, disk_losses, periodic_begin_quorum, directory_ids,
                       commit_past_epoch_start, logs, width, base, stride, end_offset_at, channel_base, record)


@kernel
def log_end(s, lay, i):
    """Voter i's (index) log end offset (LEO): how many records its log holds."""
    return int(s[lay.voter_base + i * lay.voter_stride + LOG_LENGTH])


@kernel
def in_poll(s, lay, i):
    """Voter i, a leader, has counted records it has not flushed yet: it is inside
    `flushLeaderLog`, between counting its new LEO and flushing."""
    return get(s, lay, i, FLUSHED) < log_end(s, lay, i)
