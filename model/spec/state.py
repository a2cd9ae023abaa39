"""The state of one replicated partition in the `spec` model.

Every value is a tuple of small ints (`NamedTuple`s for readable field names), so states are
immutable, cheap to hash, and hash the same in every process. Replica ids are 0..N-1 and are
shown to people as r1..rN. A set of replicas (an ISR) is a bitmask: bit r set means replica r
is a member.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple

NONE = -1
"""No replica: the leader field of a replica that follows nobody, or of a leaderless quorum."""

NO_EPOCH = -1
"""The leader epoch of a replica that has not received any LeaderAndIsr request yet."""


class Record(NamedTuple):
    """One producer write: its unique id and the leader epoch of the leader that appended it."""

    id: int
    epoch: int


class LeaderAndIsr(NamedTuple):
    """A leader epoch with its leader and ISR: the controller's record in ZooKeeper (the
    quorum state) and the content of the LeaderAndIsr requests it sends to the replicas."""

    epoch: int
    leader: int
    isr: int


class Replica(NamedTuple):
    """One replica's log and its local view of the partition (`rs[r]` in the description):
    its high watermark (HW), the leader epoch it knows, the leader it follows (itself when it
    presumes leadership) and the ISR it was told about (or keeps, as leader)."""

    log: tuple[Record, ...]
    hw: int
    epoch: int
    leader: int
    isr: int

    @property
    def leo(self) -> int:
        """Log end offset: the offset the next appended record gets (the log's length)."""
        return len(self.log)


class SpecState(NamedTuple):
    """The whole partition: every replica, the producer's record-id counter, every
    LeaderAndIsr request ever sent (in epoch order; the set only grows, which models loss,
    delay, reordering and duplication of requests) and the controller's quorum state.

    The next leader epoch the controller would hand out is `quorum.epoch + 1`: each
    controller update takes the next epoch, so it needs no variable of its own.
    """

    replicas: tuple[Replica, ...]
    next_record_id: int
    requests: tuple[LeaderAndIsr, ...]
    quorum: LeaderAndIsr

    @property
    def next_epoch(self) -> int:
        """The leader epoch the controller's next update will use."""
        return self.quorum.epoch + 1


def members(isr: int) -> Iterator[int]:
    """The replica ids in a replica set (an ISR bitmask), in increasing order."""
    r = 0
    while isr:
        if isr & 1:
            yield r
        isr >>= 1
        r += 1


def replica_set(ids) -> int:
    """The replica set (bitmask) holding exactly `ids`."""
    mask = 0
    for r in ids:
        mask |= 1 << r
    return mask


def initial_state(replicas: int) -> SpecState:
    """Every log empty, no replica has heard from the controller (epoch -1, no leader, empty
    ISR, HW 0), and the quorum has no leader, epoch -1 and every replica in its ISR."""
    nobody = Replica(log=(), hw=0, epoch=NO_EPOCH, leader=NONE, isr=0)
    return SpecState(
        replicas=(nobody,) * replicas,
        next_record_id=0,
        requests=(),
        quorum=LeaderAndIsr(epoch=NO_EPOCH, leader=NONE, isr=replica_set(range(replicas))),
    )


def with_replica(state: SpecState, r: int, replica: Replica) -> SpecState:
    """`state` with replica r replaced."""
    replicas = state.replicas
    return SpecState(replicas[:r] + (replica,) + replicas[r + 1:], state.next_record_id, state.requests, state.quorum)
