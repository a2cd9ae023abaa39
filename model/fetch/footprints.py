"""What each `fetch` step reads and writes, for `--reduce` (see `checker.independence`).

Cells, per broker r: ("alive", r); ("log", r), its records, LEO and epoch cache; ("flushed",
r); ("checkpoint", r), its HW checkpoint; ("hw", r); ("role", r), its epoch and the leader it
follows; ("isr", r), its ISR; ("remote", r), the remote LEOs it keeps of the others; ("fetch",
r), its own FETCH in flight and the answer to it; ("inbox", r), its unhandled LeaderAndIsr
requests; ("registration", r), the broker as the controller sees it (up or not, in an epoch or
not, with a request waiting or not). Shared: ("records",), the producer writes so far; ("crashes",); ("disks",) and
("fencings",), the disk losses and fencings so far; ("controller",), the controller's record
with the ELR and the stops it has yet to learn of; ("producer",), the retrying producer's
requests and answers; ("ghost",), what producers were promised and consumers saw.

The ghost variables are brought up to date after every step (`ghost.update_ghost`) from the true
leader's and the pending writes' leaders' alive flag, role, ISR, HW and log: a function of the
state that only adds to what it finds, so two steps with disjoint footprints leave the same ghost
in either order, and no step lists that update. One exception is declared: whether a leader's HW
rising commits records depends on whether the controller still names it leader in its epoch, so
the steps that raise a leader's HW (a write, a FETCH served) read the controller's record.
Which steps may change a property is declared per property (`changed_by`), in the words of the
invariants.

Footprints are written wide where a rule's reads depend on the variant (the controller's
updates, the truncation point, the majority quorum's checks): a wider footprint is always
sound, it only reduces less. The retrying producer's steps and the majority quorum's elections
are not described: `EVERYTHING` (no reduction while they can happen).
"""

from __future__ import annotations

from checker.independence import EVERYTHING, Footprint, footprint
from checker.kernel.jit import python_of

from .kinds import (ACTION_KINDS, BECOME_FOLLOWER, BECOME_LEADER, CHECKPOINT_HW, CLEAN_SHUTDOWN, CONTROLLED_SHUTDOWN,
                    CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, CRASH, FENCE_LIVE_BROKER, FLUSH,
                    FOLLOWER_APPLY_RESPONSE, FOLLOWER_FETCH, LEADER_EXPAND_ISR, LEADER_HANDLE_PRODUCE,
                    LEADER_SERVE_FETCH, LEADER_SHRINK_ISR, NO_LEADER, NO_VOTER, PRODUCER_RECEIVE_ACK, PRODUCER_SEND,
                    CONTROLLER_FAILOVER, PREFERRED_REPLICA_ELECTION, PRODUCER_TIMEOUT, PRODUCER_WRITE, RESTART, RESTART_EMPTY,
                    WIN_ELECTION)
from .conditions import (ANSWERED, BACK, BEHIND, CRASHES_LEFT, DISK_LOSSES_LEFT, DOWN, ENOUGH_INSYNC,
                         FENCINGS_LEFT, FETCH_TO, FOLLOWS, GONE, IDLE_SLOT, LEADS, LEADS_EPOCH, MEMBER, NEWER_EPOCH,
                         NO_BOUNCE, OUTSIDE, RECORDS_LEFT, REQUEST_FOR, ROOM, TRUE_LEADER, UNFLUSHED, UP)
from .layout import ACKS_ALL
from .rule_kernels import (asks_leader, bounce_missed, broker_epochs, eligible_leaders, expands_in_fetch, fenced,
                           isr_change_keeps_leader_epoch, majority_quorum, prefers_replica, shrink_bumps_leader_epoch)

CONTROLLER, RECORDS, CRASHES, DISKS, FENCINGS, PRODUCER, GHOST = (
    ("controller",), ("records",), ("crashes",), ("disks",), ("fencings",), ("producer",), ("ghost",))


def cells(name: str, replicas) -> list[tuple]:
    """The cell `name` of each of these brokers."""
    return [(name, r) for r in replicas]


