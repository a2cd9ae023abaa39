"""What each `fetch` step reads and writes, for `--reduce` (see `checker.independence`).

Cells, per broker r: ("alive", r); ("log", r), its records, LEO and epoch cache; ("flushed",
r); ("checkpoint", r), its HW checkpoint; ("hw", r); ("role", r), its epoch and the leader it
follows; ("isr", r), its ISR; ("remote", r), the remote LEOs it keeps of the others; ("fetch",
r), its own FETCH in flight and the answer to it; ("inbox", r), its unhandled LeaderAndIsr
requests. Shared: ("records",), the producer writes so far; ("crashes",); ("disks",) and
("fencings",), the disk losses and fencings so far; ("controller",), the controller's record
with the ELR and the stops it has yet to learn of; ("producer",), the retrying producer's
requests and answers; ("ghost",), what producers were promised and consumers saw.

The ghost variables are brought up to date after every step (`ghost.update_ghost`) from the true
leader's and the pending writes' leaders' alive flag, role, ISR, HW and log: a function of the
state that only adds to what it finds, so two steps with disjoint footprints leave the same ghost
in either order, and no step lists that update. Which steps may change a property is declared
per property (`changed_by`), in the words of the invariants.

Footprints are written wide where a rule's reads depend on the variant (the controller's
updates, the truncation point, the majority quorum's checks): a wider footprint is always
sound, it only reduces less. The retrying producer's steps and the majority quorum's elections
are not described: `EVERYTHING` (no reduction while they can happen).
"""

from __future__ import annotations

from checker.independence import EVERYTHING, Footprint, enabled_only_by, footprint

from .kinds import (ACTION_KINDS, BECOME_FOLLOWER, BECOME_LEADER, CHECKPOINT_HW, CLEAN_SHUTDOWN, CONTROLLED_SHUTDOWN,
                    CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, CRASH, FENCE_LIVE_BROKER, FLUSH,
                    FOLLOWER_APPLY_RESPONSE, FOLLOWER_FETCH, LEADER_EXPAND_ISR, LEADER_HANDLE_PRODUCE,
                    LEADER_SERVE_FETCH, LEADER_SHRINK_ISR, NO_LEADER, NO_VOTER, PRODUCER_RECEIVE_ACK, PRODUCER_SEND,
                    PRODUCER_TIMEOUT, PRODUCER_WRITE, RESTART, RESTART_EMPTY, WIN_ELECTION)
from .rule_kernels import (broker_epochs, eligible_leaders, expands_in_fetch, isr_change_keeps_leader_epoch,
                           majority_quorum, shrink_bumps_leader_epoch)

CONTROLLER, RECORDS, CRASHES, DISKS, FENCINGS, PRODUCER, GHOST = (
    ("controller",), ("records",), ("crashes",), ("disks",), ("fencings",), ("producer",), ("ghost",))


def cells(name: str, replicas) -> list[tuple]:
    """The cell `name` of each of these brokers."""
    return [(name, r) for r in replicas]


def _controller(lay) -> tuple[list, list]:
    """(reads, writes) of a controller step: who is registered and waiting (every broker's alive
    flag, epoch and inbox, the crashes so far), the partition's record, and the leader's view,
    remote LEOs, log and HW; it writes the record and delivers LeaderAndIsr to every inbox. An ISR
    change that keeps the leader epoch (kafka37 on) also sets the leader's ISR and HW at once, and
    a new broker epoch (kip903 on) makes every leader's remote LEO of that broker stale."""
    everyone = range(lay.replicas)
    reads = [CONTROLLER, CRASHES, *cells("alive", everyone), *cells("role", everyone), *cells("isr", everyone),
             *cells("inbox", everyone), *cells("remote", everyone), *cells("log", everyone), *cells("hw", everyone)]
    writes = [CONTROLLER, *cells("inbox", everyone)]
    if isr_change_keeps_leader_epoch.py_func(lay):
        writes += [*cells("isr", everyone), *cells("hw", everyone)]
    if broker_epochs.py_func(lay):
        writes += cells("remote", everyone)
    return reads, writes


def _going_down(n: int, r: int) -> tuple[list, list]:
    """(reads, writes) of broker r stopping: it loses its unflushed records and its memory, the
    FETCHes to it and its produce connections are dropped, the stop is counted, and under
    KIP-966 the controller will learn how it stopped."""
    reads = [("alive", r), ("flushed", r), ("log", r), ("hw", r), *cells("fetch", range(n)), PRODUCER]
    writes = [("alive", r), ("log", r), ("flushed", r), ("checkpoint", r), ("hw", r), ("role", r), ("isr", r),
              ("remote", r), ("inbox", r), *cells("fetch", range(n)), PRODUCER, CRASHES, CONTROLLER]
    return reads, writes


