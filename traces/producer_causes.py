"""Why a retrying producer's records reached the true leader's log out of send order or twice
(`in-order`, `no-duplicates`; `--retries`): the append that did it, and the producer's sends,
failures and retries that led there. Record ids are sequence numbers, so send order is id
order; the producer's side (which record failed when) is read from the trace's states."""

from __future__ import annotations

from model.fetch.state import APPENDED, FAILED

from .cause import Cause, Culprit, Damage, Diagnosis
from .culprits import Trail, write
from .partition import NONE


def reordered(trail: Trail) -> Diagnosis | None:
    """in-order: the first record of the true leader's log (first copies only) that sits behind
    a record the producer sent after it, when the append that put it there came from a retry."""
    log = _leader_log(trail)
    firsts = [(offset, rec) for offset, rec in enumerate(log) if all(x.id != rec.id for x in log[:offset])]
    for i, (offset, rec) in enumerate(firsts):
        ahead = [(o, x) for o, x in firsts[:i] if x.id > rec.id]
        if ahead:
            return _retried_behind(trail, offset, rec, *ahead[0])
    return None


def _retried_behind(trail: Trail, offset: int, rec, later_offset: int, later) -> Diagnosis | None:
    """`rec` appended at `offset` behind `later`: the later record's send and append, and the
    failure and retry of `rec` that put its append after them."""
    append = write(trail, offset, rec)
    sends = _sends(trail, rec.id, append.step)
    if len(sends) < 2:
        return None
    first_later = _sends(trail, later.id, append.step)[0]
    damage = Damage(append.step, "reordered", append.replica, offset=offset, record=rec, peer_record=later)
    culprits = [_send(trail, first_later, "send"), write(trail, later_offset, later),
                _failure(trail, rec.id, before=sends[-1]), _send(trail, sends[-1], "retry")]
    return trail.found(Cause.RETRY_BEHIND_LATER_RECORD, damage, culprits)


def duplicated(trail: Trail) -> Diagnosis | None:
    """no-duplicates: the second copy of a record in the true leader's log, the append that put
    it there, and the first copy's append, lost answer and retry."""
    log = _leader_log(trail)
    for offset, rec in enumerate(log):
        first = next((o for o in range(offset) if log[o].id == rec.id), None)
        if first is not None:
            return _appended_again(trail, first, log[first], offset, rec)
    return None


def _appended_again(trail: Trail, first: int, original, offset: int, rec) -> Diagnosis | None:
    """`rec` at `offset` is a second copy of `original` at `first`: the original's append, the
    failure after it (its answer lost) and the retry that was appended again."""
    copy, again = write(trail, first, original), write(trail, offset, rec)
    sends = _sends(trail, rec.id, again.step)
    if not sends:
        return None
    damage = Damage(again.step, "duplicated", again.replica, offset=offset, record=rec, peer_record=original)
    culprits = [copy, _failure(trail, rec.id, after=copy.step), _send(trail, sends[-1], "retry")]
    return trail.found(Cause.RETRY_AFTER_LOST_ANSWER, damage, culprits)


def _leader_log(trail: Trail) -> tuple:
    """The true leader's log in the last state (empty when there is no true leader)."""
    last = trail.views[-1]
    x = last.true_leader()
    return () if x == NONE else last.replicas[x].log


def _sends(trail: Trail, rid: int, until: int) -> list[int]:
    """The steps before `until` at which the producer sent record rid (first send, then retries)."""
    return [k for k in range(1, until) if trail.action(k)[:2] == ("ProducerSend", rid)]


def _send(trail: Trail, k: int, role: str) -> Culprit:
    """The producer's send (or retry) of step k, to the broker it believed led."""
    _, rid, r = trail.action(k)
    return Culprit(k, role, r, sequence=rid)


def _failure(trail: Trail, rid: int, before: int | None = None, after: int = 0) -> Culprit | None:
    """The step at which record rid failed (a refusal, or its request or answer lost): the last
    one before `before`, or the first one after `after`."""
    states = trail.trace.states()
    end = before if before is not None else len(states)
    failed = [k for k in range(after + 1, end)
              if states[k].producer[rid].status == FAILED != states[k - 1].producer[rid].status]
    if not failed:
        return None
    k = failed[-1] if before is not None else failed[0]
    return Culprit(k, "failure", _broker_of_failure(trail, k, rid), sequence=rid)


def _broker_of_failure(trail: Trail, k: int, rid: int) -> int:
    """The broker whose refusal, lost request or lost answer failed record rid at step k."""
    kind, *args = trail.action(k)
    if kind == "LeaderHandleProduce":
        return args[0]
    before = trail.trace.states()[k - 1]
    if before.producer[rid].status == APPENDED:
        return before.producer[rid].leader
    return before.request_target(rid)
