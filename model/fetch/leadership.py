"""Replicas acting on LeaderAndIsr requests: becoming leader or follower."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from .hw import advance_hw
from .kinds import BECOME_FOLLOWER, BECOME_LEADER
from .layout import (alive, cache_push, cache_trim, clear_fetch, drop_requests_up_to, epoch, flushed, has_request, hw,
                     leader, leo, request_isr, request_leader, set_flushed, set_hw, set_remote_leo, set_view, truncate)
from .state import NONE
from .variants import asks_leader, fenced, truncation_point


@kernel
def become_leader(s, lay, out, acts, n):
    """The live replica a request names leader, in an epoch above its own, takes the epoch and
    ISR, starts its epoch in its cache at its LEO and forgets remote LEOs. Its HW is its old
    follower HW, which may lag the previous leader's (KAFKA-2334), raised only if its ISR's
    known LEOs allow."""
    for r in range(lay.replicas):
        if not alive(s, lay, r):
            continue
        for e in range(epoch(s, lay, r) + 1, lay.max_epoch + 1):
            if not (has_request(s, lay, r, e) and request_leader(s, lay, r, e) == r):
                continue
            t = emit(s, out, acts, n, action_code(BECOME_LEADER, r, e, 0))
            end = leo(s, lay, r)
            cache_push(t, lay, r, e, end)
            for f in range(lay.replicas):
                set_remote_leo(t, lay, r, f, end if f == r else -1)
            set_view(t, lay, r, e, r, request_isr(s, lay, r, e))
            clear_fetch(t, lay, r)
            drop_requests_up_to(t, lay, r, e)
            advance_hw(t, lay, r)
            n += 1
    return n


@kernel
def become_follower(s, lay, out, acts, n):
    """A live replica takes a request naming another leader in an epoch above its own: it
    truncates at its variant's point (the epoch variants ask the live leader; under kip320 only a
    leader already in that epoch answers), caps its HW there, follows the new leader and drops
    its in-flight fetch."""
    for r in range(lay.replicas):
        if not alive(s, lay, r):
            continue
        for e in range(epoch(s, lay, r) + 1, lay.max_epoch + 1):
            if not has_request(s, lay, r, e):
                continue
            ldr = request_leader(s, lay, r, e)
            if ldr == r or ldr == NONE:
                continue
            if asks_leader(lay) and not alive(s, lay, ldr):
                continue
            if fenced(lay) and not (leader(s, lay, ldr) == ldr and epoch(s, lay, ldr) == e):
                continue
            k = min(truncation_point(s, lay, r, ldr), leo(s, lay, r))
            t = emit(s, out, acts, n, action_code(BECOME_FOLLOWER, r, ldr, e))
            truncate(t, lay, r, k)
            set_flushed(t, lay, r, min(flushed(s, lay, r), k))
            cache_trim(t, lay, r, k)
            set_hw(t, lay, r, min(hw(s, lay, r), k))
            set_view(t, lay, r, e, ldr, 0)
            clear_fetch(t, lay, r)
            drop_requests_up_to(t, lay, r, e)
            n += 1
    return n
