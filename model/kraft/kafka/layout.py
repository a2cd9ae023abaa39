"""The packed state of the faithful variants: one row of int8 slots, read and written through
the accessors here and in `model.kraft.tla.layout`, the only code that knows offsets.

    header   elections, restarts, lost disks, then each client value's fate (0 not written,
             WRITTEN, ACKED)
    voter    epoch, role, voted for, leader, HW, votes granted (a bitmask), flushed offset, the
             epoch's start offset (as leader), whom it heard from (a bitmask: as candidate or
             prospective, the voters that answered its Vote; as leader, those that acknowledged
             its epoch; as follower under pre-vote, its leader once a FETCH was answered), its
             directory id (0 the first disk, +1 per lost disk), log length, one (epoch, value)
             pair per log entry, then as leader each replica key's fetched end offset (one per
             controller, or under KIP-853 one per controller and directory id), and the offset of
             its pending RemoveVoter record (or RESIGN_REQUESTED)
    network  one record per connection (requester, receiver), `model.kraft.kafka.channels`
    footer   how many voter changes were made, the bootstrap voter set (`model.kraft.kafka.voter_set`)

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

from ..state import RESIGN_REQUESTED  # noqa: F401 (the slot's marker, `voter_op`)
from ..tla.layout import ACKED, LOG, LOG_LENGTH, PENDING_LAST_EPOCH, PENDING_LEADER, get
from ..voter_sets import radix

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
FOOTER_CHANGES, BOOT_SET = range(2)
"""The footer's slots (from `KafkaLayout.extra_at`)."""


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
    guarded_voter_changes: bool
    pre_vote: bool
    keeps_vote: bool
    reformat_listed: bool
    spares: int
    max_voter_changes: int
    radix: int
    keys: int
    log_capacity: int
    width: int
    voter_base: int
    voter_stride: int
    end_offset_at: int
    voter_op_at: int
    channel_base: int
    record: int
    extra_at: int


def kafka_layout(replicas: int, values: int, elections: int, restarts: int, disk_losses: int,
                 periodic_begin_quorum: bool, directory_ids: bool, commit_past_epoch_start: bool,
                 guarded_voter_changes: bool = True, spares: int = 0, voter_changes: int = 0,
                 pre_vote: bool = False, keeps_vote: bool = False, reformat_listed: bool = False) -> KafkaLayout:
    """The layout for these bounds and rules; `reformat_listed`: a lost disk is formatted again
    with `--initial-controllers` (`--reformat`). A log holds at most one epoch-start record per
    election, every client value once and one VotersRecord per voter change. A replica key's
    directory id is 0 for a controller's first disk and one more per lost disk formatted anew.
    Rows are padded to a multiple of 8 slots."""
    logs = elections + values + voter_changes
    keys = replicas * (disk_losses + 1) if directory_ids else replicas
    end_offset_at = LOG + 2 * logs
    stride = end_offset_at + keys + 1
    base = ACKED + values
    channel_base = base + replicas * stride
    record = ENTRY_PAIRS + 2 * logs
    extra_at = channel_base + replicas * (replicas - 1) * record
    width = -(-(extra_at + 2) // 8) * 8
    return KafkaLayout(replicas, values, elections, restarts, disk_losses, periodic_begin_quorum, directory_ids,
                       commit_past_epoch_start, guarded_voter_changes, pre_vote, keeps_vote, reformat_listed, spares,
                       voter_changes, radix(replicas), keys, logs, width, base, stride, end_offset_at, end_offset_at + keys,
                       channel_base, record, extra_at)


@kernel
def key_slot(lay, h, directory):
    """Where a leader keeps replica key (controller h, `directory`)'s fetched end offset, from
    `end_offset_at`: one slot per controller under static voters, per controller and directory
    id under KIP-853 (`LeaderState` keeps voters and observers by replica key)."""
    return h * (lay.max_disk_losses + 1) + directory if lay.directory_ids else h


@kernel
def clear_leader_state(t, lay, i):
    """Voter i keeps no leader state: no key's end offset, no pending voter change."""
    for x in range(lay.end_offset_at, lay.voter_stride):
        t[lay.voter_base + i * lay.voter_stride + x] = 0


@kernel
def voter_op(s, lay, i):
    """Leader i's pending RemoveVoter: the offset (1-based) of its VotersRecord, 0 none, or
    RESIGN_REQUESTED."""
    return int(s[lay.voter_base + i * lay.voter_stride + lay.voter_op_at])


@kernel
def set_voter_op(t, lay, i, value):
    """Set leader i's pending RemoveVoter slot (`voter_op`)."""
    t[lay.voter_base + i * lay.voter_stride + lay.voter_op_at] = value


@kernel
def log_end(s, lay, i):
    """Voter i's (index) log end offset (LEO): how many records its log holds."""
    return int(s[lay.voter_base + i * lay.voter_stride + LOG_LENGTH])


@kernel
def in_poll(s, lay, i):
    """Voter i, a leader, has counted records it has not flushed yet: it is inside
    `flushLeaderLog`, between counting its new LEO and flushing."""
    return get(s, lay, i, FLUSHED) < log_end(s, lay, i)
