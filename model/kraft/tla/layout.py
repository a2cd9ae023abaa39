"""The packed state of variant `tla`: one row of int8 slots, read and written through the
accessors below, the only code that knows offsets.

    header   elections, restarts, messages in the bag, then each client value's fate
             (0 not written, WRITTEN, ACKED)
    voter    epoch, role, voted for, leader, HW, votes granted (a bitmask), the pending FETCH
             (its leader, epoch, fetch offset and last fetched epoch; leader 0: none), log
             length, one (epoch, value) pair per log entry, then as leader each voter's
             fetched end offset
    bag      the messages ever sent, sorted, one record of `RECORD` slots each (`model.kraft.tla.bag`)

Voters are 1..n wherever a slot names one (0 is Nil) and 0..n-1 as block indices, as in the
readable `KRaftState`. Slots past a log's length and past the bag's last record are 0, so each
state has exactly one row. Bounds travel at run time in `TlaLayout`: one compiled kernel serves
every bounds set."""

from __future__ import annotations

from typing import NamedTuple

from checker.kernel.jit import kernel

ELECTIONS, RESTARTS, BAG_SIZE, ACKED = range(4)
EPOCH, ROLE, VOTED_FOR, LEADER, HW, VOTES, PENDING_LEADER, PENDING_EPOCH, PENDING_OFFSET, PENDING_LAST_EPOCH, \
    LOG_LENGTH, LOG = range(12)
RECORD = 16
"""Slots per message in the bag: its type, source, destination and epoch, its own fields
(`model.kraft.tla.messages`), and last its count of copies in flight."""
COUNT = RECORD - 1


class TlaLayout(NamedTuple):
    """Bounds and where things are (see the module docstring)."""

    replicas: int
    values: int
    max_elections: int
    max_restarts: int
    bag_capacity: int
    log_capacity: int
    width: int
    voter_base: int
    voter_stride: int
    end_offset_at: int
    bag_base: int


def bag_capacity(replicas: int, values: int, elections: int, restarts: int) -> int:
    """How many distinct messages one behaviour may send, as a bound the bag is sized by: per
    election a Vote request and response and a BeginQuorumEpoch request and response to each
    other voter, and per follower, epoch and log position a FETCH, its answer and an error
    (a search that outgrows it stops with an error; none has)."""
    epochs = elections + 1
    return 4 * (replicas - 1) * elections + 3 * replicas * epochs * (values + 1) * (restarts + 1)


def tla_layout(replicas: int, values: int, elections: int, restarts: int, log_capacity: int | None = None,
               capacity: int | None = None) -> TlaLayout:
    """The layout for these bounds; `log_capacity` and `capacity` (of the bag) default to what
    the bounds allow. Rows are padded to a multiple of 8 slots."""
    logs = values if log_capacity is None else log_capacity
    bag = bag_capacity(replicas, values, elections, restarts) if capacity is None else capacity
    end_offset_at = LOG + 2 * logs
    stride = end_offset_at + replicas
    base = ACKED + values
    bag_base = base + replicas * stride
    width = -(-(bag_base + bag * RECORD) // 8) * 8
    return TlaLayout(replicas, values, elections, restarts, bag, logs, width, base, stride, end_offset_at, bag_base)


@kernel
def get(s, lay, i, field):
    """Voter i's (index) slot `field` (EPOCH, ROLE, ...)."""
    return int(s[lay.voter_base + i * lay.voter_stride + field])


@kernel
def put(t, lay, i, field, value):
    """Set voter i's (index) slot `field`."""
    t[lay.voter_base + i * lay.voter_stride + field] = value


@kernel
def log_length(s, lay, i):
    """How many entries voter i's log holds: its end offset (offsets are 1-based)."""
    return int(s[lay.voter_base + i * lay.voter_stride + LOG_LENGTH])


@kernel
def entry_epoch(s, lay, i, offset):
    """The epoch of the entry at `offset` (1-based) of voter i's log."""
    return int(s[lay.voter_base + i * lay.voter_stride + LOG + 2 * (offset - 1)])


@kernel
def entry_value(s, lay, i, offset):
    """The client value of the entry at `offset` (1-based) of voter i's log."""
    return int(s[lay.voter_base + i * lay.voter_stride + LOG + 2 * (offset - 1) + 1])


@kernel
def holds_value(s, lay, i, v):
    """Voter i's log has an entry of client value v."""
    for offset in range(1, log_length(s, lay, i) + 1):
        if entry_value(s, lay, i, offset) == v:
            return True
    return False


@kernel
def last_epoch(s, lay, i):
    """The epoch of voter i's last entry, 0 for an empty log."""
    n = log_length(s, lay, i)
    return entry_epoch(s, lay, i, n) if n > 0 else 0


@kernel
def append(t, lay, i, epoch, value):
    """Voter i's log gets the entry (epoch, value) at its end."""
    base = lay.voter_base + i * lay.voter_stride
    n = t[base + LOG_LENGTH]
    if n >= lay.log_capacity:
        raise OverflowError("a kraft log outgrew its layout")
    t[base + LOG + 2 * n] = epoch
    t[base + LOG + 2 * n + 1] = value
    t[base + LOG_LENGTH] = n + 1


@kernel
def truncate(t, lay, i, length):
    """Voter i's log cut to its first `length` entries (the slots after them zeroed)."""
    base = lay.voter_base + i * lay.voter_stride
    for k in range(2 * length, 2 * t[base + LOG_LENGTH]):
        t[base + LOG + k] = 0
    t[base + LOG_LENGTH] = length


@kernel
def end_offset(s, lay, i, k):
    """Leader i's record of the end offset voter k (index) last fetched from."""
    return int(s[lay.voter_base + i * lay.voter_stride + lay.end_offset_at + k])


@kernel
def set_end_offset(t, lay, i, k, value):
    """Leader i records that voter k (index) fetched from `value`."""
    t[lay.voter_base + i * lay.voter_stride + lay.end_offset_at + k] = value


@kernel
def clear_end_offsets(t, lay, i):
    """Voter i keeps no leader state: every voter's fetched end offset 0."""
    for k in range(lay.replicas):
        t[lay.voter_base + i * lay.voter_stride + lay.end_offset_at + k] = 0


@kernel
def has_pending(s, lay, i):
    """Voter i waits for the answer to a FETCH."""
    return get(s, lay, i, PENDING_LEADER) != 0


@kernel
def clear_pending(t, lay, i):
    """Voter i waits for no FETCH answer."""
    for field in range(PENDING_LEADER, PENDING_LAST_EPOCH + 1):
        put(t, lay, i, field, 0)


@kernel
def acked(s, lay, v):
    """What became of client value v (1..m): 0 not written, WRITTEN or ACKED."""
    return int(s[ACKED + v - 1])


@kernel
def set_acked(t, lay, v, fate):
    """Client value v (1..m) is now `fate` (WRITTEN or ACKED)."""
    t[ACKED + v - 1] = fate
