"""Compact bytes for `spec` states, for engines that ship states between processes.

One byte per field (every field of a bounded state is below 256): the record-id counter,
the quorum (epoch+1, leader+1, ISR), the LeaderAndIsr requests (their epochs are 0, 1, ...
in order, so only leader+1 and ISR are written), then each replica (HW, epoch+1, leader+1,
ISR, LEO, and id and epoch+1 of each record). A 3-replica state takes about 33 bytes.

Decoding interns the parts it builds (replicas, request lists, quorum states): across the
states of one exploration the same replica appears many times, and a dictionary hit is much
cheaper than building the tuples again.
"""

from __future__ import annotations

from .state import LeaderAndIsr, Record, Replica, SpecState

_INTERNED_MAX = 1 << 18
"""Parts remembered per kind before the memo is cleared (bounds a worker's memory)."""


def encode(state: SpecState) -> bytes:
    """The state as compact bytes (see the module docstring for the layout)."""
    q = state.quorum
    out = [state.next_record_id, q.epoch + 1, q.leader + 1, q.isr, len(state.requests)]
    for request in state.requests:
        out += (request.leader + 1, request.isr)
    for rep in state.replicas:
        out += (rep.hw, rep.epoch + 1, rep.leader + 1, rep.isr, len(rep.log))
        for record in rep.log:
            out += (record.id, record.epoch + 1)
    return bytes(out)


class Decoder:
    """Decodes `encode` output for a partition of `replicas` replicas, interning parts."""

    def __init__(self, replicas: int):
        self.replicas = replicas
        self.parts: dict[bytes, object] = {}

    def _part(self, key: bytes, build):
        part = self.parts.get(key)
        if part is None:
            if len(self.parts) >= _INTERNED_MAX:
                self.parts.clear()
            part = self.parts[key] = build(key)
        return part

    def __call__(self, data: bytes) -> SpecState:
        """The state `encode` wrote into `data`."""
        n_requests = data[4]
        at = 5 + 2 * n_requests
        header = self._part(data[:at], _header)
        reps = []
        for _ in range(self.replicas):
            end = at + 5 + 2 * data[at + 4]
            reps.append(self._part(b"r" + data[at:end], _replica))
            at = end
        return SpecState(tuple(reps), data[0], *header)


def _header(key: bytes):
    """(requests, quorum) from the bytes before the first replica."""
    requests = tuple(LeaderAndIsr(epoch, key[5 + 2 * epoch] - 1, key[6 + 2 * epoch]) for epoch in range(key[4]))
    return requests, LeaderAndIsr(key[1] - 1, key[2] - 1, key[3])


def _replica(key: bytes) -> Replica:
    """A replica from its bytes (after the b'r' tag that keeps it apart from headers)."""
    hw, epoch, leader, isr, leo = key[1:6]
    log = tuple(Record(key[i], key[i + 1] - 1) for i in range(6, 6 + 2 * leo, 2))
    return Replica(log, hw, epoch - 1, leader - 1, isr)
