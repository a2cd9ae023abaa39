"""Invariants of the `fetch` model, in the words of the operator's question: can an
acknowledged or committed write be lost, and can replicas disagree? And witnesses, the
availability question: can the partition still acknowledge writes with brokers gone for good?
Written over packed states (see `model.fetch.layout`) so the compiled search evaluates them;
on readable states each is evaluated by encoding first.

And the producer's questions with retries: can the log hold a producer's records out of order,
or twice?

Every property here is symmetric: none names a replica, so renaming replicas never changes a
verdict and symmetry reduction may be used with all of them."""

from __future__ import annotations

from checker.invariant import Invariant, StepProperty
from checker.kernel.jit import kernel
from model.fetch.codec import encode, fitting_layout
from model.fetch.ghost import holds_committed, true_leader
from model.fetch.layout import (RUNNING, acked_epoch, acked_offset, alive, consumer_hw, controller_isr,
                                controller_leader, controller_offline, elr, epoch, ghost_records, has_elr, has_record,
                                hw, isr, last_stop, leader, leo, member, record_epoch, record_id, remote_leo,
                                same_record)
from model.fetch.state import NONE

from .fetch_milestones import COMMITTED_MILESTONES, committed_milestone
from .kafka_shapes import agrees_below_hw, on_readable


@kernel
def committed_survives(s, lay):
    """Every record that was ever below a true leader's HW is at its offset in the current true
    leader's log, whenever there is one.

    A failure means a consumer could have read a message that the partition no longer has:
    committed data was lost (or replaced) by a truncation or an election."""
    ldr = true_leader(s, lay)
    return ldr == NONE or holds_committed(s, lay, ldr)


@kernel
def acked_survives(s, lay):
    """Every acknowledged write is at its offset in the current true leader's log.

    A failure means a producer was told its write succeeded and the write is gone: expected
    with acks=1 (the leader acknowledges before any follower has the record), a protocol bug
    with acks=all and min.insync.replicas=2 unless every replica crashed."""
    ldr = true_leader(s, lay)
    if ldr == NONE:
        return True
    for rid in range(ghost_records(lay)):
        offset = acked_offset(s, lay, rid)
        if offset >= 0 and not has_record(s, lay, ldr, offset, rid, acked_epoch(s, lay, rid)):
            return False
    return True


@kernel
def no_divergence(s, lay):
    """No two live replicas in the same leader epoch hold different records at an offset below
    both of their HWs. (Replicas in different epochs may disagree for a while: that is what
    truncation on becoming follower repairs. What survives into a common epoch is never
    repaired.)

    A failure means the replicas' logs have diverged below what each considers committed:
    consumers reading from different leaders over time see different data at the same offset,
    and nothing in the protocol will ever repair it."""
    for a in range(lay.replicas):
        if not alive(s, lay, a) or epoch(s, lay, a) < 0:
            continue
        for b in range(a + 1, lay.replicas):
            if not alive(s, lay, b) or epoch(s, lay, b) != epoch(s, lay, a):
                continue
            upto = min(hw(s, lay, a), hw(s, lay, b), leo(s, lay, a), leo(s, lay, b))
            for offset in range(upto):
                if not same_record(s, lay, a, b, offset):
                    return False
    return True


@kernel
def hw_monotonic(s, lay):
    """The committed offset consumers see (the true leader's HW) is never below the highest one
    they have seen before (a ghost variable kept across leader changes).

    A failure means the committed offset moved backwards on a failover: the new leader's HW was
    its old follower HW, one fetch round behind (KAFKA-2334; KIP-207 later made new leaders wait
    before serving offsets)."""
    ldr = true_leader(s, lay)
    return ldr == NONE or hw(s, lay, ldr) >= consumer_hw(s, lay)


@kernel
def in_order(s, lay):
    """In the true leader's log, the first occurrences of the producer's records come in the
    order they were sent (record ids are in send order). A record that is missing is no order
    violation, and a second copy of a record is for `no-duplicates` to report.

    A failure means a consumer reads the producer's records in another order than the producer
    sent them: a retried record landed behind one sent after it (possible with retries and
    max.in.flight.requests.per.connection above 1, unless the producer is idempotent)."""
    ldr = true_leader(s, lay)
    if ldr == NONE:
        return True
    seen, highest = 0, -1
    for offset in range(leo(s, lay, ldr)):
        rid = record_id(s, lay, ldr, offset)
        if not member(seen, rid):
            if rid < highest:
                return False
            seen |= 1 << rid
            highest = rid
    return True


