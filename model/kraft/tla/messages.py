"""The specification's messages as packed records (`model.kraft.tla.layout.RECORD` slots): a
message is a tuple of 15 small ints, (type, source, destination, epoch, its own fields, zeros),
the readable message of `model.kraft.messages` flattened:

    Vote request              last log epoch, last log offset
    Vote response             leader, granted, error
    BeginQuorumEpoch          -
    BeginQuorumEpoch response error
    FETCH                     fetch offset, last fetched epoch
    FETCH response            result, error, leader, HW, diverging epoch, diverging end offset,
                              the entry sent (epoch, value; 0, 0 for none), and the FETCH it
                              answers (its epoch, fetch offset, last fetched epoch; its source
                              and destination are the response's, swapped)
"""

from __future__ import annotations

import numpy as np

from checker.kernel.jit import kernel

from ..messages import BEGIN_QUORUM_RESPONSE, FETCH_REQUEST, FETCH_RESPONSE, VOTE_RESPONSE

TYPE, SOURCE, DEST, EPOCH = range(4)
FIELDS = 4
"""Where a message's own fields start."""
LAST_LOG_EPOCH, LAST_LOG_OFFSET = 4, 5  # Vote request
LEADER, GRANTED, ERROR = 4, 5, 6  # Vote response
BEGIN_QUORUM_ERROR = 4  # BeginQuorumEpoch response
FETCH_OFFSET, LAST_FETCHED_EPOCH = 4, 5  # FETCH
RESULT, FETCH_ERROR, FETCH_LEADER, HWM, DIVERGING_EPOCH, DIVERGING_END_OFFSET, ENTRY_EPOCH, ENTRY_VALUE, \
    ASKED_EPOCH, ASKED_OFFSET, ASKED_LAST_EPOCH = range(4, 15)  # FETCH response


@kernel
def _pack(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o):
    """A message of 15 items as one tuple of 64-bit ints (numba indexes only a tuple of one type)."""
    return (np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e), np.int64(f), np.int64(g), np.int64(h),
            np.int64(i), np.int64(j), np.int64(k), np.int64(l), np.int64(m), np.int64(n), np.int64(o))


@kernel
def request(kind, src, dst, epoch, a, b):
    """A request of type `kind` (Vote: a, b are where the candidate's log ends, its last epoch
    and offset; BeginQuorumEpoch: none, 0 and 0) from voter src to voter dst in `epoch`."""
    return _pack(kind, src, dst, epoch, a, b, 0, 0, 0, 0, 0, 0, 0, 0, 0)


@kernel
def vote_response(src, dst, epoch, leader, granted, error):
    """A voter's answer to a Vote request: the leader it knows, its vote, an error."""
    return _pack(VOTE_RESPONSE, src, dst, epoch, leader, granted, error, 0, 0, 0, 0, 0, 0, 0, 0)


@kernel
def begin_quorum_response(src, dst, epoch, error):
    """A voter's answer to BeginQuorumEpoch (the specification handles none)."""
    return _pack(BEGIN_QUORUM_RESPONSE, src, dst, epoch, error, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


@kernel
def fetch_request(src, dst, epoch, fetch_offset, last_fetched_epoch):
    """A follower's FETCH: its epoch, its log end offset and the epoch of its last entry."""
    return _pack(FETCH_REQUEST, src, dst, epoch, fetch_offset, last_fetched_epoch, 0, 0, 0, 0, 0, 0, 0, 0, 0)


@kernel
def fetch_response(request, epoch, result, error, leader, hwm, diverging_epoch, diverging_end_offset,
                   entry_epoch, entry_value):
    """The answer to FETCH `request` from its destination, in `epoch` (the answering voter's)."""
    return _pack(FETCH_RESPONSE, request[DEST], request[SOURCE], epoch, result, error, leader, hwm, diverging_epoch,
            diverging_end_offset, entry_epoch, entry_value, request[EPOCH], request[FETCH_OFFSET],
            request[LAST_FETCHED_EPOCH])
