"""Replicas acting on LeaderAndIsr requests: becoming leader or follower."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import (FOLLOWER_ALIVE, FOLLOWER_LEADER_ALIVE, FOLLOWER_LEADER_IN_EPOCH, FOLLOWER_OTHER_LEADER,
                     FOLLOWER_REQUEST, LEADER_ALIVE, LEADER_REQUEST)
from .hw import advance_hw, leads_epoch
from .kinds import BECOME_FOLLOWER, BECOME_LEADER
from .layout import (alive, cache_push, clear_fetch, drop_requests_up_to, epoch, has_request, leader, leo, request_isr,
                     request_leader, set_remote_leo, set_view)
from .state import NONE
from .truncation import truncate_to
from .rule_kernels import asks_leader, cache_at_first_append, fenced, truncation_point


@kernel
def take_leadership(t, lay, r, e, new_isr):
    """Broker r leads epoch e with this ISR: it starts its epoch in its cache at its LEO (from 2.1;
    under epoch-cache=first-append its first append does), forgets remote LEOs and its in-flight
    fetch, drops requests of epoch e and earlier, and recomputes its HW (its old follower HW, which
    may lag the previous leader's: KAFKA-2334)."""
    end = leo(t, lay, r)
    if not cache_at_first_append(lay):
        cache_push(t, lay, r, e, end)
    for f in range(lay.replicas):
        set_remote_leo(t, lay, r, f, end if f == r else -1)
    set_view(t, lay, r, e, r, new_isr)
    clear_fetch(t, lay, r)
    drop_requests_up_to(t, lay, r, e)
    advance_hw(t, lay, r)


@kernel
def follow(t, lay, r, ldr, e, k):
    """Broker r follows `ldr` in epoch e after keeping the first k records of its log; it drops
    its in-flight fetch and the requests of epoch e and earlier."""
    truncate_to(t, lay, r, k)
    set_view(t, lay, r, e, ldr, 0)
    clear_fetch(t, lay, r)
    drop_requests_up_to(t, lay, r, e)


@kernel
def become_leader(s, lay, out, acts, tally, n):
    """The live replica a request names leader, in an epoch above its own, takes the epoch and
    ISR (`take_leadership`)."""
    for r in range(lay.replicas):
        if not holds(tally, LEADER_ALIVE, alive(s, lay, r)):
            continue
        for e in range(epoch(s, lay, r) + 1, lay.max_epoch + 1):
            if holds(tally, LEADER_REQUEST, has_request(s, lay, r, e) and request_leader(s, lay, r, e) == r):
                t = emit(s, out, acts, n, action_code(BECOME_LEADER, r, e, 0))
                take_leadership(t, lay, r, e, request_isr(s, lay, r, e))
                n += 1
    return n


@kernel
def become_follower(s, lay, out, acts, tally, n):
    """A live replica takes a request naming another leader in an epoch above its own: it
    truncates at its variant's point (the epoch variants ask the live leader; under kip320 only a
    leader already in that epoch answers; a majority quorum truncates nothing here), caps its HW
    there, follows the new leader and drops its in-flight fetch."""
    for r in range(lay.replicas):
        if not holds(tally, FOLLOWER_ALIVE, alive(s, lay, r)):
            continue
        for e in range(epoch(s, lay, r) + 1, lay.max_epoch + 1):
            if not holds(tally, FOLLOWER_REQUEST, has_request(s, lay, r, e)):
                continue
            ldr = request_leader(s, lay, r, e)
            if not holds(tally, FOLLOWER_OTHER_LEADER, ldr != r and ldr != NONE):
                continue
            if asks_leader(lay) and not holds(tally, FOLLOWER_LEADER_ALIVE, alive(s, lay, ldr)
                                              and (fenced(lay) or leader(s, lay, ldr) == ldr)):
                continue  # without fencing a broker that does not lead answers NOT_LEADER_FOR_PARTITION
            if asks_leader(lay) and fenced(lay) and not holds(tally, FOLLOWER_LEADER_IN_EPOCH,
                                                              leads_epoch(s, lay, ldr, e)):
                continue
            t = emit(s, out, acts, n, action_code(BECOME_FOLLOWER, r, ldr, e))
            follow(t, lay, r, ldr, e, min(truncation_point(s, lay, r, ldr), leo(s, lay, r)))
            n += 1
    return n
