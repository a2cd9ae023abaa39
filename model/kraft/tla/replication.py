"""Variant `tla`'s replication steps, one kernel function per action of the specification,
named as it names them: ClientRequest, SendFetchRequest, RejectFetchRequest,
DivergingFetchRequest, AcceptFetchRequest, HandleSuccessFetchResponse,
HandleDivergingFetchResponse, HandleErrorFetchResponse."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..messages import DIVERGING, FENCED_LEADER_EPOCH, NOT_LEADER, NOT_OK, OK, UNKNOWN_LEADER
from ..state import ACKED, FOLLOWER, LEADER, NIL, WRITTEN
from . import messages as msg
from .bag import add, discard, reply
from .elections import handler_code
from .guards import (ANSWER_NEW, ANSWERS_PENDING, CLIENT_LEADS, FOLLOWS, POSITION_INVALID, POSITION_VALID,
                     VALUE_UNWRITTEN, WRONG_LEADER)
from .kinds import (ACCEPT_FETCH, CLIENT_REQUEST, DIVERGING_FETCH, HANDLE_DIVERGING, HANDLE_FETCHED,
                    HANDLE_FETCH_ERROR, REJECT_FETCH, SEND_FETCH)
from .layout import (EPOCH, HW, LEADER as LEADER_AT, PENDING_EPOCH, PENDING_LAST_EPOCH, PENDING_LEADER,
                     PENDING_OFFSET, ROLE, acked, append, clear_pending, entry_epoch, entry_value, get,
                     has_pending, last_epoch, log_length, put, set_acked, set_end_offset, truncate)
from .logs import end_offset_for_epoch, highest_common_offset, new_high_watermark, valid_fetch_position
from .transitions import common_response, take


@kernel
def client_request(s, lay, out, acts, tally, n):
    """ClientRequest: the leader appends a client value (1..m) in its epoch; the value is
    written, not yet acknowledged. Each value is written once."""
    for i in range(lay.replicas):
        if not holds(tally, CLIENT_LEADS, get(s, lay, i, ROLE) == LEADER):
            continue
        for v in range(1, lay.values + 1):
            if not holds(tally, VALUE_UNWRITTEN, acked(s, lay, v) == NIL):
                continue
            t = emit(s, out, acts, n, action_code(CLIENT_REQUEST, i + 1, v, 0))
            append(t, lay, i, get(s, lay, i, EPOCH), v)
            set_acked(t, lay, v, WRITTEN)
            n += 1
    return n


@kernel
def send_fetch(s, lay, out, acts, tally, n):
    """SendFetchRequest: a follower with no FETCH pending asks its leader for what follows its
    log end, naming the epoch of its last entry."""
    for i in range(lay.replicas):
        j = get(s, lay, i, LEADER_AT) - 1
        if not holds(tally, FOLLOWS, get(s, lay, i, ROLE) == FOLLOWER and j >= 0 and j != i and
                     not has_pending(s, lay, i)):
            continue
        epoch, offset, last = get(s, lay, i, EPOCH), log_length(s, lay, i), last_epoch(s, lay, i)
        t = emit(s, out, acts, n, action_code(SEND_FETCH, i + 1, j + 1, 0))
        add(t, lay, msg.fetch_request(i + 1, j + 1, epoch, offset, last))
        put(t, lay, i, PENDING_LEADER, j + 1)
        put(t, lay, i, PENDING_EPOCH, epoch)
        put(t, lay, i, PENDING_OFFSET, offset)
        put(t, lay, i, PENDING_LAST_EPOCH, last)
        n += 1
    return n


@kernel
def _answer(s, lay, out, acts, tally, n, k, m, kind, response):
    """Voter m's destination answers FETCH m (the bag's k-th message) with `response`."""
    t = emit(s, out, acts, n, handler_code(kind, m[msg.DEST] - 1, k))
    return n + 1 if holds(tally, ANSWER_NEW, reply(t, lay, response, m)) else n


@kernel
def reject_fetch(s, lay, out, acts, tally, n, k, m):
    """RejectFetchRequest: a voter that does not lead, or leads another epoch, answers a FETCH
    with NOT_LEADER, FENCED_LEADER_EPOCH or UNKNOWN_LEADER."""
    i = m[msg.DEST] - 1
    mine = get(s, lay, i, EPOCH)
    if get(s, lay, i, ROLE) != LEADER:
        error = NOT_LEADER
    elif m[msg.EPOCH] < mine:
        error = FENCED_LEADER_EPOCH
    elif m[msg.EPOCH] > mine:
        error = UNKNOWN_LEADER
    else:
        error = NIL
    if not holds(tally, WRONG_LEADER, error != NIL):
        return n
    response = msg.fetch_response(m, mine, NOT_OK, error, get(s, lay, i, LEADER_AT), get(s, lay, i, HW), 0, 0, 0, 0)
    return _answer(s, lay, out, acts, tally, n, k, m, REJECT_FETCH, response)


@kernel
def _leads_its_epoch(s, lay, m):
    """The FETCH's destination leads the epoch the FETCH carries."""
    i = m[msg.DEST] - 1
    return get(s, lay, i, ROLE) == LEADER and m[msg.EPOCH] == get(s, lay, i, EPOCH)