@kernel
def no_duplicates(s, lay):
    """No record appears twice in the true leader's log.

    A failure means a consumer reads one of the producer's records twice: the leader appended
    it, the answer was lost, and the producer's retry appended it again (possible with retries
    unless the producer is idempotent)."""
    ldr = true_leader(s, lay)
    if ldr == NONE:
        return True
    seen = 0
    for offset in range(leo(s, lay, ldr)):
        rid = record_id(s, lay, ldr, offset)
        if member(seen, rid):
            return False
        seen |= 1 << rid
    return True


@kernel
def leads(s, lay, r):
    """Broker r is alive and believes it leads."""
    return alive(s, lay, r) and leader(s, lay, r) == r


@kernel
def leader_hw_never_decreases(s, t, lay):
    """A replica that leads in the same epoch before and after a step has not lowered its HW.

    A failure means a leader moved its HW backwards while it stayed leader: records consumers
    could read would become invisible again without any failover. Kafka's leader only ever
    raises its HW (on a produce append, a fetch, becoming leader, an ISR change)."""
    for r in range(lay.replicas):
        stays = leads(s, lay, r) and leads(t, lay, r) and epoch(s, lay, r) == epoch(t, lay, r)
        if stays and hw(t, lay, r) < hw(s, lay, r):
            return False
    return True


@kernel
def joins_caught_up(s, t, lay):
    """Every follower a step adds to the ISR, with the leader unchanged, holds the leader's
    records below the leader's HW.

    A failure means a follower joined the ISR on a position it no longer holds: the leader
    counted a FETCH of the follower's previous incarnation, before it crashed and came back with
    a shorter log or an empty disk. The ISR, and the HW it holds up, then promise copies that do
    not exist, and the follower may be elected without them (KAFKA-14139, fixed by KIP-903's
    broker epochs in Kafka 3.5)."""
    ldr = controller_leader(t, lay)
    if ldr == NONE or ldr != controller_leader(s, lay):
        return True
    joined = controller_isr(t, lay) & ~controller_isr(s, lay)
    for f in range(lay.replicas):
        if not (joined >> f) & 1:
            continue
        for offset in range(hw(t, lay, ldr)):
            if not has_record(t, lay, f, offset, record_id(t, lay, ldr, offset), record_epoch(t, lay, ldr, offset)):
                return False
    return True


@kernel
def counted_on(t, lay, r, offset, rid, repoch):
    """Broker r holds record (rid, repoch) at `offset`, or a live broker that believes it leads
    counts r as holding it (r's remote LEO there is past the offset: r had it in its page cache
    when it fetched, though a crash may have lost it since)."""
    if has_record(t, lay, r, offset, rid, repoch):
        return True
    for p in range(lay.replicas):
        if leads(t, lay, p) and p != r and remote_leo(t, lay, p, r) > offset:
            return True
    return False


@kernel
def acked_without_down_brokers(s, t, lay, k):
    """The step from s to t acknowledges a write (it is acknowledged in t, not in s) while at
    least k brokers are down in t, and no down broker holds that record or is counted as
    holding it by a leader (`counted_on`): the write owes nothing to the down brokers."""
    down = 0
    for r in range(lay.replicas):
        if not alive(t, lay, r):
            down += 1
    if down < k:
        return False
    for rid in range(ghost_records(lay)):
        offset = acked_offset(t, lay, rid)
        if offset < 0 or acked_offset(s, lay, rid) >= 0:
            continue
        held = False
        for r in range(lay.replicas):
            if not alive(t, lay, r) and counted_on(t, lay, r, offset, rid, acked_epoch(t, lay, rid)):
                held = True
        if not held:
            return True
    return False


@kernel
def no_ack_with_1_down(s, t, lay):
    """A witness, reached at a step that acknowledges a write while at least one broker is down
    and no down broker holds the record (the predicate is false exactly there).

    Reaching it means the partition can still acknowledge acks=all writes with one broker gone
    for good: the brokers that are up made the write durable without the down one, which need
    never restart."""
    return not acked_without_down_brokers(s, t, lay, 1)


