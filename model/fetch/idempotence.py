"""KIP-98's idempotent producer, as the leader sees it: the producer has one producer id and
numbers its records per partition with sequence numbers, and the leader keeps, with its log,
the last sequence number it appended for that producer. Here a record's id is its sequence
number (records are sent in id order), so that state is derived from the leader's log itself:
it moves with the log when a follower fetches, truncates or becomes leader, as Kafka's producer
state snapshots do."""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import leo, record_id


@kernel
def last_sequence(s, lay, r):
    """The highest sequence number (record id) in broker r's log, -1 for a log without one."""
    last = -1
    for offset in range(leo(s, lay, r)):
        last = max(last, record_id(s, lay, r, offset))
    return last


@kernel
def sequence_offset(s, lay, r, rid):
    """The offset of the first record with sequence number rid in broker r's log, -1 if none:
    where a duplicate's original is."""
    for offset in range(leo(s, lay, r)):
        if record_id(s, lay, r, offset) == rid:
            return offset
    return -1


@kernel
def in_sequence(s, lay, r, rid):
    """Broker r's producer state accepts sequence number rid: exactly one past the last one
    appended (Kafka refuses anything else that is not a duplicate with OutOfOrderSequence)."""
    return rid == last_sequence(s, lay, r) + 1
