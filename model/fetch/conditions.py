"""Conditions a `fetch` step needs, for `--reduce` (`checker.independence`): when a step is not
enabled, the steps that may enable it are those that can make one of its false conditions true,
far fewer than every step writing what it reads (a follower that already follows its leader in a
newer epoch is enabled to handle an old LeaderAndIsr by nothing but its own stop).

A condition is a code and up to three arguments; `condition_holds` tests it on a packed state with
the model's own accessors (the same tests the steps make, not a copy of the rules: each holds
whenever a step needing it is enabled, which tests/test_footprints.py checks on every reachable
state of its bound sets, and becomes true only by the steps `model.fetch.footprints` names).
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .controller import back, bounced
from .hw import is_true_leader, leads_epoch
from .isr import enough_insync
from .layout import (IDLE, REQUEST, alive, controller_offline, crashes, disk_losses, epoch, fetch_kind, fetch_leader,
                     fencings, flushed, has_request, isr, leader, leo, member, next_record_id, remote_leo,
                     request_leader)
from .state import NONE

CONDITIONS = ("up", "down", "crashes-left", "disk-losses-left", "fencings-left", "records-left", "leads", "room",
              "enough-insync", "follows", "idle", "fetch-to", "answered", "unflushed", "newer-epoch", "request",
              "leads-epoch", "true-leader", "member", "outside", "behind", "gone", "back", "no-bounce")
(UP, DOWN, CRASHES_LEFT, DISK_LOSSES_LEFT, FENCINGS_LEFT, RECORDS_LEFT, LEADS, ROOM, ENOUGH_INSYNC, FOLLOWS, IDLE_SLOT,
 FETCH_TO, ANSWERED, UNFLUSHED, NEWER_EPOCH, REQUEST_FOR, LEADS_EPOCH, TRUE_LEADER, MEMBER, OUTSIDE, BEHIND, GONE, BACK,
 NO_BOUNCE) = range(len(CONDITIONS))


@kernel
def condition_holds(s, lay, code, a, b, c):
    """Whether condition (code, a, b, c) of `CONDITIONS` holds in packed state s: broker a is up,
    or down; stops, disk losses, fencings or records remain in the bounds; a believes it leads,
    has room in its log, has min.insync.replicas in its ISR, follows another replica, has no
    FETCH in flight, has a FETCH waiting at b, has an answer to apply, has unflushed records, is
    in an epoch below b, has a LeaderAndIsr of epoch b naming c leader; a leads epoch b; a is
    the true leader; b is in, or outside, a's ISR; a's remote LEO of b is behind a's LEO; the
    controller has yet to handle a's stop (a bounced broker first); a is back for the controller
    to take in (`controller.back`); no bounced broker waits for the controller."""
    if code == UP:
        return alive(s, lay, a)
    if code == DOWN:
        return not alive(s, lay, a)
    if code == CRASHES_LEFT:
        return crashes(s, lay) < lay.max_crashes
    if code == DISK_LOSSES_LEFT:
        return disk_losses(s, lay) < lay.max_disk_losses
    if code == FENCINGS_LEFT:
        return fencings(s, lay) < lay.max_fencings
    if code == RECORDS_LEFT:
        return next_record_id(s, lay) < lay.max_records
    if code == LEADS:
        return leader(s, lay, a) == a
    if code == ROOM:
        return leo(s, lay, a) < lay.log_size
    if code == ENOUGH_INSYNC:
        return enough_insync(s, lay, a)
    if code == FOLLOWS:
        ldr = leader(s, lay, a)
        return ldr != a and ldr != NONE
    if code == IDLE_SLOT:
        return fetch_kind(s, lay, a) == IDLE
    if code == FETCH_TO:
        return fetch_kind(s, lay, a) == REQUEST and fetch_leader(s, lay, a) == b
    if code == ANSWERED:
        kind = fetch_kind(s, lay, a)
        return kind != IDLE and kind != REQUEST
    if code == UNFLUSHED:
        return flushed(s, lay, a) < leo(s, lay, a)
    if code == NEWER_EPOCH:
        return epoch(s, lay, a) < b
    if code == REQUEST_FOR:
        return has_request(s, lay, a, b) and request_leader(s, lay, a, b) == c
    if code == LEADS_EPOCH:
        return leads_epoch(s, lay, a, b)
    if code == TRUE_LEADER:
        return is_true_leader(s, lay, a)
    if code == MEMBER:
        return member(isr(s, lay, a), b)
    if code == OUTSIDE:
        return not member(isr(s, lay, a), b)
    if code == BEHIND:
        return remote_leo(s, lay, a, b) < leo(s, lay, a)
    if code == GONE:
        first = bounced(s, lay)
        return member(first, a) if first else not alive(s, lay, a) and not member(controller_offline(s, lay), a)
    if code == BACK:
        return back(s, lay, a)
    if code == NO_BOUNCE:
        return bounced(s, lay) == 0
    return True


@kernel
def condition_values(s, lay, conditions, out):
    """out[i]: whether condition conditions[i] (rows of code, a, b, c) holds in state s."""
    for i in range(conditions.shape[0]):
        out[i] = condition_holds(s, lay, conditions[i, 0], conditions[i, 1], conditions[i, 2], conditions[i, 3])
    return out