def _controller(lay) -> tuple[list, list]:
    """(reads, writes) of a controller step: the partition's record, the stops so far, and each
    broker's registration as the controller sees it (alive, in an epoch or not, a LeaderAndIsr
    waiting or not); it writes the record and delivers LeaderAndIsr, always of a new epoch, which
    commutes with a broker handling the older ones it holds. An ISR change that keeps the leader
    epoch (kafka37 on) also rewrites the requests of that epoch waiting and sets the leader's ISR
    and HW at once, and a new broker epoch (kip903 on) makes every leader's remote LEO of that
    broker stale."""
    everyone = range(lay.replicas)
    reads = [CONTROLLER, CRASHES, *cells("registration", everyone)]
    writes = [CONTROLLER]
    if python_of(isr_change_keeps_leader_epoch)(lay):
        reads += [*cells("role", everyone), *cells("inbox", everyone), *cells("isr", everyone),
                  *cells("remote", everyone), *cells("log", everyone), *cells("hw", everyone)]
        writes += [*cells("inbox", everyone), *cells("isr", everyone), *cells("hw", everyone)]
    if python_of(broker_epochs)(lay):
        writes += cells("remote", everyone)
    return reads, writes


def _going_down(n: int, r: int) -> tuple[list, list]:
    """(reads, writes) of broker r stopping: it loses its unflushed records and its memory, the
    FETCHes to it and its produce connections are dropped, the stop is counted, and under
    KIP-966 the controller will learn how it stopped."""
    reads = [("alive", r), ("flushed", r), ("log", r), ("hw", r), *cells("fetch", range(n)), PRODUCER]
    writes = [("alive", r), ("registration", r), ("log", r), ("flushed", r), ("checkpoint", r), ("hw", r),
              ("role", r), ("isr", r), ("remote", r), ("inbox", r), *cells("fetch", range(n)), PRODUCER, CRASHES,
              CONTROLLER]
    return reads, writes


CONTROLLER_STEPS = (CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, FENCE_LIVE_BROKER, CONTROLLED_SHUTDOWN)
"""The controller's steps, each naming the broker it handles and the leader after it."""


