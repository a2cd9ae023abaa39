"""Invariants of the `fetch` model, in the words of the operator's question: can an
acknowledged or committed write be lost, and can replicas disagree?"""

from __future__ import annotations

from checker.invariant import Invariant, StepProperty
from model.fetch.ghost import true_leader
from model.fetch.state import NONE, FetchState, members


def _held_by_true_leader(state: FetchState, records: tuple) -> bool:
    t = true_leader(state)
    if t is None:
        return True
    log = state.brokers[t].log
    return all(offset < len(log) and log[offset] == record for offset, record in records)


def committed_survives(state: FetchState) -> bool:
    """Every record that was ever below a true leader's HW is at its offset in the current true
    leader's log, whenever there is one.

    A failure means a consumer could have read a message that the partition no longer has:
    committed data was lost (or replaced) by a truncation or an election."""
    return _held_by_true_leader(state, state.committed)


def acked_survives(state: FetchState) -> bool:
    """Every acknowledged write is at its offset in the current true leader's log.

    A failure means a producer was told its write succeeded and the write is gone: expected
    with acks=1 (the leader acknowledges before any follower has the record), a protocol bug
    with acks=all and min.insync.replicas=2 unless every replica crashed."""
    return _held_by_true_leader(state, state.acked)


def no_divergence(state: FetchState) -> bool:
    """No two live replicas in the same leader epoch hold different records at an offset below
    both of their HWs. (Replicas in different epochs may disagree for a while: that is what
    truncation on becoming follower repairs. What survives into a common epoch is never
    repaired.)

    A failure means the replicas' logs have diverged below what each considers committed:
    consumers reading from different leaders over time see different data at the same offset,
    and nothing in the protocol will ever repair it."""
    live = [b for b in state.brokers if b.alive and b.epoch >= 0]
    for i, a in enumerate(live):
        for b in live[i + 1:]:
            upto = min(a.hw, b.hw, a.leo, b.leo)
            if a.epoch == b.epoch and a.log[:upto] != b.log[:upto]:
                return False
    return True


def hw_monotonic(state: FetchState) -> bool:
    """The committed offset consumers see (the true leader's HW) is never below the highest one
    they have seen before (a ghost variable kept across leader changes).

    A failure means the committed offset moved backwards on a failover: the new leader's HW was
    its old follower HW, one fetch round behind (KAFKA-2334; KIP-207 later made new leaders wait
    before serving offsets)."""
    t = true_leader(state)
    return t is None or state.brokers[t].hw >= state.consumer_hw


def leader_hw_never_decreases(before: FetchState, action: tuple, after: FetchState) -> bool:
    """A replica that leads in the same epoch before and after a step has not lowered its HW.

    A failure means a leader moved its HW backwards while it stayed leader: records consumers
    could read would become invisible again without any failover. Kafka's leader only ever
    raises its HW (on a produce append, a fetch, becoming leader, an ISR change)."""
    for r, (b, a) in enumerate(zip(before.brokers, after.brokers)):
        if b.alive and a.alive and b.leader == a.leader == r and b.epoch == a.epoch and a.hw < b.hw:
            return False
    return True


def single_leader(state: FetchState) -> bool:
    """At most one live replica believes it leads in any given leader epoch.

    A failure means two brokers accept writes for the same epoch, so epoch-based truncation
    cannot tell their records apart."""
    epochs = [b.epoch for r, b in enumerate(state.brokers) if b.alive and b.leader == r]
    return len(epochs) == len(set(epochs))


def leader_in_isr(state: FetchState) -> bool:
    """The controller's leader, when there is one, is in the controller's ISR.

    A failure means the controller handed leadership to a replica not known to hold every
    committed record: an unclean election."""
    c = state.controller
    return c.leader == NONE or c.isr >> c.leader & 1 == 1


def _agrees_below_hw(state: FetchState, r1: int, isr: int) -> bool:
    hw = state.brokers[r1].hw
    committed = state.brokers[r1].log[:hw]
    return all(len(committed) == hw and state.brokers[r2].log[:hw] == committed for r2 in members(isr))


def weak_isr(state: FetchState) -> bool:
    """Every live replica that believes it leads agrees, below its HW, with every member of its
    own ISR view.

    A failure means a leader counts as in sync a replica that lacks records it has already
    exposed to consumers."""
    return all(not b.alive or b.leader != r or _agrees_below_hw(state, r, b.isr) for r, b in enumerate(state.brokers))


def strong_isr(state: FetchState) -> bool:
    """Every live replica that believes it leads agrees, below its HW, with every member of the
    controller's ISR, the set the next clean election picks from.

    A failure means the next clean election may pick a replica that lacks a record consumers
    could already read."""
    isr = state.controller.isr
    return all(not b.alive or b.leader != r or _agrees_below_hw(state, r, isr) for r, b in enumerate(state.brokers))


INVARIANTS = (
    Invariant("committed-survives", "committed records stay in the true leader's log", committed_survives, True),
    Invariant("acked-survives", "acknowledged writes stay in the true leader's log", acked_survives, True),
    Invariant("no-divergence", "no two replicas in one epoch differ below both their HWs", no_divergence),
    Invariant("hw-monotonic", "the HW consumers see never goes backwards", hw_monotonic, True),
    StepProperty("leader-hw-monotonic", "a leader's HW never moves back while it leads (a step property)",
                 leader_hw_never_decreases),
    Invariant("single-leader", "at most one replica leads per epoch", single_leader),
    Invariant("leader-in-isr", "the controller's leader, if any, is in its ISR", leader_in_isr),
    Invariant("weak-isr", "a leader's ISR view holds its log below its HW", weak_isr),
    Invariant("strong-isr", "the controller's ISR holds every leader's log below its HW", strong_isr),
)
