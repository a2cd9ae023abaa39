"""The state of one partition in the `fetch` model, as people read it.

The rules run on packed rows (`model.fetch.layout`); this readable view is what `codec.decode`
makes of a row, for traces, tables, pictures and JSON. Values are NamedTuples of ints and
bools (an empty message slot is the empty tuple, never None: before Python 3.12 `hash(None)`
depends on the process), so states hash the same in every process. Replica ids are 0..N-1
(shown as r1..rN); sets of replicas are bitmasks.
"""

from __future__ import annotations

from typing import NamedTuple

from ..spec.state import NO_EPOCH, NONE, LeaderAndIsr, Record, members, replica_set

__all__ = ["NONE", "NO_EPOCH", "NO_FETCH", "LeaderAndIsr", "Record", "members", "replica_set", "FetchRequest",
           "FetchResponse", "Broker", "Controller", "Pending", "UNSENT", "SENT", "APPENDED", "ACKED", "FAILED",
           "SEND_STATUSES", "STOPS", "ProducerRecord", "ProduceRequest", "FetchState"]


NO_FETCH = ()
"""A follower's fetch slot with nothing in flight."""


class FetchRequest(NamedTuple):
    """A follower's FETCH to `leader`: its fetch offset (its LEO) and its current leader epoch
    (checked by the leader under kip320 only)."""

    leader: int
    offset: int
    epoch: int


class FetchResponse(NamedTuple):
    """The leader's answer: the records from `offset` on and its HW, or `fenced` (the leader
    refused: not leader, or another leader epoch under kip320), or under a majority quorum
    `diverging`: the offset up to which the follower's log agrees with the leader's, when the
    FETCH did not continue the leader's log (-1 otherwise)."""

    leader: int
    offset: int
    records: tuple
    hw: int
    fenced: bool
    diverging: int = -1


class Broker(NamedTuple):
    """One replica's broker. On disk: the log (the first `flushed` records), the HW checkpoint
    and the leader-epoch cache ((epoch, start offset) pairs, kept with the log). In memory:
    the HW, the leader epoch and leader it knows (itself when leading), as leader its ISR and the
    remote LEO of every replica (-1 unknown; -3 - LEO for one that counts for no ISR expansion:
    reported while the replica was in the ISR, or, from kip903 on, before its latest
    registration), its one in-flight fetch, if any, and the LeaderAndIsr requests sent to it and
    not yet handled (it may handle them in any order).
    Under kip966 also how it last stopped (`STOPS`), until the controller sees it register
    again: whether its clean-shutdown marker was there."""

    alive: bool
    log: tuple
    flushed: int
    checkpoint: int
    cache: tuple
    hw: int
    epoch: int
    leader: int
    isr: int
    remote: tuple
    fetch: FetchRequest | FetchResponse | tuple
    inbox: tuple
    last_stop: int = 0

    @property
    def leo(self) -> int:
        """Log end offset: the next offset to be written."""
        return len(self.log)


STOPS = ("running", "clean", "unclean")
"""A broker's last stop, by value (`model.fetch.layout.RUNNING`, `CLEAN_STOP`, `UNCLEAN_STOP`):
none the controller has yet to learn of, a clean shutdown, a crash."""


class Controller(NamedTuple):
    """The controller's record (ZooKeeper, or KRaft's partition record): leader epoch, leader
    (NONE: offline), ISR, and the brokers it has noticed are dead; under kip966 also the
    eligible leader replicas (ELR) and the last known leader (NONE: none kept); under rule
    preferred-replica=rebalanced the partition's preferred replica (NONE: none modelled)."""

    epoch: int
    leader: int
    isr: int
    offline: int
    elr: int = 0
    last_leader: int = NONE
    preferred: int = NONE


class Pending(NamedTuple):
    """An acks=all write waiting for the leader's HW to pass its offset."""

    offset: int
    record: Record
    leader: int
    epoch: int


UNSENT, SENT, APPENDED, ACKED, FAILED = range(5)
"""Where a record stands with a retrying producer (`--retries`): not sent yet; its request in
flight (or lost); appended by a leader, the answer not yet received; acknowledged (with acks=0:
sent, since nothing is waited for); failed (an error or a timeout), waiting for a retry."""
SEND_STATUSES = ("unsent", "sent", "appended", "acked", "failed")
"""The statuses' names, by value."""


class ProducerRecord(NamedTuple):
    """A retrying producer's view of one record (records are sent in id order, and with
    idempotence a record's id is its sequence number): its status and, while it is APPENDED,
    the leader that answered, that leader's epoch then, and the record's offset and epoch in
    that leader's log (for a dropped duplicate, the original's). NONE and -1 otherwise."""

    status: int
    leader: int = NONE
    epoch: int = NO_EPOCH
    offset: int = -1
    record_epoch: int = NO_EPOCH


class ProduceRequest(NamedTuple):
    """A produce request in flight: the record (its id) and the broker it was sent to."""

    record: int
    leader: int


class FetchState(NamedTuple):
    """The whole partition, plus ghost variables that only the invariants read (empty unless an
    invariant needs them): writes waiting for acks=all, acknowledged writes, committed records
    and the highest HW consumers have seen. With `--retries`, also the producer's view of every
    record (`producer`, one `ProducerRecord` per record id) and its produce requests in flight,
    in the order they were sent (`requests`); both are empty otherwise. `disk_losses` counts the
    brokers that restarted on an empty disk (`--max-disk-losses`), `fencings` the live brokers
    the controller fenced (`--max-fencings`)."""

    brokers: tuple
    controller: Controller
    next_record_id: int
    crashes: int
    pending: tuple = ()
    acked: tuple = ()
    committed: tuple = ()
    consumer_hw: int = 0
    producer: tuple = ()
    requests: tuple = ()
    disk_losses: int = 0
    fencings: int = 0

    def request_target(self, rid: int) -> int:
        """The broker that record rid's produce request is in flight to, NONE when none is."""
        return next((q.leader for q in self.requests if q.record == rid), NONE)