def step_footprints(lay) -> dict[tuple, Footprint]:
    """Every step this instance can take, (kind, arguments...) -> its footprint: the cells it
    reads and writes, and the conditions (`model.fetch.conditions`) it needs, whose enablers
    `condition_enablers` names."""
    n = lay.replicas
    everyone, epochs = range(n), range(lay.max_epoch + 1)
    after = [*everyone, NO_LEADER]
    steps: dict[tuple, Footprint] = {}
    controller_reads, controller_writes = _controller(lay)
    in_fetch = python_of(expands_in_fetch)(lay)
    isr_quorum = not python_of(majority_quorum)(lay)
    bumps = python_of(shrink_bumps_leader_epoch)(lay)
    handling_registers = bool(lay.max_fencings or lay.controlled_shutdown)
    missed = python_of(bounce_missed)(lay)
    for r in everyone:
        if not lay.retries:
            steps[PRODUCER_WRITE, r] = footprint(
                guard=[("role", r), ("isr", r), ("log", r)], budgets=[RECORDS],
                reads=[("alive", r), ("hw", r), ("remote", r), CONTROLLER],
                writes=[("log", r), ("flushed", r), ("hw", r), RECORDS, GHOST],
                needs=[(RECORDS_LEFT,), (UP, r), (LEADS, r), (ROOM, r),
                       *([(ENOUGH_INSYNC, r)] if lay.acks == ACKS_ALL else [])])
        steps[FOLLOWER_FETCH, r] = footprint(
            guard=[("role", r), ("fetch", r)], reads=[("alive", r), ("log", r)], writes=[("fetch", r)],
            needs=[(UP, r), (FOLLOWS, r), (IDLE_SLOT, r)])
        steps[FOLLOWER_APPLY_RESPONSE, r] = footprint(
            guard=[("fetch", r)], reads=[("alive", r), ("role", r), ("log", r), ("hw", r), ("flushed", r)],
            writes=[("fetch", r), ("log", r), ("flushed", r), ("hw", r)], needs=[(UP, r), (ANSWERED, r)])
        for f in (f for f in everyone if f != r):
            steps[LEADER_SERVE_FETCH, r, f] = footprint(
                guard=[("fetch", f), ("alive", r)],
                reads=[("role", r), ("isr", r), ("log", r), ("remote", r), ("hw", r), ("log", f), CONTROLLER],
                writes=[("fetch", f), ("remote", r), ("hw", r), ("isr", r), *([CONTROLLER] if in_fetch else [])],
                needs=[(FETCH_TO, f, r), (UP, r)])
            isr_change = dict(reads=[("alive", r), ("role", r), ("isr", r), ("remote", r), ("log", r), ("hw", r),
                                     CONTROLLER, *([CRASHES, *cells("registration", everyone)] if bumps else [])],
                              writes=[("isr", r), ("hw", r), ("remote", r), CONTROLLER])
            if isr_quorum:
                steps[LEADER_SHRINK_ISR, r, f] = footprint(
                    guard=[CONTROLLER, ("role", r), ("isr", r), ("remote", r), ("log", r)],
                    needs=[(TRUE_LEADER, r), (MEMBER, r, f), (BEHIND, r, f)], **isr_change)
            if isr_quorum and not in_fetch:
                steps[LEADER_EXPAND_ISR, r, f] = footprint(
                    guard=[CONTROLLER, ("role", r), ("isr", r), ("remote", r), ("hw", r), ("log", r)],
                    needs=[(TRUE_LEADER, r), (OUTSIDE, r, f)], **isr_change)
        down_reads, down_writes = _going_down(n, r)
        steps[CRASH, r] = footprint(guard=[("alive", r)], budgets=[CRASHES], reads=down_reads, writes=down_writes,
                                    needs=[(CRASHES_LEFT,), (UP, r)])
        if python_of(eligible_leaders)(lay):
            steps[CLEAN_SHUTDOWN, r] = footprint(guard=[("alive", r)], budgets=[CRASHES], reads=down_reads,
                                                 writes=down_writes, needs=[(CRASHES_LEFT,), (UP, r)])
        steps[RESTART, r] = footprint(guard=[("alive", r)], reads=[("checkpoint", r), ("log", r)],
                                      writes=[("alive", r), ("registration", r), ("hw", r)], needs=[(DOWN, r)])
        if lay.max_disk_losses:
            steps[RESTART_EMPTY, r] = footprint(
                guard=[("alive", r)], budgets=[DISKS], needs=[(DISK_LOSSES_LEFT,), (DOWN, r)],
                writes=[("alive", r), ("registration", r), ("log", r), ("flushed", r), ("checkpoint", r), ("hw", r),
                        CONTROLLER, DISKS])
        steps[CHECKPOINT_HW, r] = footprint(guard=[("alive", r), ("checkpoint", r), ("hw", r)],
                                            writes=[("checkpoint", r)], needs=[(UP, r)])
        steps[FLUSH, r] = footprint(guard=[("flushed", r), ("log", r)], reads=[("alive", r)],
                                    writes=[("flushed", r)], needs=[(UP, r), (UNFLUSHED, r)])
        for x in after:
            if isr_quorum:  # before 2.2 the controller also drops what it had queued for r
                steps[CONTROLLER_NOTICE_FAILURE, r, x] = footprint(
                    guard=controller_reads, writes=[*controller_writes, *([("inbox", r)] if missed else [])],
                    needs=[(GONE, r)])
            steps[CONTROLLER_NOTICE_RESTART, r, x] = footprint(guard=controller_reads, writes=controller_writes,
                                                               needs=[(BACK, r)] + [(NO_BOUNCE,)] * isr_quorum)
            if lay.max_fencings:
                steps[FENCE_LIVE_BROKER, r, x] = footprint(guard=controller_reads, budgets=[FENCINGS],
                                                           writes=[*controller_writes, FENCINGS],
                                                           needs=[(FENCINGS_LEFT,), (NO_BOUNCE,), (UP, r)])
            if lay.controlled_shutdown:
                steps[CONTROLLED_SHUTDOWN, r, x] = footprint(guard=controller_reads, budgets=[CRASHES],
                                                             reads=down_reads,
                                                             writes=[*controller_writes, *down_writes],
                                                             needs=[(CRASHES_LEFT,), (UP, r)])
        handled = [("inbox", r), *([("registration", r)] if handling_registers else [])]
        for e in epochs:
            steps[BECOME_LEADER, r, e] = footprint(
                guard=[("inbox", r)], needs=[(UP, r), (NEWER_EPOCH, r, e), (REQUEST_FOR, r, e, r)],
                reads=[("alive", r), ("role", r), ("log", r), ("remote", r), ("hw", r)],
                writes=[("log", r), ("remote", r), ("role", r), ("isr", r), ("fetch", r), ("hw", r), *handled])
            for ldr in everyone:
                asked = []
                if python_of(asks_leader)(lay):
                    asked = [(UP, ldr), (LEADS_EPOCH, ldr, e) if python_of(fenced)(lay) else (LEADS, ldr)]
                steps[BECOME_FOLLOWER, r, ldr, e] = footprint(
                    guard=[("inbox", r), ("alive", ldr), ("role", ldr)],
                    needs=[(UP, r), (NEWER_EPOCH, r, e), (REQUEST_FOR, r, e, ldr), *asked],
                    reads=[("alive", r), ("role", r), ("log", r), ("log", ldr), ("hw", r), ("flushed", r)],
                    writes=[("log", r), ("flushed", r), ("hw", r), ("role", r), ("isr", r), ("fetch", r), *handled])
        if python_of(prefers_replica)(lay):
            steps[PREFERRED_REPLICA_ELECTION, r] = footprint(guard=controller_reads, writes=controller_writes,
                                                             needs=[(NO_BOUNCE,)])
    if missed:  # a new controller reads every broker's registration and role, and writes every inbox
        for x in after:
            steps[CONTROLLER_FAILOVER, x] = footprint(
                guard=[*controller_reads, *cells("role", everyone), *cells("inbox", everyone)],
                writes=[*controller_writes, *cells("inbox", everyone)])
    if not isr_quorum:
        voters = [*everyone, NO_VOTER]
        steps.update({(WIN_ELECTION, c, a, b): EVERYTHING for c in everyone for a in voters for b in voters})
    if lay.retries:
        for rid in range(lay.max_records):
            steps[PRODUCER_RECEIVE_ACK, rid] = steps[PRODUCER_TIMEOUT, rid] = EVERYTHING
            for r in everyone:
                steps[PRODUCER_SEND, rid, r] = steps[LEADER_HANDLE_PRODUCE, r, rid] = EVERYTHING
    return steps


