"""How `spec` states and steps read to a person: replicas r1..rN, records `a@e0` (record a,
appended in leader epoch 0), and each action in Kafka's own vocabulary."""

from __future__ import annotations

from checker.model import Lane

from .state import NONE, Record, SpecState, members


def replica_name(r: int) -> str:
    """r1..rN for replica ids 0..N-1, 'none' for no replica."""
    return "none" if r == NONE else f"r{r + 1}"


def record_letter(rid: int) -> str:
    """A producer write by its id alone: ids 0, 1, ... become a, b, ... (as in `a@e0`)."""
    return chr(ord('a') + rid)


def record_name(record: Record) -> str:
    """A record as `a@e0`: producer write a (`record_letter`) in leader epoch 0."""
    return f"{record_letter(record.id)}@e{record.epoch}"


def log_text(log: tuple) -> str:
    """A log as `[0:a@e0, 1:b@e1]`, offset first."""
    return "[" + ", ".join(f"{offset}:{record_name(rec)}" for offset, rec in enumerate(log)) + "]"


def isr_text(isr: int) -> str:
    """A replica set as `{r1, r2}`."""
    return "{" + ", ".join(replica_name(r) for r in members(isr)) + "}"


def describe_step(action: tuple, before: SpecState, after: SpecState, truncation_rule: str) -> str:
    """One step in protocol words, e.g. "r2 becomes follower of r1 in epoch 2, truncates its
    log to offset 1 (its HW)"."""
    kind, *args = action
    if kind == "ControllerElectLeader":
        q = after.quorum
        return f"controller elects {replica_name(args[0])} leader in epoch {q.epoch} with ISR {isr_text(q.isr)}"
    if kind == "ControllerShrinkIsr":
        q = after.quorum
        return (f"controller removes {replica_name(args[0])} (broker failure): epoch {q.epoch}, "
                f"leader {replica_name(q.leader)}, ISR {isr_text(q.isr)}")
    if kind == "BecomeLeader":
        r, epoch = args
        mine = after.replicas[r]
        return f"{replica_name(r)} becomes leader in epoch {epoch} with ISR {isr_text(mine.isr)}, keeping HW {mine.hw}"
    if kind == "LeaderWrite":
        r = args[0]
        log = after.replicas[r].log
        return f"{replica_name(r)} (presumed leader) appends {record_name(log[-1])} at offset {len(log) - 1}"
    if kind == "LeaderIncHighWatermark":
        r = args[0]
        return f"{replica_name(r)} advances its HW to {after.replicas[r].hw}"
    if kind == "LeaderShrinkIsr":
        leader, f = args
        return f"{replica_name(leader)} removes lagging {replica_name(f)} from the ISR: {isr_text(after.quorum.isr)}"
    if kind == "LeaderExpandIsr":
        leader, f = args
        return f"{replica_name(leader)} adds caught-up {replica_name(f)} to the ISR: {isr_text(after.quorum.isr)}"
    if kind == "FollowerReplicate":
        f, leader = args
        mine = after.replicas[f]
        return (f"{replica_name(f)} fetches {record_name(mine.log[-1])} from {replica_name(leader)} at offset "
                f"{len(mine.log) - 1}; its HW becomes {mine.hw}")
    if kind == "BecomeFollower":
        r, leader, epoch = args
        old, new = before.replicas[r].log, after.replicas[r].log
        lost = old[len(new):]
        text = (f"{replica_name(r)} becomes follower of {replica_name(leader)} in epoch {epoch}, "
                f"truncates its log to offset {len(new)} ({truncation_rule})")
        if lost:
            text += ", dropping " + ", ".join(record_name(rec) for rec in lost)
        return text
    raise ValueError(f"unknown spec action {kind!r}")


def replica_columns(state: SpecState) -> dict[str, list[str]]:
    """Each replica as lines (log; LEO and HW; epoch and role), plus the controller's view."""
    columns = {}
    for r, rep in enumerate(state.replicas):
        if rep.leader == r:
            role = f"leader, ISR {isr_text(rep.isr)}"
        elif rep.leader == NONE:
            role = "no leader"
        else:
            role = f"follows {replica_name(rep.leader)}"
        epoch = "-" if rep.epoch < 0 else f"e{rep.epoch}"
        columns[replica_name(r)] = [log_text(rep.log), f"LEO {len(rep.log)} HW {rep.hw}", f"{epoch} {role}"]
    q = state.quorum
    epoch = "-" if q.epoch < 0 else f"e{q.epoch}"
    sent = " ".join(f"e{req.epoch}" for req in state.requests) or "-"
    columns["controller"] = [f"{epoch} leader {replica_name(q.leader)}", f"ISR {isr_text(q.isr)}", f"sent {sent}"]
    return columns


def replica_lanes(state: SpecState) -> dict:
    """Each replica as a lane: record cells, HW, LEO, leadership and an 'e1 leader' caption."""
    lanes = {}
    for r, rep in enumerate(state.replicas):
        epoch = "-" if rep.epoch < 0 else f"e{rep.epoch}"
        role = "leader" if rep.leader == r else "no leader" if rep.leader == NONE else f"follows {replica_name(rep.leader)}"
        lanes[replica_name(r)] = Lane(tuple(record_name(rec) for rec in rep.log), rep.hw, len(rep.log),
                                      rep.leader == r, f"{epoch} {role}")
    return lanes
