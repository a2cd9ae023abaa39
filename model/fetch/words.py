"""How `fetch` states and steps read to a person."""

from __future__ import annotations

from checker.model import Lane

from ..spec.words import isr_text, log_text, record_letter, record_name, replica_name
from .kinds import NO_VOTER
from .retries import APPEND, DUPLICATE, NOT_ENOUGH_REPLICAS, NOT_LEADER
from .layout import CLEAN_STOP, UNCLEAN_STOP
from .state import (ACKED, APPENDED, FAILED, NONE, SEND_STATUSES, SENT, STOPS, UNSENT, FetchRequest, FetchResponse,
                    FetchState, members)

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def records_text(n: int) -> str:
    """'1 record', '2 records': how many records a FETCH response carries."""
    return f"{n} record" if n == 1 else f"{n} records"


def _message(msg) -> str:
    if isinstance(msg, FetchRequest):
        return f"FETCH(offset {msg.offset}, e{msg.epoch}) to {replica_name(msg.leader)}"
    if isinstance(msg, FetchResponse):
        if msg.fenced:
            return f"refused by {replica_name(msg.leader)}"
        if msg.diverging >= 0:
            return f"diverging from {replica_name(msg.leader)}'s log after offset {msg.diverging}"
        return f"response from {replica_name(msg.leader)}: {records_text(len(msg.records))}, HW {msg.hw}"
    return "-"


def sequence_text(rid: int) -> str:
    """A record of the retrying producer by its id, which is its sequence number: 'b (sequence 1)'."""
    return f"{record_letter(rid)} (sequence {rid})"


def _refusal(outcome: int, leader, before_log: tuple) -> str:
    """Why a leader refused a produce request, with Kafka's error code."""
    if outcome == NOT_LEADER:
        return "it does not lead (NOT_LEADER_OR_FOLLOWER)"
    if outcome == NOT_ENOUGH_REPLICAS:
        return f"its ISR {isr_text(leader.isr)} is below min.insync.replicas (NOT_ENOUGH_REPLICAS)"
    last = max((x.id for x in before_log), default=-1)
    return f"out of order, its log expects sequence {last + 1} (OUT_OF_ORDER_SEQUENCE_NUMBER)"


def describe_produce(action: tuple, before: FetchState, after: FetchState, outcome: int | None) -> str:
    """A step of the retrying producer in Kafka's words; `outcome` says how a leader handled a
    request (`retries.produce_outcome`)."""
    kind, *args = action
    if kind == "ProducerSend":
        rid, r = args
        verb = "retries" if before.producer[rid].status == FAILED else "sends"
        done = "; with acks=0 it counts as sent" if after.producer[rid].status == ACKED else ""
        return f"producer {verb} {sequence_text(rid)} to {replica_name(r)}{done}"
    if kind == "LeaderHandleProduce":
        r, rid = args
        name, b = replica_name(r), after.brokers[r]
        if outcome == APPEND:
            return (f"{name} appends {record_name(b.log[-1])} (sequence {rid}) at offset {b.leo - 1}; "
                    f"{name}'s HW is {b.hw}")
        if outcome == DUPLICATE:
            offset = next(i for i, x in enumerate(b.log) if x.id == rid)
            return f"{name} drops duplicate {sequence_text(rid)} and answers with its offset {offset}"
        unheard = "; with acks=0 nobody hears of it" if after.producer[rid].status != FAILED else ""
        return (f"{name} refuses {sequence_text(rid)}: "
                f"{_refusal(outcome, before.brokers[r], before.brokers[r].log)}{unheard}")
    rid = args[0]
    sent = before.producer[rid]
    if kind == "ProducerReceiveAck":
        return (f"producer receives {replica_name(sent.leader)}'s acknowledgement of {sequence_text(rid)} at offset "
                f"{sent.offset}")
    if sent.status == APPENDED:
        return (f"{replica_name(sent.leader)}'s answer for {sequence_text(rid)} is lost (it appended it at offset "
                f"{sent.offset}): the producer times out")
    to = before.request_target(rid)
    where = f"to {replica_name(to)} " if to != NONE else ""
    return f"producer's request for {sequence_text(rid)} {where}times out or was lost"