def condition_enablers(lay, steps) -> dict[tuple, list[tuple]]:
    """For every condition some step of `steps` needs, the steps that can make it true: a broker
    comes up by a restart and goes down by a stop; the budgets (stops, disk losses, fencings,
    records left) only shrink; a broker leads, and leads an epoch, by handling a LeaderAndIsr
    naming it leader; ... (each line below says one)."""
    n = lay.replicas
    everyone = range(n)
    declared = lambda keys: [k for k in keys if k in steps]  # noqa: E731
    kinds = lambda kind, *args: declared(k for k in steps if k[0] == kind  # noqa: E731
                                        and all(a is None or k[1 + i] == a for i, a in enumerate(args)))
    stops = lambda r: [*kinds(CRASH, r), *kinds(CLEAN_SHUTDOWN, r), *kinds(CONTROLLED_SHUTDOWN, r)]  # noqa: E731
    restarts = lambda r: [*kinds(RESTART, r), *kinds(RESTART_EMPTY, r)]  # noqa: E731
    everyone_stops = [k for r in everyone for k in stops(r)]
    controller = [k for k in steps if k[0] in CONTROLLER_STEPS]
    keeps_epoch = python_of(isr_change_keeps_leader_epoch)(lay)
    in_fetch = python_of(expands_in_fetch)(lay)
    bumps = python_of(shrink_bumps_leader_epoch)(lay)
    new_broker_epochs = python_of(broker_epochs)(lay)
    table = {(CRASHES_LEFT,): [], (DISK_LOSSES_LEFT,): [], (FENCINGS_LEFT,): [], (RECORDS_LEFT,): [],
             (NO_BOUNCE,): [*kinds(CONTROLLER_NOTICE_FAILURE), *everyone_stops]}
    for r in everyone:
        isr_writers = [*kinds(BECOME_LEADER, r), *kinds(BECOME_FOLLOWER, r), *(controller if keeps_epoch else [])]
        table.update({
            (UP, r): restarts(r),
            (DOWN, r): stops(r),
            (LEADS, r): kinds(BECOME_LEADER, r),
            (ROOM, r): [*kinds(BECOME_FOLLOWER, r), *stops(r), *restarts(r), *kinds(FOLLOWER_APPLY_RESPONSE, r)],
            (ENOUGH_INSYNC, r): [*isr_writers, *kinds(LEADER_EXPAND_ISR, r),
                                 *(kinds(LEADER_SERVE_FETCH, r) if in_fetch else [])],
            (FOLLOWS, r): kinds(BECOME_FOLLOWER, r),
            (IDLE_SLOT, r): [*kinds(FOLLOWER_APPLY_RESPONSE, r), *kinds(BECOME_FOLLOWER, r),
                             *kinds(BECOME_LEADER, r), *everyone_stops],
            (ANSWERED, r): kinds(LEADER_SERVE_FETCH, None, r),
            (UNFLUSHED, r): [*kinds(PRODUCER_WRITE, r), *kinds(FOLLOWER_APPLY_RESPONSE, r)],
            (TRUE_LEADER, r): kinds(BECOME_LEADER, r),
            (GONE, r): [*stops(r), *restarts(r), *kinds(CONTROLLER_NOTICE_FAILURE)],
            (BACK, r): [*restarts(r), *kinds(FENCE_LIVE_BROKER, r)],
        })
        for e in range(lay.max_epoch + 1):
            table[NEWER_EPOCH, r, e] = stops(r)
            table[LEADS_EPOCH, r, e] = kinds(BECOME_LEADER, r, e)
            for ldr in everyone:
                table[REQUEST_FOR, r, e, ldr] = [*(k for k in controller if k[2] == ldr),
                                                  *kinds(PREFERRED_REPLICA_ELECTION, ldr),
                                                  *kinds(CONTROLLER_FAILOVER, ldr),
                                                  *(kinds(LEADER_SHRINK_ISR, ldr) if bumps else [])]
        for f in everyone:
            table[FETCH_TO, f, r] = kinds(FOLLOWER_FETCH, f)
            table[MEMBER, r, f] = [*isr_writers, *kinds(LEADER_EXPAND_ISR, r, f),
                                   *(kinds(LEADER_SERVE_FETCH, r, f) if in_fetch else [])]
            table[OUTSIDE, r, f] = [*isr_writers, *kinds(LEADER_SHRINK_ISR, r, f), *stops(r)]
            table[BEHIND, r, f] = [*kinds(PRODUCER_WRITE, r), *kinds(LEADER_SERVE_FETCH, r, f),
                                   *kinds(BECOME_LEADER, r), *stops(r), *kinds(LEADER_SHRINK_ISR, r, f),
                                   *kinds(FOLLOWER_APPLY_RESPONSE, r), *(controller if new_broker_epochs else [])]
    return table