@kernel
def diverging_fetch(s, lay, out, acts, tally, n, k, m):
    """DivergingFetchRequest: the leader answers a FETCH whose position its log does not have
    with the end of the follower's last epoch in its own log."""
    i = m[msg.DEST] - 1
    if not _leads_its_epoch(s, lay, m) or not holds(
            tally, POSITION_INVALID, valid_fetch_position(s, lay, i, m[msg.FETCH_OFFSET], m[msg.LAST_FETCHED_EPOCH]) == 0):
        return n
    offset, epoch = end_offset_for_epoch(s, lay, i, m[msg.LAST_FETCHED_EPOCH])
    response = msg.fetch_response(m, get(s, lay, i, EPOCH), DIVERGING, NIL, get(s, lay, i, LEADER_AT),
                                  get(s, lay, i, HW), epoch, offset, 0, 0)
    return _answer(s, lay, out, acts, tally, n, k, m, DIVERGING_FETCH, response)


@kernel
def accept_fetch(s, lay, out, acts, tally, n, k, m):
    """AcceptFetchRequest: the leader records the follower's end offset, advances its HW to
    what a majority holds (in its own epoch), acknowledges the values the HW passed, and
    answers with the next entry, if any, and the HW (no further than that entry). TLC takes
    this step once for each disjunct of ValidFetchPosition that holds, so for an empty
    follower the same successor is generated twice (`valid_fetch_position`)."""
    i, j = m[msg.DEST] - 1, m[msg.SOURCE] - 1
    if not _leads_its_epoch(s, lay, m):
        return n
    ways = valid_fetch_position(s, lay, i, m[msg.FETCH_OFFSET], m[msg.LAST_FETCHED_EPOCH])
    if not holds(tally, POSITION_VALID, ways > 0):
        return n
    epoch, old_hw = get(s, lay, i, EPOCH), get(s, lay, i, HW)
    offset = m[msg.FETCH_OFFSET] + 1
    sent_epoch, sent_value = 0, 0
    if offset <= log_length(s, lay, i):
        sent_epoch, sent_value = entry_epoch(s, lay, i, offset), entry_value(s, lay, i, offset)
    t = emit(s, out, acts, n, handler_code(ACCEPT_FETCH, i, k))
    set_end_offset(t, lay, i, j, m[msg.FETCH_OFFSET])
    hw = new_high_watermark(t, lay, i, epoch, old_hw)
    response = msg.fetch_response(m, epoch, OK, NIL, get(s, lay, i, LEADER_AT), min(hw, offset), 0, 0,
                                  sent_epoch, sent_value)
    if not holds(tally, ANSWER_NEW, reply(t, lay, response, m)):
        return n
    put(t, lay, i, HW, hw)
    for o in range(old_hw + 1, hw + 1):
        v = entry_value(s, lay, i, o)
        if acked(s, lay, v) == WRITTEN:
            set_acked(t, lay, v, ACKED)
    n += 1
    if ways == 2:
        emit(t, out, acts, n, acts[n - 1])
        n += 1
    return n


@kernel
def _pending_answer(s, lay, m):
    """Response m answers its destination's pending FETCH."""
    i = m[msg.DEST] - 1
    return (get(s, lay, i, PENDING_LEADER) == m[msg.SOURCE] and get(s, lay, i, PENDING_EPOCH) == m[msg.ASKED_EPOCH]
            and get(s, lay, i, PENDING_OFFSET) == m[msg.ASKED_OFFSET]
            and get(s, lay, i, PENDING_LAST_EPOCH) == m[msg.ASKED_LAST_EPOCH])


@kernel
def handle_fetch_response(s, lay, out, acts, tally, n, k, m):
    """A FETCH response to the voter's pending FETCH is handled by exactly one of
    HandleSuccessFetchResponse (the follower appends the entry it was sent and takes the
    leader's HW), HandleDivergingFetchResponse (it truncates its log to its last entry at or
    before the leader's answer, to fetch again from there) and HandleErrorFetchResponse (a
    response of another epoch, with an error or naming a new leader moves it as any response
    does); each clears the pending FETCH."""
    if not holds(tally, ANSWERS_PENDING, _pending_answer(s, lay, m)):
        return n
    i = m[msg.DEST] - 1
    new, handled = common_response(s, lay, i, m[msg.FETCH_LEADER], m[msg.EPOCH], m[msg.FETCH_ERROR])
    if handled:
        t = emit(s, out, acts, n, handler_code(HANDLE_FETCH_ERROR, i, k))
        take(t, lay, i, new)
    elif m[msg.RESULT] == OK:
        t = emit(s, out, acts, n, handler_code(HANDLE_FETCHED, i, k))
        put(t, lay, i, HW, m[msg.HWM])
        if m[msg.ENTRY_EPOCH] != 0:
            append(t, lay, i, m[msg.ENTRY_EPOCH], m[msg.ENTRY_VALUE])
    elif m[msg.RESULT] == DIVERGING:
        t = emit(s, out, acts, n, handler_code(HANDLE_DIVERGING, i, k))
        truncate(t, lay, i, highest_common_offset(s, lay, i, m[msg.DIVERGING_END_OFFSET], m[msg.DIVERGING_EPOCH]))
    else:
        return n
    discard(t, lay, m)
    clear_pending(t, lay, i)
    return n + 1
