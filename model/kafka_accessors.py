"""What the packed rows of both Kafka models (`spec` and `fetch`) share, and its accessors.

Both rows start with the count of producer writes so far (slot `NEXT_RECORD_ID`), both name
replica sets as bitmasks, and both keep one block of slots per replica, replica r's at
`lay.replica_base + r * lay.replica_stride`. In that block: the replica's view of the partition,
four slots from `VIEW_AT` (its HW, the leader epoch it knows, the leader it follows and the ISR it
knows or keeps, in that order), its log end offset at `LEO_AT`, and its log from `LOG_AT`, one
(record id, leader epoch) pair per offset. Each model's layout tuple carries the block's place and
size as fields (`replicas`, `replica_base`, `replica_stride`: they depend on the bounds) and the
three places inside a block as constants of its class (`VIEW_AT`, `LEO_AT`, `LOG_AT`: they do not),
so compiled accessors see those as numbers, as each model's own accessors see its slot names.
Each model's layout module re-exports these accessors beside those only it has, so a rule reads
`hw(s, lay, r)` whichever model it belongs to.
"""

from __future__ import annotations

from checker.kernel.jit import kernel, overload_when_compiled
from checker.kernel.layout_record import layout_class

NEXT_RECORD_ID = 0
"""The row's first slot: how many producer writes have happened."""
VIEW_HW, VIEW_EPOCH, VIEW_LEADER, VIEW_ISR = range(4)
"""A replica's view of the partition, slot by slot from its block's `VIEW_AT`."""


def _places(kind) -> tuple[int, int, int]:
    return kind.VIEW_AT, kind.LEO_AT, kind.LOG_AT


def block_places(lay) -> tuple[int, int, int]:
    """Where, inside a replica's block, its view, its LEO and its log start (`VIEW_AT`, `LEO_AT`,
    `LOG_AT` of the layout's class)."""
    return _places(type(lay))


@overload_when_compiled(block_places)
def _block_places_as_constants(lay):
    """In compiled code the places are read off the layout's class (`layout_record`: the
    compiled code has the layout as a record) while the caller is compiled, so they stand in its
    machine code as numbers, not as loads."""
    from numba.core import types  # only while compiling

    kind = layout_class(lay.dtype.names) if isinstance(lay, types.Record) else lay.instance_class
    places = _places(kind)
    return lambda lay: places


# ----- producer writes ----------------------------------------------------------------------------


@kernel
def next_record_id(s, lay):
    """How many producer writes have happened (the next write's id)."""
    return s[NEXT_RECORD_ID]


@kernel
def count_write(t, lay):
    """One more producer write has happened."""
    t[NEXT_RECORD_ID] += 1


# ----- replica sets -------------------------------------------------------------------------------


@kernel
def member(replicas, r):
    """Replica r is in the replica set (bitmask) `replicas`."""
    return (replicas >> r) & 1 == 1


# ----- one replica's view: HW, epoch, leader, ISR -------------------------------------------------


@kernel
def block_at(lay, r):
    """Where replica r's block of slots starts."""
    return lay.replica_base + r * lay.replica_stride


@kernel
def view_at(lay, r):
    """Where replica r's view starts: its HW, then its epoch, leader and ISR."""
    at, _, _ = block_places(lay)
    return block_at(lay, r) + at


@kernel
def leo_at(lay, r):
    """Where replica r's log end offset is."""
    _, at, _ = block_places(lay)
    return block_at(lay, r) + at


@kernel
def log_at(lay, r):
    """Where replica r's log starts (offset 0's record id, then its epoch, then offset 1's...)."""
    _, _, at = block_places(lay)
    return block_at(lay, r) + at


@kernel
def hw(s, lay, r):
    """Replica r's high watermark."""
    return s[view_at(lay, r) + VIEW_HW]


@kernel
def set_hw(t, lay, r, value):
    """Replica r's HW becomes `value`."""
    t[view_at(lay, r) + VIEW_HW] = value


@kernel
def epoch(s, lay, r):
    """The leader epoch replica r knows (-1 before it heard of any)."""
    return s[view_at(lay, r) + VIEW_EPOCH]


@kernel
def leader(s, lay, r):
    """The leader replica r follows (itself when it leads; NONE when it knows none)."""
    return s[view_at(lay, r) + VIEW_LEADER]


@kernel
def isr(s, lay, r):
    """The ISR replica r knows (`spec`) or keeps as leader (`fetch`)."""
    return s[view_at(lay, r) + VIEW_ISR]


@kernel
def set_isr(t, lay, r, value):
    """Replica r's ISR becomes `value`."""
    t[view_at(lay, r) + VIEW_ISR] = value


@kernel
def set_view(t, lay, r, new_epoch, new_leader, new_isr):
    """Replica r's leader epoch, leader and ISR become these (it takes a LeaderAndIsr)."""
    at = view_at(lay, r)
    t[at + VIEW_EPOCH] = new_epoch
    t[at + VIEW_LEADER] = new_leader
    t[at + VIEW_ISR] = new_isr


# ----- one replica's log --------------------------------------------------------------------------


@kernel
def leo(s, lay, r):
    """Replica r's log end offset: the next offset to be written (its log's length)."""
    return s[leo_at(lay, r)]


@kernel
def record_id(s, lay, r, offset):
    """The producer-write id of the record at `offset` in replica r's log."""
    return s[log_at(lay, r) + 2 * offset]


@kernel
def record_epoch(s, lay, r, offset):
    """The leader epoch of the record at `offset` in replica r's log."""
    return s[log_at(lay, r) + 2 * offset + 1]


@kernel
def same_record(s, lay, r1, r2, offset):
    """Replicas r1 and r2 hold the very same record (id and epoch) at `offset`."""
    return (record_id(s, lay, r1, offset) == record_id(s, lay, r2, offset)
            and record_epoch(s, lay, r1, offset) == record_epoch(s, lay, r2, offset))


@kernel
def append(t, lay, r, rid, repoch):
    """Replica r appends record (rid, repoch) at its LEO."""
    end = t[leo_at(lay, r)]
    t[log_at(lay, r) + 2 * end] = rid
    t[log_at(lay, r) + 2 * end + 1] = repoch
    t[leo_at(lay, r)] = end + 1


@kernel
def truncate(t, lay, r, k):
    """Replica r keeps the first k records of its log."""
    log = log_at(lay, r)
    for i in range(2 * k, 2 * t[leo_at(lay, r)]):
        t[log + i] = 0
    t[leo_at(lay, r)] = k