CONTROLLER_STEPS = (CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, FENCE_LIVE_BROKER, CONTROLLED_SHUTDOWN)
"""The controller's steps: whether one is enabled depends on brokers stopping, starting and
registering and on the partition's record, never on the data plane (a FETCH sent, answered or
applied, a write, a flush, an HW checkpoint), except an ISR change made while serving a FETCH."""


def step_footprints(lay) -> dict[tuple, Footprint]:
    """Every step this instance can take, (kind, arguments...) -> its footprint. A guard lists
    cells that decide, in every reachable state, whether the step is enabled: fewer than the
    step tests where the rest follows from them (a broker that is down has an empty inbox and no
    FETCH in flight, and follows nobody, though a FETCH sent to it before it went down waits; a
    LeaderAndIsr waiting is always of a newer epoch than the broker's), so a disabled step is
    enabled only by a step writing one of them, or by its `enabled_by` steps where named."""
    n = lay.replicas
    everyone, epochs = range(n), range(lay.max_epoch + 1)
    after = [*everyone, NO_LEADER]
    steps: dict[tuple, Footprint] = {}
    controller_reads, controller_writes = _controller(lay)
    in_fetch = expands_in_fetch.py_func(lay)
    isr_quorum = not majority_quorum.py_func(lay)
    bumps = shrink_bumps_leader_epoch.py_func(lay)

    def deliverers(ldr):
        """The steps that deliver a LeaderAndIsr naming `ldr` leader: the controller's steps whose
        leader after is `ldr`, and under kip903 an ISR shrink by `ldr`, in a new epoch."""
        return [*((kind, r, ldr) for kind in CONTROLLER_STEPS for r in everyone),
                *((LEADER_SHRINK_ISR, ldr, f) for f in everyone if bumps)]

    # the steps that stop a broker
    stops = [(kind, r) for kind in (CRASH, CLEAN_SHUTDOWN) for r in everyone]
    stops += [(CONTROLLED_SHUTDOWN, r, x) for r in everyone for x in after]
    for r in everyone:
        if not lay.retries:
            steps[PRODUCER_WRITE, r] = footprint(
                guard=[("role", r), ("isr", r), ("log", r)], budgets=[RECORDS],
                reads=[("alive", r), ("hw", r), ("remote", r)],
                writes=[("log", r), ("flushed", r), ("hw", r), RECORDS, GHOST])
        steps[FOLLOWER_FETCH, r] = footprint(
            guard=[("role", r), ("fetch", r)], reads=[("alive", r), ("log", r)], writes=[("fetch", r)],
            enabled_by=[(FOLLOWER_APPLY_RESPONSE, r), *stops, *((BECOME_FOLLOWER, r, ldr, e) for ldr in everyone
                                                                 for e in epochs)])
        steps[FOLLOWER_APPLY_RESPONSE, r] = footprint(
            guard=[("fetch", r)], reads=[("alive", r), ("role", r), ("log", r), ("hw", r), ("flushed", r)],
            writes=[("fetch", r), ("log", r), ("flushed", r), ("hw", r)],
            enabled_by=[(LEADER_SERVE_FETCH, ldr, r) for ldr in everyone])
        for f in everyone:
            steps[LEADER_SERVE_FETCH, r, f] = footprint(
                guard=[("fetch", f), ("alive", r)],
                reads=[("role", r), ("isr", r), ("log", r), ("remote", r), ("hw", r), ("log", f),
                       *([CONTROLLER] if in_fetch else [])],
                writes=[("fetch", f), ("remote", r), ("hw", r), ("isr", r), *([CONTROLLER] if in_fetch else [])],
                enabled_by=[(FOLLOWER_FETCH, f), (RESTART, r), (RESTART_EMPTY, r)])
            isr_change = dict(reads=[("alive", r), ("hw", r), *controller_reads],
                              writes=[("isr", r), ("hw", r), ("remote", r), CONTROLLER,
                                      *(cells("inbox", everyone) if bumps else [])])
            if isr_quorum:
                steps[LEADER_SHRINK_ISR, r, f] = footprint(
                    guard=[CONTROLLER, ("role", r), ("isr", r), ("remote", r), ("log", r)], **isr_change)
            if isr_quorum and not in_fetch:
                steps[LEADER_EXPAND_ISR, r, f] = footprint(
                    guard=[CONTROLLER, ("role", r), ("isr", r), ("remote", r), ("hw", r), ("log", r)],
                    **isr_change)
        down_reads, down_writes = _going_down(n, r)
        steps[CRASH, r] = footprint(guard=[("alive", r)], budgets=[CRASHES], reads=down_reads, writes=down_writes,
                                    enabled_by=[(RESTART, r), (RESTART_EMPTY, r)])
        if eligible_leaders.py_func(lay):
            steps[CLEAN_SHUTDOWN, r] = footprint(guard=[("alive", r)], budgets=[CRASHES], reads=down_reads,
                                                 writes=down_writes)
        steps[RESTART, r] = footprint(guard=[("alive", r)], reads=[("checkpoint", r), ("log", r)],
                                      writes=[("alive", r), ("hw", r)],
                                      enabled_by=[stop for stop in stops if stop[1] == r])
        if lay.max_disk_losses:
            steps[RESTART_EMPTY, r] = footprint(
                guard=[("alive", r)], budgets=[DISKS],
                writes=[("alive", r), ("log", r), ("flushed", r), ("checkpoint", r), ("hw", r), CONTROLLER, DISKS])
        steps[CHECKPOINT_HW, r] = footprint(guard=[("alive", r), ("checkpoint", r), ("hw", r)],
                                            writes=[("checkpoint", r)])
        steps[FLUSH, r] = footprint(guard=[("flushed", r), ("log", r)], reads=[("alive", r)],
                                    writes=[("flushed", r)],
                                    enabled_by=[(PRODUCER_WRITE, r), (FOLLOWER_APPLY_RESPONSE, r)])
        for x in after:
            if isr_quorum:
                steps[CONTROLLER_NOTICE_FAILURE, r, x] = footprint(guard=controller_reads, writes=controller_writes)
            steps[CONTROLLER_NOTICE_RESTART, r, x] = footprint(guard=controller_reads, writes=controller_writes)
            if lay.max_fencings:
                steps[FENCE_LIVE_BROKER, r, x] = footprint(guard=controller_reads, budgets=[FENCINGS],
                                                           writes=[*controller_writes, FENCINGS])
            if lay.controlled_shutdown:
                steps[CONTROLLED_SHUTDOWN, r, x] = footprint(guard=controller_reads, budgets=[CRASHES],
                                                             reads=down_reads,
                                                             writes=[*controller_writes, *down_writes])
        for e in epochs:
            steps[BECOME_LEADER, r, e] = footprint(
                guard=[("inbox", r)], enabled_by=deliverers(r),
                reads=[("alive", r), ("role", r), ("log", r), ("remote", r), ("hw", r)],
                writes=[("log", r), ("remote", r), ("role", r), ("isr", r), ("fetch", r), ("inbox", r), ("hw", r)])
            for ldr in everyone:
                steps[BECOME_FOLLOWER, r, ldr, e] = footprint(
                    guard=[("inbox", r), ("alive", ldr), ("role", ldr)],
                    enabled_by=[*deliverers(ldr), *((BECOME_LEADER, ldr, k) for k in epochs), (RESTART, ldr),
                                (RESTART_EMPTY, ldr)],
                    reads=[("alive", r), ("role", r), ("log", r), ("log", ldr), ("hw", r), ("flushed", r)],
                    writes=[("log", r), ("flushed", r), ("hw", r), ("role", r), ("isr", r), ("fetch", r),
                            ("inbox", r)])
    data_plane = {FOLLOWER_FETCH, FOLLOWER_APPLY_RESPONSE, PRODUCER_WRITE, FLUSH, CHECKPOINT_HW,
                  *(() if in_fetch else (LEADER_SERVE_FETCH,))}
    controller_enablers = [key for key in steps if key[0] not in data_plane]
    for key, fp in steps.items():
        if key[0] in CONTROLLER_STEPS:
            steps[key] = enabled_only_by(fp, controller_enablers)
    if not isr_quorum:
        voters = [*everyone, NO_VOTER]
        steps.update({(WIN_ELECTION, c, a, b): EVERYTHING for c in everyone for a in voters for b in voters})
    if lay.retries:
        for rid in range(lay.max_records):
            steps[PRODUCER_RECEIVE_ACK, rid] = steps[PRODUCER_TIMEOUT, rid] = EVERYTHING
            for r in everyone:
                steps[PRODUCER_SEND, rid, r] = steps[LEADER_HANDLE_PRODUCE, r, rid] = EVERYTHING
    return steps


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
UNSEEN = frozenset({FOLLOWER_FETCH, FLUSH, CHECKPOINT_HW})
"""Steps that change nothing any state property reads: a FETCH sent (the follower's request
slot), a flush, an HW checkpoint."""


def changed_by(lay, names) -> dict[str, frozenset | None]:
    """The step kinds that may change whether each property holds (`checker.independence`):
    every kind but `UNSEEN_BY_LEADERS` for the properties about the true leader's log, every
    kind but `UNSEEN` for the other state properties, any step for a step property (None)."""
    from invariants.fetch import STATE_INVARIANTS

    kinds = frozenset(range(len(ACTION_KINDS)))
    states = {inv.name for inv in STATE_INVARIANTS}
    return {name: (kinds - UNSEEN_BY_LEADERS if name in ABOUT_THE_LEADER else kinds - UNSEEN) if name in states
            else None for name in names}