def describe_step(action: tuple, before: FetchState, after: FetchState, outcome: int | None = None) -> str:
    """One step in Kafka's words (the controller's steps say whom an election picked; `outcome`
    is how a leader handled a produce request)."""
    kind, *args = action
    name = replica_name(args[0]) if args else ""
    c = after.controller
    if kind in ("ProducerSend", "LeaderHandleProduce", "ProducerReceiveAck", "ProducerTimeout"):
        return describe_produce(action, before, after, outcome)
    if kind == "ProducerWrite":
        b = after.brokers[args[0]]
        return f"producer writes {record_name(b.log[-1])} to {name} at offset {b.leo - 1}; {name}'s HW is {b.hw}"
    if kind == "FollowerFetch":
        return f"{name} sends {_message(after.brokers[args[0]].fetch)}"
    if kind == "LeaderServeFetch":
        leader, f = args
        answer = after.brokers[f].fetch
        if answer.fenced:
            return f"{replica_name(leader)} refuses {replica_name(f)}'s FETCH (not leader, or another epoch)"
        if answer.diverging >= 0:
            return (f"{replica_name(leader)} finds {replica_name(f)}'s FETCH at offset {answer.offset} does not continue "
                    f"its log; the two logs agree up to offset {answer.diverging}")
        joined = after.brokers[leader].isr != before.brokers[leader].isr
        adds = f", adds it to the ISR: {isr_text(after.brokers[leader].isr)}" if joined else ""
        return (f"{replica_name(leader)} records {replica_name(f)}'s LEO {answer.offset}{adds}, HW now "
                f"{after.brokers[leader].hw}; answers {records_text(len(answer.records))} and HW {answer.hw}")
    if kind == "FollowerApplyResponse":
        b = after.brokers[args[0]]
        lost = before.brokers[args[0]].log[b.leo:]
        if lost:
            return (f"{name} truncates its log to offset {b.leo} where it diverges from its leader's, dropping "
                    + ", ".join(record_name(x) for x in lost))
        return f"{name} applies the FETCH response: LEO {b.leo}, HW {b.hw}"
    elr = f", ELR {isr_text(c.elr)}" if c.elr or before.controller.elr else ""
    if kind == "LeaderShrinkIsr":
        bumped = (f"; the controller starts epoch {c.epoch} with it, which {name} takes up when it handles it"
                  if c.epoch != before.controller.epoch else "")
        return f"{name} removes lagging {replica_name(args[1])} from the ISR: {isr_text(c.isr)}{elr}{bumped}"
    if kind == "LeaderExpandIsr":
        return f"{name} adds caught-up {replica_name(args[1])} to the ISR: {isr_text(c.isr)}{elr}"
    if kind == "CleanShutdown":
        b = after.brokers[args[0]]
        return f"{name} shuts down cleanly (flushes {b.leo} records, HW checkpoint {b.checkpoint}, clean-shutdown marker)"
    if kind == "Crash":
        return f"{name} crashes (keeps {after.brokers[args[0]].leo} flushed records, HW checkpoint {after.brokers[args[0]].checkpoint})"
    if kind == "Restart":
        return f"{name} restarts with HW {after.brokers[args[0]].hw}"
    if kind == "RestartEmpty":
        return f"{name} restarts on an empty disk: no records, no epoch cache, HW 0"
    if kind == "CheckpointHw":
        return f"{name} checkpoints its HW {after.brokers[args[0]].checkpoint}"
    if kind == "Flush":
        return f"{name} flushes its log to disk"
    if kind in ("ControllerNoticeFailure", "ControllerNoticeRestart"):
        return _controller_notice(kind, args[0], before, after)
    if kind == "FenceLiveBroker":
        return (f"controller fences {name}, which still runs (an expired session, missed heartbeats): "
                f"{_failure_handled(args[0], before, after)}; {name} keeps its log and its view")
    if kind == "ControlledShutdown":
        b = after.brokers[args[0]]
        return (f"{name} shuts down in a controlled way: the controller moves it out first "
                f"({_failure_handled(args[0], before, after)}); {name} flushes {records_text(b.leo)}, checkpoints "
                f"HW {b.checkpoint} and stops")
    if kind == "ControllerFailover":
        b = before.controller
        back = [replica_name(r) for r in members(b.offline & ~c.offline)]
        seen = f"; sees {', '.join(back)} back" if back else ""
        if c.epoch != b.epoch:
            return (f"a new controller takes over{seen}: epoch {c.epoch}, elects {replica_name(c.leader)}, "
                    f"ISR {isr_text(c.isr)}")
        sent = [replica_name(r) for r, (x, y) in enumerate(zip(before.brokers, after.brokers))
                if len(y.inbox) > len(x.inbox) or set(y.inbox) - set(x.inbox)]
        told = f"; sends {', '.join(sent)} the current LeaderAndIsr (epoch {c.epoch})" if sent else ""
        return f"a new controller takes over{seen}{told}"
    if kind == "PreferredReplicaElection":
        return (f"controller moves leadership to the preferred replica {name}: epoch {c.epoch}, elects {name}, "
                f"ISR {isr_text(c.isr)}")
    if kind == "BecomeLeader":
        b = after.brokers[args[0]]
        return f"{name} becomes leader in epoch {args[1]} with ISR {isr_text(b.isr)}, HW {b.hw}"
    if kind == "BecomeFollower":
        r, leader, epoch = args
        lost = before.brokers[r].log[after.brokers[r].leo:]
        text = (f"{name} becomes follower of {replica_name(leader)} in epoch {epoch}, "
                f"truncates its log to offset {after.brokers[r].leo}")
        return text + (", dropping " + ", ".join(record_name(x) for x in lost) if lost else "")
    if kind == "WinElection":
        voters = ", ".join(replica_name(r) for r in args if r != NO_VOTER)
        b = after.brokers[args[0]]
        return f"{name} wins the election for epoch {c.epoch} with the votes of {voters}; its HW is {b.hw}"
    raise ValueError(f"unknown fetch action {kind!r}")


