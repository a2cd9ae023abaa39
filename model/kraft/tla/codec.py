"""Readable `KRaftState`s of variant `tla` to packed rows and back (a bijection), and action
codes to the actions people read. The readable state that traces, tables, pictures and JSON
show is always derived from a packed row by `decode`."""

from __future__ import annotations

import numpy as np

from ..messages import (BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FETCH_REQUEST, FETCH_RESPONSE, VOTE_REQUEST,
                        VOTE_RESPONSE)
from ..state import KRaftState
from . import messages as msg
from .bag import MESSAGE_SLOTS
from .kinds import ACTION_KINDS, ARITIES, HANDLERS
from .layout import (ACKED, BAG_SIZE, COUNT, ELECTIONS, EPOCH, HW, LEADER, LOG, LOG_LENGTH, PENDING_LAST_EPOCH,
                     PENDING_LEADER, RECORD, RESTARTS, ROLE, VOTED_FOR, VOTES, TlaLayout, tla_layout)

READABLE_LENGTH = {VOTE_REQUEST: 6, VOTE_RESPONSE: 7, BEGIN_QUORUM_REQUEST: 4, BEGIN_QUORUM_RESPONSE: 5,
                   FETCH_REQUEST: 6}
"""How many items a readable message of each type but FETCH response has."""


def flat(m: tuple) -> tuple:
    """A readable message (`model.kraft.messages`) as a packed message (`model.kraft.tla.messages`)."""
    if m[0] != FETCH_RESPONSE:
        return tuple(m) + (0,) * (MESSAGE_SLOTS - len(m))
    *head, entries, correlation = m
    entry = entries[0] if entries else (0, 0)
    return (*head, *entry, *correlation[3:6])


def readable(m) -> tuple:
    """A packed message as the readable tuple `model.kraft.messages` builds."""
    m = tuple(int(x) for x in m)
    if m[0] != FETCH_RESPONSE:
        return m[:READABLE_LENGTH[m[0]]]
    entries = ((m[msg.ENTRY_EPOCH], m[msg.ENTRY_VALUE]),) if m[msg.ENTRY_EPOCH] else ()
    correlation = (FETCH_REQUEST, m[msg.DEST], m[msg.SOURCE], m[msg.ASKED_EPOCH], m[msg.ASKED_OFFSET],
                   m[msg.ASKED_LAST_EPOCH])
    return (*m[:msg.ENTRY_EPOCH], entries, correlation)


def encode_voters(state: KRaftState, lay: TlaLayout) -> np.ndarray:
    """A row holding the counters, the values' fates and every voter's own variables of any
    `kraft` state, its bag left empty: all the invariants read (`invariants.kraft`)."""
    row = np.zeros(lay.width, np.int8)
    row[ELECTIONS], row[RESTARTS] = state.elections, state.restarts
    row[ACKED:ACKED + len(state.acked)] = state.acked
    for i in range(len(state.role)):
        at = lay.voter_base + i * lay.voter_stride
        row[at + EPOCH], row[at + ROLE], row[at + VOTED_FOR], row[at + LEADER], row[at + HW] = (
            state.epoch[i], state.role[i], state.voted_for[i], state.leader[i], state.hw[i])
        log = state.log[i]
        row[at + LOG_LENGTH] = len(log)
        for k, (epoch, value) in enumerate(log):
            row[at + LOG + 2 * k], row[at + LOG + 2 * k + 1] = epoch, value
    return row


def encode(state: KRaftState, lay: TlaLayout) -> np.ndarray:
    """The `tla` state as a packed row (see `model.kraft.tla.layout`)."""
    row = encode_voters(state, lay)
    for i in range(lay.replicas):
        at = lay.voter_base + i * lay.voter_stride
        row[at + VOTES] = state.votes[i]
        if state.pending[i]:
            row[at + PENDING_LEADER:at + PENDING_LAST_EPOCH + 1] = state.pending[i][2:6]
        row[at + lay.end_offset_at:at + lay.end_offset_at + lay.replicas] = state.end_offset[i]
    if len(state.messages) > lay.bag_capacity:
        raise ValueError(f"{len(state.messages)} messages do not fit a bag of {lay.bag_capacity}")
    row[BAG_SIZE] = len(state.messages)
    for k, (m, count) in enumerate(sorted((flat(m), c) for m, c in state.messages)):
        b = lay.bag_base + k * RECORD
        row[b:b + MESSAGE_SLOTS] = m
        row[b + COUNT] = count
    return row


def decode_voters(v: list, lay) -> KRaftState:
    """The readable counters, values' fates and every voter's own variables of packed row `v`
    (a list) in `tla`'s layout or one that shares its header and voter blocks, with no message
    in flight and no FETCH pending."""
    n = lay.replicas
    blocks = [v[lay.voter_base + i * lay.voter_stride:lay.voter_base + (i + 1) * lay.voter_stride] for i in range(n)]
    return KRaftState(
        epoch=tuple(b[EPOCH] for b in blocks), role=tuple(b[ROLE] for b in blocks),
        voted_for=tuple(b[VOTED_FOR] for b in blocks), leader=tuple(b[LEADER] for b in blocks),
        pending=((),) * n,
        log=tuple(tuple((b[LOG + 2 * k], b[LOG + 2 * k + 1]) for k in range(b[LOG_LENGTH])) for b in blocks),
        hw=tuple(b[HW] for b in blocks), votes=tuple(b[VOTES] for b in blocks),
        end_offset=tuple(tuple(b[lay.end_offset_at:lay.end_offset_at + n]) for b in blocks),
        messages=(), acked=tuple(v[ACKED:ACKED + lay.values]), elections=v[ELECTIONS], restarts=v[RESTARTS])


def decode(row, lay: TlaLayout) -> KRaftState:
    """The readable state a packed `tla` row stands for."""
    v = row.tolist() if hasattr(row, "tolist") else list(row)

    def pending(i: int) -> tuple:
        b = lay.voter_base + i * lay.voter_stride
        if not v[b + PENDING_LEADER]:
            return ()
        return (FETCH_REQUEST, i + 1, *v[b + PENDING_LEADER:b + PENDING_LAST_EPOCH + 1])

    bag = []
    for k in range(v[BAG_SIZE]):
        b = lay.bag_base + k * RECORD
        bag.append((readable(v[b:b + MESSAGE_SLOTS]), v[b + COUNT]))
    return decode_voters(v, lay)._replace(pending=tuple(pending(i) for i in range(lay.replicas)),
                                          messages=tuple(sorted(bag)))


def fitting_layout(*states: KRaftState) -> TlaLayout:
    """A layout holding the voters of any `kraft` states of one model (their bags left out),
    for evaluating the invariants and step properties on readable states (`encode_voters`)."""
    logs = max([1] + [len(log) for state in states for log in state.log])
    return tla_layout(len(states[0].role), len(states[0].acked), 0, 0, log_capacity=logs, capacity=0)


def action_value(lay: TlaLayout, code_fields: tuple, row) -> tuple:
    """The readable action of an action code's fields (kind, a, b, c) taken from packed `row`:
    (name, voter) or (name, voter, value or leader) for a voter's own step, and for a step
    that handles a message (name, receiver, sender, the message's epoch), as the
    specification's actions are named."""
    kind, a, b, c = code_fields
    if kind not in HANDLERS:
        return (ACTION_KINDS[kind], a, b)[:1 + ARITIES[kind]]
    at = lay.bag_base + ((b << 4) | c) * RECORD
    return ACTION_KINDS[kind], a, int(row[at + msg.SOURCE]), int(row[at + msg.EPOCH])