CYCLE_KINDS = (FOLLOWER_APPLY_RESPONSE, LEADER_EXPAND_ISR)
"""Every cycle of a `fetch` state graph takes a step of one of these kinds (or one described as
`EVERYTHING`): the budgets (records, stops, epochs, disk losses, fencings) only grow, so a cycle
can only send and serve FETCHes, flush, checkpoint, and shrink and expand an ISR, and a FETCH
round ends by applying its answer, a shrink is undone only by an expansion. A reduced search
expands in full every state whose stubborn set holds one (`checker.kernel.reduction`)."""


UNSEEN_BY_LEADERS = frozenset({FOLLOWER_FETCH, FOLLOWER_APPLY_RESPONSE, FLUSH, CHECKPOINT_HW, RESTART,
                               LEADER_SERVE_FETCH})
"""Steps that never change what the properties about the true leader's log and the ghost read: a
FETCH sent or answered (a leader's HW may rise, but only over records it holds, which it keeps),
a follower applying an answer (a broker that leads has no FETCH of its own in flight, so the
follower is not the true leader), a flush or an HW checkpoint (no property reads the disk), and
a restart (the broker comes back leading nothing)."""
ABOUT_THE_LEADER = ("committed-survives", "acked-survives", "in-order", "no-duplicates")
"""The state properties that read only the controller, the true leader's log and HW, and the
ghost."""
KEEPS_COMMITTED = frozenset({BECOME_FOLLOWER, PRODUCER_WRITE, LEADER_EXPAND_ISR, LEADER_SHRINK_ISR})
"""Steps that, besides `UNSEEN_BY_LEADERS`, never change whether the committed records are in the
true leader's log: a broker becoming follower is not the true leader (the controller has moved
past its epoch), a write appends a new record after the committed ones, and an ISR change by the
true leader keeps it true leader (but for kip903's shrink, in a new epoch) and only raises the HW
over records it holds."""
UNSEEN = frozenset({FOLLOWER_FETCH, FLUSH, CHECKPOINT_HW})
"""Steps that change nothing any state property reads: a FETCH sent (the follower's request
slot), a flush, an HW checkpoint."""


def changed_by(lay, names) -> dict[str, frozenset]:
    """The step kinds that may change whether each property holds (`checker.independence`):
    every kind but `UNSEEN_BY_LEADERS` for the properties about the true leader's log (and but
    `KEEPS_COMMITTED` too for committed-survives), every kind but `UNSEEN` for the other state
    properties and for the step properties (a step that breaks one is visible to it: a reduced
    search keeps the breaking step as it keeps a state that violates an invariant)."""
    from invariants.fetch import STATE_INVARIANTS, STEP_PROPERTIES

    kinds = frozenset(range(len(ACTION_KINDS)))
    unseen = {name: UNSEEN_BY_LEADERS if name in ABOUT_THE_LEADER else UNSEEN
              for name in [*(inv.name for inv in STATE_INVARIANTS), *(prop.name for prop in STEP_PROPERTIES)]}
    unseen["committed-survives"] = UNSEEN_BY_LEADERS | KEEPS_COMMITTED - (
        {LEADER_SHRINK_ISR} if python_of(shrink_bumps_leader_epoch)(lay) else set())
    return {name: kinds - unseen[name] for name in names}