@kernel
def no_ack_with_2_down(s, t, lay):
    """A witness, reached at a step that acknowledges a write while at least two brokers are
    down and no down broker holds the record (the predicate is false exactly there).

    Reaching it means the partition can still acknowledge acks=all writes with two brokers gone
    for good: the brokers that are up made the write durable without the down ones, which need
    never restart."""
    return not acked_without_down_brokers(s, t, lay, 2)


@kernel
def single_leader(s, lay):
    """At most one live replica believes it leads in any given leader epoch.

    A failure means two brokers accept writes for the same epoch, so epoch-based truncation
    cannot tell their records apart."""
    for a in range(lay.replicas):
        for b in range(a + 1, lay.replicas):
            if leads(s, lay, a) and leads(s, lay, b) and epoch(s, lay, a) == epoch(s, lay, b):
                return False
    return True


@kernel
def leader_in_isr(s, lay):
    """The controller's leader, when there is one, is in the controller's ISR.

    A failure means the controller handed leadership to a replica not known to hold every
    committed record: an unclean election."""
    ldr = controller_leader(s, lay)
    return ldr == NONE or member(controller_isr(s, lay), ldr)


@kernel
def weak_isr(s, lay):
    """Every live replica that believes it leads agrees, below its HW, with every member of its
    own ISR view.

    A failure means a leader counts as in sync a replica that lacks records it has already
    exposed to consumers."""
    for r in range(lay.replicas):
        if leads(s, lay, r) and not agrees_below_hw(s, lay, r, isr(s, lay, r)):
            return False
    return True


@kernel
def strong_isr(s, lay):
    """Every live replica that believes it leads agrees, below its HW, with every member of the
    controller's ISR, the set the next clean election picks from.

    A failure means the next clean election may pick a replica that lacks a record consumers
    could already read."""
    for r in range(lay.replicas):
        if leads(s, lay, r) and not agrees_below_hw(s, lay, r, controller_isr(s, lay)):
            return False
    return True


@kernel
def elr_holds_committed(s, lay):
    """Every ELR member the controller could elect (up, not known dead, registered since its
    last stop) holds every committed record at its offset.

    A failure means a KIP-966 election from the ELR could pick a replica that lacks a record
    consumers could already read: the strict min-ISR rule did not keep the ELR complete."""
    if not has_elr(lay):
        return True
    for r in range(lay.replicas):
        if not member(elr(s, lay), r) or not alive(s, lay, r) or member(controller_offline(s, lay), r):
            continue
        if last_stop(s, lay, r) != RUNNING:
            continue
        if not holds_committed(s, lay, r):
            return False
    return True


@kernel
def violations(s, lay, selected):
    """The invariants among `selected` (bit i: the i-th of `STATE_INVARIANTS`) that `s` violates."""
    mask = 0
    if selected & 1 and not committed_survives(s, lay):
        mask |= 1
    if selected & 2 and not acked_survives(s, lay):
        mask |= 2
    if selected & 4 and not no_divergence(s, lay):
        mask |= 4
    if selected & 8 and not hw_monotonic(s, lay):
        mask |= 8
    if selected & 16 and not single_leader(s, lay):
        mask |= 16
    if selected & 32 and not leader_in_isr(s, lay):
        mask |= 32
    if selected & 64 and not weak_isr(s, lay):
        mask |= 64
    if selected & 128 and not strong_isr(s, lay):
        mask |= 128
    if selected & 256 and not in_order(s, lay):
        mask |= 256
    if selected & 512 and not no_duplicates(s, lay):
        mask |= 512
    if selected & 1024 and not elr_holds_committed(s, lay):
        mask |= 1024
    return mask


@kernel
def milestone(s, lay, invariant):
    """How far `s` is along the usual story of a violation of the invariant with bit number
    `invariant` in `STATE_INVARIANTS`: the level of its `milestones` (0: none, or no
    milestones)."""
    if invariant == 0:
        return committed_milestone(s, lay)
    return 0


