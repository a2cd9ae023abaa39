"""How `fetch` states and steps read to a person."""

from __future__ import annotations

from checker.model import Lane

from ..spec.words import isr_text, log_text, record_name, replica_name
from .kinds import NO_VOTER
from .state import NONE, FetchRequest, FetchResponse, FetchState


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


def describe_step(action: tuple, before: FetchState, after: FetchState) -> str:
    """One step in Kafka's words (the controller's steps say whom an election picked)."""
    kind, *args = action
    name = replica_name(args[0]) if args else ""
    c = after.controller
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
        return (f"{replica_name(leader)} records {replica_name(f)}'s LEO {answer.offset}, HW now "
                f"{after.brokers[leader].hw}; answers {records_text(len(answer.records))} and HW {answer.hw}")
    if kind == "FollowerApplyResponse":
        b = after.brokers[args[0]]
        lost = before.brokers[args[0]].log[b.leo:]
        if lost:
            return (f"{name} truncates its log to offset {b.leo} where it diverges from its leader's, dropping "
                    + ", ".join(record_name(x) for x in lost))
        return f"{name} applies the FETCH response: LEO {b.leo}, HW {b.hw}"
    if kind == "LeaderShrinkIsr":
        return f"{name} removes lagging {replica_name(args[1])} from the ISR: {isr_text(c.isr)}"
    if kind == "LeaderExpandIsr":
        return f"{name} adds caught-up {replica_name(args[1])} to the ISR: {isr_text(c.isr)}"
    if kind == "Crash":
        return f"{name} crashes (keeps {after.brokers[args[0]].leo} flushed records, HW checkpoint {after.brokers[args[0]].checkpoint})"
    if kind == "Restart":
        return f"{name} restarts with HW {after.brokers[args[0]].hw}"
    if kind == "CheckpointHw":
        return f"{name} checkpoints its HW {after.brokers[args[0]].checkpoint}"
    if kind == "Flush":
        return f"{name} flushes its log to disk"
    if kind in ("ControllerNoticeFailure", "ControllerNoticeRestart"):
        what = "dead" if kind == "ControllerNoticeFailure" else "back"
        elected = c.epoch != before.controller.epoch and before.controller.leader in (args[0], NONE)
        leader = f"leader {replica_name(c.leader)}"
        if elected:
            leader = "nobody to elect (offline)" if c.leader == NONE else f"elects {replica_name(c.leader)}"
        return f"controller notices {name} is {what}: epoch {c.epoch}, {leader}, ISR {isr_text(c.isr)}"
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
    if state.acked or state.committed:
        columns["ghost"] = ["acked " + ", ".join(f"{o}:{record_name(x)}" for o, x in state.acked),
                            "committed " + ", ".join(f"{o}:{record_name(x)}" for o, x in state.committed)]
    return columns


def _arrow(msg) -> tuple[str, str, str] | None:
    """An in-flight fetch as (peer, label, direction) for the lanes picture."""
    if isinstance(msg, FetchRequest):
        return replica_name(msg.leader), f"FETCH {msg.offset}", "to"
    if isinstance(msg, FetchResponse):
        label = "refused" if msg.fenced else f"diverges at {msg.diverging}" if msg.diverging >= 0 else \
            f"{len(msg.records)} rec, HW {msg.hw}"
        return replica_name(msg.leader), label, "from"
    return None


def broker_lanes(state: FetchState) -> dict[str, Lane]:
    """Each broker as a lane for pictures: log cells (flushed ones solid), HW, LEO, role, whether
    it is up, and its in-flight FETCH or response as an arrow."""
    lanes = {}
    for r, b in enumerate(state.brokers):
        lanes[replica_name(r)] = Lane(tuple(record_name(x) for x in b.log), b.hw, b.leo, b.alive and b.leader == r,
                                      _role(r, b), b.flushed, b.alive, _arrow(b.fetch))
    return lanes