def _controller_notice(kind: str, r: int, before: FetchState, after: FetchState) -> str:
    """The controller noticing a death or a registration: whom it elects, and under kip966 how
    the broker had stopped and where the ELR stands."""
    b, c, name = before.controller, after.controller, replica_name(r)
    what = "dead" if kind == "ControllerNoticeFailure" else "back"
    if kind == "ControllerNoticeFailure" and before.brokers[r].alive:
        what = "back before it was seen dead, so fails it first"
    if kind == "ControllerNoticeRestart" and before.brokers[r].last_stop:
        what += " after a clean shutdown" if before.brokers[r].last_stop == CLEAN_STOP else \
            " after an unclean shutdown (no clean-shutdown marker)"
    leader = f"leader {replica_name(c.leader)}"
    unclean = 1 << r if kind == "ControllerNoticeRestart" and before.brokers[r].last_stop == UNCLEAN_STOP else 0
    isr, elr = b.isr & ~unclean, b.elr & ~unclean  # an unclean registrant leaves both before the election
    if c.epoch != b.epoch and b.leader in (r, NONE):
        leader = "nobody to elect (offline)" if c.leader == NONE else f"elects {replica_name(c.leader)}"
        if c.leader != NONE and not isr >> c.leader & 1 and elr >> c.leader & 1:
            leader += " from the ELR"
        elif c.leader != NONE and c.leader == b.last_leader and not (isr | elr) >> c.leader & 1:
            leader += " as the last known leader"
    epoch = f"epoch {c.epoch}" if c.epoch != b.epoch else f"still epoch {c.epoch}"
    text = f"controller notices {name} is {what}: {epoch}, {leader}, ISR {isr_text(c.isr)}"
    return text + (f", ELR {isr_text(c.elr)}" if c.elr or b.elr else "")


def _failure_handled(r: int, before: FetchState, after: FetchState) -> str:
    """What the controller's handling of broker r as gone wrote: 'epoch 1, elects r2, ISR {r2}'
    (the part of a failure notice after its subject)."""
    return _controller_notice("ControllerNoticeFailure", r, before, after).split(": ", 1)[1]


def _role(r: int, b) -> str:
    """'e1 leader', 'e0 follows r1', '- crashed'..."""
    epoch = "-" if b.epoch < 0 else f"e{b.epoch}"
    role = "crashed" if not b.alive else "leader" if b.leader == r else \
        "no leader" if b.leader == NONE else f"follows {replica_name(b.leader)}"
    return f"{epoch} {role}"


