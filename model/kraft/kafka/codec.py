"""Readable `KRaftState`s of the faithful variants to packed rows and back (a bijection). The
readable state that traces, tables, pictures and JSON show is always derived from a packed row
by `decode`; the messages are `model.kraft.messages`' tuples, requests ending with whether their
sender still expects the answer, FETCH responses with the records they carry and an empty
correlation."""

from __future__ import annotations

import numpy as np

from ..messages import (BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, FETCH_REQUEST, FETCH_RESPONSE, PRE_VOTE_REQUEST,
                        VOTE_REQUEST, VOTE_RESPONSE)
from ..state import KRaftState
from ..tla.codec import decode_voters, encode_voters
from ..tla.layout import VOTES
from .channels import connection, is_request
from .layout import (BOOT_SET, DIRECTORY, DISK_LOSSES, ENTRIES, ENTRY_PAIRS, EPOCH_SENT, FLUSHED, FOOTER_CHANGES, HEARD,
                     KIND, LIVE, START_OFFSET, A, KafkaLayout)

FIELDS = {VOTE_REQUEST: 3, VOTE_RESPONSE: 3, BEGIN_QUORUM_REQUEST: 1, BEGIN_QUORUM_RESPONSE: 2, FETCH_REQUEST: 4,
          FETCH_RESPONSE: 6, PRE_VOTE_REQUEST: 3}
"""How many of a record's fields A, B, ... each type of message uses."""


def _connection(m: tuple) -> tuple[int, int]:
    """The (requester, receiver) indices of the connection message m travels on."""
    source, dest = m[1] - 1, m[2] - 1
    return (source, dest) if is_request(m[0]) else (dest, source)


def encode(state: KRaftState, lay: KafkaLayout) -> np.ndarray:
    """A faithful state as a packed row (see `model.kraft.kafka.layout`); ValueError for a
    state that is none (two messages on one connection, a record too many)."""
    row = encode_voters(state, lay)
    row[DISK_LOSSES] = state.disk_losses
    for i in range(lay.replicas):
        at = lay.voter_base + i * lay.voter_stride
        row[at + VOTES], row[at + FLUSHED], row[at + START_OFFSET], row[at + HEARD], row[at + DIRECTORY] = (
            state.votes[i], state.flushed[i], state.start_offset[i], state.heard[i], state.directory[i])
        row[at + lay.end_offset_at:at + lay.end_offset_at + lay.keys] = state.end_offset[i]
        row[at + lay.voter_op_at] = state.voter_op[i]
    row[lay.extra_at + FOOTER_CHANGES], row[lay.extra_at + BOOT_SET] = state.voter_changes, state.boot
    for m, _ in state.messages:
        at = connection(lay, *_connection(m))
        if row[at + KIND]:
            raise ValueError(f"two messages on one connection: {m}")
        row[at + KIND], row[at + EPOCH_SENT] = m[0], m[3]
        fields = m[4:4 + FIELDS[m[0]]]
        row[at + A:at + A + len(fields)] = fields
        if is_request(m[0]):
            row[at + LIVE] = m[-1]
        elif m[0] == FETCH_RESPONSE:
            entries = m[10]
            row[at + ENTRIES] = len(entries)
            row[at + ENTRY_PAIRS:at + ENTRY_PAIRS + 2 * len(entries)] = [x for entry in entries for x in entry]
    return row


def _message(v: list, at: int, requester: int, receiver: int) -> tuple:
    """The readable message in the record at `at` of the connection (requester, receiver)."""
    kind = v[at + KIND]
    fields = tuple(v[at + A:at + A + FIELDS[kind]])
    if is_request(kind):
        return (kind, requester + 1, receiver + 1, v[at + EPOCH_SENT], *fields, v[at + LIVE])
    head = (kind, receiver + 1, requester + 1, v[at + EPOCH_SENT], *fields)
    if kind != FETCH_RESPONSE:
        return head
    pairs = v[at + ENTRY_PAIRS:at + ENTRY_PAIRS + 2 * v[at + ENTRIES]]
    return (*head, tuple(zip(pairs[::2], pairs[1::2])), ())


def decode(row, lay: KafkaLayout) -> KRaftState:
    """The readable state a packed faithful row stands for."""
    v = row.tolist() if hasattr(row, "tolist") else list(row)
    n = lay.replicas
    messages = [(_message(v, connection(lay, i, j), i, j), 1) for i in range(n) for j in range(n)
                if i != j and v[connection(lay, i, j) + KIND]]
    blocks = [v[lay.voter_base + i * lay.voter_stride:lay.voter_base + (i + 1) * lay.voter_stride] for i in range(n)]
    return decode_voters(v, lay)._replace(
        messages=tuple(sorted(messages)),
        flushed=tuple(b[FLUSHED] for b in blocks), start_offset=tuple(b[START_OFFSET] for b in blocks),
        heard=tuple(b[HEARD] for b in blocks), directory=tuple(b[DIRECTORY] for b in blocks),
        disk_losses=v[DISK_LOSSES],
        end_offset=tuple(tuple(b[lay.end_offset_at:lay.end_offset_at + lay.keys]) for b in blocks),
        voter_op=tuple(b[lay.voter_op_at] for b in blocks), voter_changes=v[lay.extra_at + FOOTER_CHANGES],
        boot=v[lay.extra_at + BOOT_SET])