@kernel
def broken_steps(s, code, t, lay, selected):
    """The step properties among `selected` (bit i: the i-th of `STEP_PROPERTIES`) that the step
    from `s` to `t` (by action `code`) breaks, witnesses reached included."""
    mask = 0
    if selected & 1 and not leader_hw_never_decreases(s, t, lay):
        mask |= 1
    if selected & 2 and not joins_caught_up(s, t, lay):
        mask |= 2
    if selected & 4 and not no_ack_with_1_down(s, t, lay):
        mask |= 4
    if selected & 8 and not no_ack_with_2_down(s, t, lay):
        mask |= 8
    return mask


def _step_on_readable(predicate):
    """A step predicate over packed rows as one over readable (before, action, after)."""
    def holds(before, action, after) -> bool:
        lay = fitting_layout(before, after)
        return bool(predicate(encode(before, lay), encode(after, lay), lay))
    holds.__doc__ = predicate.__doc__
    return holds


def kafka_isr(parameters: dict) -> bool:
    """Kafka's ISR, which only `--quorum isr` has: true when the partition has one. Under a
    majority quorum the ISR slot holds every replica and commitment needs only a majority, so
    the ISR invariants do not apply there."""
    return parameters.get("quorum", "isr") == "isr"


def eligible_leader_replicas(parameters: dict) -> bool:
    """KIP-966's ELR, which only rule elr=on has (`--variant kip966`): true under that rule."""
    return parameters.get("rules", {}).get("elr") == "on"


def _invariant(name: str, summary: str, predicate, needs_ghost: bool = False, only_when=None,
               milestones: tuple[str, ...] = ()) -> Invariant:
    return Invariant(name, summary, on_readable(predicate, encode, fitting_layout), needs_ghost, symmetric=True,
                     kernel=predicate, only_when=only_when, milestones=milestones)


STATE_INVARIANTS = (
    _invariant("committed-survives", "committed records stay in the true leader's log", committed_survives, True,
               milestones=COMMITTED_MILESTONES),
    _invariant("acked-survives", "acknowledged writes stay in the true leader's log", acked_survives, True),
    _invariant("no-divergence", "no two replicas in one epoch differ below both their HWs", no_divergence),
    _invariant("hw-monotonic", "the HW consumers see never goes backwards", hw_monotonic, True),
    _invariant("single-leader", "at most one replica leads per epoch", single_leader),
    _invariant("leader-in-isr", "the controller's leader, if any, is in its ISR", leader_in_isr, only_when=kafka_isr),
    _invariant("weak-isr", "a leader's ISR view holds its log below its HW", weak_isr, only_when=kafka_isr),
    _invariant("strong-isr", "the controller's ISR holds every leader's log below its HW", strong_isr,
               only_when=kafka_isr),
    _invariant("in-order", "the true leader's log holds the producer's records in send order", in_order),
    _invariant("no-duplicates", "no record is twice in the true leader's log", no_duplicates),
    _invariant("elr-holds-committed", "every electable ELR member holds every committed record", elr_holds_committed,
               True, only_when=eligible_leader_replicas),
)
"""In the order of their bits in `violations`."""

def _step_witness(name: str, summary: str, predicate) -> StepProperty:
    """A witness over steps: reached at a step where `predicate` (over packed rows) is false."""
    return StepProperty(name, summary, _step_on_readable(predicate), needs_ghost=True, symmetric=True, witness=True)


STEP_PROPERTIES = (
    StepProperty("leader-hw-monotonic", "a leader's HW never moves back while it leads (a step property)",
                 _step_on_readable(leader_hw_never_decreases), symmetric=True),
    StepProperty("isr-join-caught-up", "a follower joins the ISR only holding the leader's records below its HW "
                 "(a step property)", _step_on_readable(joins_caught_up), symmetric=True),
    _step_witness("acked-with-1-down", "a write is acknowledged while a broker is down and lacks it",
                  no_ack_with_1_down),
    _step_witness("acked-with-2-down", "a write is acknowledged while two brokers are down and lack it",
                  no_ack_with_2_down),
)
"""In the order of their bits in `broken_steps`."""

INVARIANTS = (*STATE_INVARIANTS[:4], *STEP_PROPERTIES[:2], *STATE_INVARIANTS[4:], *STEP_PROPERTIES[2:])
"""Every property, in listing order: the invariants, then the witnesses."""