def broker_columns(state: FetchState) -> dict[str, list[str]]:
    """Each broker (log, LEO/HW/flushed, epoch and role, in-flight fetch) and the controller."""
    columns = {}
    for r, b in enumerate(state.brokers):
        isr = f", ISR {isr_text(b.isr)}" if b.alive and b.leader == r else ""
        columns[replica_name(r)] = [log_text(b.log), f"LEO {b.leo} HW {b.hw} disk {b.flushed}/{b.checkpoint}",
                                    _role(r, b) + isr, _message(b.fetch)]
    c = state.controller
    columns["controller"] = [f"e{c.epoch} leader {replica_name(c.leader)}", f"ISR {isr_text(c.isr)}",
                             f"dead {isr_text(c.offline)}"]
    if c.preferred != NONE:
        columns["controller"].append(f"preferred {replica_name(c.preferred)}")
    if c.elr or c.last_leader != NONE or any(b.last_stop for b in state.brokers):
        columns["controller"] += [f"ELR {isr_text(c.elr)}", f"last known leader {replica_name(c.last_leader)}",
                                  "unregistered " + (", ".join(f"{replica_name(r)} ({STOPS[b.last_stop]})"
                                                               for r, b in enumerate(state.brokers) if b.last_stop)
                                                     or "-")]
    if state.producer:
        columns["producer"] = [_producer_line(rid, p) for rid, p in enumerate(state.producer)] + [
            "in flight: " + (", ".join(f"{record_letter(q.record)} to {replica_name(q.leader)}"
                                       for q in state.requests) or "-")]
    if state.acked or state.committed:
        columns["ghost"] = ["acked " + ", ".join(f"{o}:{record_name(x)}" for o, x in state.acked),
                            "committed " + ", ".join(f"{o}:{record_name(x)}" for o, x in state.committed)]
    return columns


def _producer_line(rid: int, p) -> str:
    """One record as the retrying producer sees it: 'b appended by r1 at 1@e0, answer pending'."""
    line = f"{record_letter(rid)} {SEND_STATUSES[p.status]}"
    if p.status == APPENDED:
        line += f" by {replica_name(p.leader)} at {p.offset}@e{p.record_epoch}, answer pending"
    return line


def _arrow(msg) -> tuple[str, str, str] | None:
    """An in-flight fetch as (peer, label, direction) for the lanes picture."""
    if isinstance(msg, FetchRequest):
        return replica_name(msg.leader), f"FETCH {msg.offset}", "to"
    if isinstance(msg, FetchResponse):
        label = "refused" if msg.fenced else f"diverges at {msg.diverging}" if msg.diverging >= 0 else \
            f"{len(msg.records)} rec, HW {msg.hw}"
        return replica_name(msg.leader), label, "from"
    return None


def _producer_caption(state: FetchState) -> str:
    """The retrying producer's records in a few words per line, for its lane: 'a sent → r1',
    'b appended r1@0, waiting' (for the answer), 'a failed', 'a acked' (records not yet sent are left out)."""
    lines = []
    for rid, p in enumerate(state.producer):
        letter = record_letter(rid)
        if p.status == SENT:
            to = state.request_target(rid)
            lines.append(f"{letter} sent → {replica_name(to)}" if to != NONE else f"{letter} sent")
        elif p.status == APPENDED:
            lines.append(f"{letter} appended {replica_name(p.leader)}@{p.offset}, waiting")
        elif p.status != UNSENT:
            lines.append(f"{letter} {SEND_STATUSES[p.status]}")
    return "\n".join(lines) or "nothing sent"


def broker_lanes(state: FetchState) -> dict[str, Lane]:
    """Each broker as a lane for pictures: log cells (flushed ones solid), HW, LEO, role, whether
    it is up, and its in-flight FETCH or response as an arrow; with the retrying producer, a
    last lane that says where each of its records stands."""
    lanes = {}
    for r, b in enumerate(state.brokers):
        lanes[replica_name(r)] = Lane(tuple(record_name(x) for x in b.log), b.hw, b.leo, b.alive and b.leader == r,
                                      _role(r, b), b.flushed, b.alive, _arrow(b.fetch))
    if state.producer:
        lanes["producer"] = Lane((), None, None, False, _producer_caption(state))
    return lanes
