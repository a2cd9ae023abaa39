"""Replication by FETCH: a follower sends, the leader serves, the follower applies the answer.

Three steps, so the leader learns a follower's progress only from its next FETCH, and the
follower learns the HW from the response after that: the two fetch rounds of scenario S0.
The response carries the HW read *after* the leader recorded the follower's new position
(the behaviour of current Kafka; the HW-truncation era read it before, which only delays the
follower's HW by one more round). At most one fetch per follower is in flight.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit
from checker.kernel.guards import holds

from .guards import APPLY_ALIVE, APPLY_RESPONSE, FETCH_ALIVE, FETCH_HAS_LEADER, FETCH_IDLE, SERVE_ALIVE, SERVE_REQUEST
from .hw import advance_hw
from .isr import join_in_fetch
from .kinds import FOLLOWER_APPLY_RESPONSE, FOLLOWER_FETCH, LEADER_SERVE_FETCH
from .layout import (DIVERGING, IDLE, REQUEST, RESPONSE, alive, answer_fetch, clear_fetch, diverge_fetch, diverging_end,
                     epoch, fetch_epoch, fetch_hw, fetch_kind, fetch_leader, fetch_offset, fetched_count, fetched_epoch,
                     fetched_id, leader, leo, refuse_fetch, send_fetch, set_hw, set_remote_leo)
from .producer import record_appended
from .quorum import continues_leader_log
from .state import NONE
from .truncation import kip279_truncation, truncate_to
from .rule_kernels import fenced, majority_quorum


@kernel
def follower_fetch(s, lay, out, acts, tally, n):
    """A live follower with nothing in flight sends FETCH(offset = its LEO, its leader epoch) to
    the leader it follows."""
    for f in range(lay.replicas):
        ldr = leader(s, lay, f)
        if (holds(tally, FETCH_ALIVE, alive(s, lay, f)) and holds(tally, FETCH_HAS_LEADER, ldr != f and ldr != NONE)
                and holds(tally, FETCH_IDLE, fetch_kind(s, lay, f) == IDLE)):
            t = emit(s, out, acts, n, action_code(FOLLOWER_FETCH, f, 0, 0))
            send_fetch(t, lay, f, ldr, leo(s, lay, f), epoch(s, lay, f))
            n += 1
    return n


@kernel
def leader_serve_fetch(s, lay, out, acts, tally, n):
    """The live leader handles a follower's FETCH atomically: it records the fetch offset as that
    follower's remote LEO, may advance its HW, before 2.7 adds the follower to the ISR if it has
    caught up (`isr.join_in_fetch`), and answers with its records from that offset and its HW. A replica that does not believe it leads refuses (NOT_LEADER); under kip320 so does a
    leader in another epoch than the follower's (FENCED/UNKNOWN_LEADER_EPOCH). Under a majority
    quorum the leader first checks that the FETCH continues its log (`quorum.continues_leader_log`);
    if not, it answers where the two logs stop agreeing (KRaft's DivergingEpoch, found as KIP-279's
    OffsetsForLeaderEpoch exchange finds it) and records nothing."""
    for f in range(lay.replicas):
        if not holds(tally, SERVE_REQUEST, fetch_kind(s, lay, f) == REQUEST):
            continue
        ldr = fetch_leader(s, lay, f)
        if not holds(tally, SERVE_ALIVE, alive(s, lay, ldr)):
            continue
        offset = fetch_offset(s, lay, f)
        t = emit(s, out, acts, n, action_code(LEADER_SERVE_FETCH, ldr, f, 0))
        if leader(s, lay, ldr) != ldr or (fenced(lay) and fetch_epoch(s, lay, f) != epoch(s, lay, ldr)):
            refuse_fetch(t, lay, f, ldr, offset)
        elif majority_quorum(lay) and not continues_leader_log(s, lay, f, ldr, offset):
            diverge_fetch(t, lay, f, ldr, offset, kip279_truncation(s, lay, f, ldr, False))
        else:
            set_remote_leo(t, lay, ldr, f, offset)
            advance_hw(t, lay, ldr)
            join_in_fetch(t, lay, tally, ldr, f)
            answer_fetch(t, lay, f, ldr, offset)
        n += 1
    return n


@kernel
def follower_apply_response(s, lay, out, acts, tally, n):
    """The follower applies the response: it appends the records that continue its log, as far
    as its log has room (a refusal, or a response for another offset or from a leader it no
    longer follows, is dropped), and sets HW = min(response HW, its LEO). The HW may go down: a
    follower's HW only mirrors the leader's. A diverging answer (majority quorum) makes it drop
    the suffix of its log past the offset where it agrees with the leader; it fetches again."""
    for f in range(lay.replicas):
        kind = fetch_kind(s, lay, f)
        if not (holds(tally, APPLY_ALIVE, alive(s, lay, f))
                and holds(tally, APPLY_RESPONSE, kind != IDLE and kind != REQUEST)):
            continue
        t = emit(s, out, acts, n, action_code(FOLLOWER_APPLY_RESPONSE, f, 0, 0))
        n += 1
        clear_fetch(t, lay, f)
        continues_log = fetch_leader(s, lay, f) == leader(s, lay, f) and fetch_offset(s, lay, f) == leo(s, lay, f)
        if kind == DIVERGING and continues_log:
            truncate_to(t, lay, f, diverging_end(s, lay, f))
        if kind != RESPONSE or not continues_log:
            continue
        room = lay.log_size - leo(s, lay, f)
        for i in range(min(fetched_count(s, lay, f), room)):
            record_appended(t, lay, f, fetched_id(s, lay, f, i), fetched_epoch(s, lay, f, i))
        set_hw(t, lay, f, min(fetch_hw(s, lay, f), leo(t, lay, f)))
    return n
