"""Readable `spec` states to packed rows and back. The readable `SpecState` that traces,
tables, pictures and JSON show is always derived from a packed row by `decode`."""

from __future__ import annotations

import numpy as np

from .bounds import SpecBounds
from .layout import (EPOCH, HW, ISR, LEADER, LEO, LOG, QUORUM_EPOCH, QUORUM_ISR, QUORUM_LEADER, REQUESTS,
                     NEXT_RECORD_ID, NOT_SENT, SpecLayout, spec_layout)
from .state import LeaderAndIsr, Record, Replica, SpecState


def encode(state: SpecState, lay: SpecLayout) -> np.ndarray:
    """The state as a packed row (see `model.spec.layout`)."""
    row = np.zeros(lay.width, np.int8)
    q = state.quorum
    row[[NEXT_RECORD_ID, QUORUM_EPOCH, QUORUM_LEADER, QUORUM_ISR]] = (state.next_record_id, q.epoch, q.leader, q.isr)
    for request in state.requests:
        at = REQUESTS + 2 * request.epoch
        if row[at] != NOT_SENT:
            raise ValueError(f"two LeaderAndIsr requests in epoch {request.epoch}")
        row[at:at + 2] = (request.leader + 2, request.isr)
    for r, rep in enumerate(state.replicas):
        at = lay.replica_base + r * lay.replica_stride
        row[at + HW], row[at + EPOCH], row[at + LEADER], row[at + ISR], row[at + LEO] = (
            rep.hw, rep.epoch, rep.leader, rep.isr, len(rep.log))
        for k, record in enumerate(rep.log):
            row[at + LOG + 2 * k:at + LOG + 2 * k + 2] = record
    return row


def decode(row, lay: SpecLayout) -> SpecState:
    """The readable state a packed row stands for."""
    v = row.tolist() if hasattr(row, "tolist") else list(row)
    requests = tuple(LeaderAndIsr(e, v[REQUESTS + 2 * e] - 2, v[REQUESTS + 2 * e + 1])
                     for e in range(lay.max_epoch + 1) if v[REQUESTS + 2 * e] != NOT_SENT)
    replicas = []
    for r in range(lay.replicas):
        at = lay.replica_base + r * lay.replica_stride
        log = tuple(Record(v[at + LOG + 2 * k], v[at + LOG + 2 * k + 1]) for k in range(v[at + LEO]))
        replicas.append(Replica(log, v[at + HW], v[at + EPOCH], v[at + LEADER], v[at + ISR]))
    return SpecState(tuple(replicas), v[NEXT_RECORD_ID], requests,
                     LeaderAndIsr(v[QUORUM_EPOCH], v[QUORUM_LEADER], v[QUORUM_ISR]))


def fitting_layout(state: SpecState) -> SpecLayout:
    """A layout large enough to hold `state`, for evaluating predicates on a readable state
    whose bounds are not at hand."""
    epochs = [q.epoch for q in state.requests] + [state.quorum.epoch] + [rep.epoch for rep in state.replicas]
    return spec_layout(SpecBounds(len(state.replicas), max([1] + [len(rep.log) for rep in state.replicas]),
                                  state.next_record_id, max([1] + epochs)), "hw")
