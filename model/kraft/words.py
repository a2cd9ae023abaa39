"""The `kraft` model in a person's words: a step as what happened, a voter as a column of a
step table and as a lane of a picture (epoch, role, vote, log, HW; a leader's view of each
voter's fetched offset)."""

from __future__ import annotations

from checker.model import Lane

from . import messages as msg
from .state import LEADER, NIL, ROLES, KRaftState


def voter(v: int) -> str:
    """Voter v (1..n) as pictures and tables name it; 0 is nobody."""
    return f"n{v}" if v != NIL else "nobody"


def entries(log: tuple) -> str:
    """A log as its entries, `v1@e2` for value 1 written in epoch 2."""
    return " ".join(f"v{value}@e{epoch}" for epoch, value in log) or "empty"


def message(m: tuple) -> str:
    """A message in a few words."""
    kind, src, dst, epoch = m[:4]
    head = f"{msg.NAMES[kind]} {voter(src)}->{voter(dst)} e{epoch}"
    if kind == msg.VOTE_REQUEST:
        return f"{head} (log ends e{m[4]} offset {m[5]})"
    if kind == msg.FETCH_REQUEST:
        return f"{head} (offset {msg.fetch_offset(m)}, last epoch {msg.last_fetched_epoch(m)})"
    if kind == msg.VOTE_RESPONSE:
        answer = msg.fields(m)
        said = "granted" if answer.granted else "refused"
        return f"{head} {said}" + (f" {msg.ERRORS[answer.error]}" if answer.error else "")
    if kind == msg.FETCH_RESPONSE:
        answer = msg.fields(m)
        if answer.result == msg.OK:
            return f"{head} {entries(answer.entries) if answer.entries else 'no records'}, HW {answer.hwm}"
        if answer.result == msg.DIVERGING:
            return f"{head} diverging: epoch {answer.diverging_epoch} ends at {answer.diverging_end_offset}"
        return f"{head} {msg.ERRORS[answer.error]}"
    return head + (f" {msg.ERRORS[m[4]]}" if kind == msg.BEGIN_QUORUM_RESPONSE and m[4] else "")


def sent(before: KRaftState, after: KRaftState) -> list[tuple]:
    """The messages a step sent (their count went up)."""
    had = dict(before.messages)
    return [m for m, c in after.messages if c > had.get(m, 0)]


def describe_step(action: tuple, before: KRaftState, after: KRaftState) -> str:
    """The step as what a voter did."""
    kind, who = action[0], action[1]
    i = who - 1
    me = voter(who)
    if kind == "Restart":
        return f"{me} restarts, keeping epoch {after.epoch[i]}, its vote and its log"
    if kind == "RequestVote":
        return f"{me} times out and stands for election in epoch {after.epoch[i]}, asking the others for votes"
    if kind == "BecomeLeader":
        return f"{me} has a majority of votes and leads epoch {after.epoch[i]}; sends BeginQuorumEpoch"
    if kind == "ClientRequest":
        return f"{me} appends client value v{action[2]} at offset {len(after.log[i])} in epoch {after.epoch[i]}"
    if kind == "SendFetchRequest":
        return f"{me} sends FETCH to {voter(action[2])} from offset {len(after.log[i])}"
    role = ROLES[after.role[i]]
    change = ""
    if (before.role[i], before.epoch[i], before.leader[i]) != (after.role[i], after.epoch[i], after.leader[i]):
        change = f"; now {role} in epoch {after.epoch[i]}" + \
                 (f", leader {voter(after.leader[i])}" if after.leader[i] != NIL else "")
    if kind == "HandleRequestVoteRequest":
        answer = msg.fields(sent(before, after)[0])
        said = "grants its vote to" if answer.granted else "refuses its vote to"
        return f"{me} {said} {voter(action[2])} in epoch {action[3]}" + change
    if kind == "HandleRequestVoteResponse":
        got = bin(after.votes[i]).count("1") > bin(before.votes[i]).count("1")
        return f"{me} receives {voter(action[2])}'s vote answer" + (" (a vote)" if got else "") + change
    if kind == "HandleBeginQuorumRequest":
        return f"{me} receives BeginQuorumEpoch from {voter(action[2])} for epoch {action[3]}" + change
    if kind in ("RejectFetchRequest", "DivergingFetchRequest", "AcceptFetchRequest"):
        hw = f"; its HW goes to {after.hw[i]}" if after.hw[i] != before.hw[i] else ""
        return f"{me} answers {voter(action[2])}'s FETCH: {message(sent(before, after)[0])}" + hw
    if kind == "HandleSuccessFetchResponse":
        added = after.log[i][len(before.log[i]):]
        return f"{me} appends {entries(added) if added else 'nothing'}, HW {after.hw[i]}"
    if kind == "HandleDivergingFetchResponse":
        return f"{me} truncates its log to offset {len(after.log[i])}"
    return f"{me} handles an error answer to its FETCH" + change


def columns(s: KRaftState) -> dict[str, list[str]]:
    """One column per voter and one for the messages in flight."""
    out = {}
    for i in range(len(s.role)):
        lines = [f"e{s.epoch[i]} {ROLES[s.role[i]]}", f"voted {voter(s.voted_for[i])}, leader {voter(s.leader[i])}",
                 f"log {entries(s.log[i])}", f"HW {s.hw[i]}"]
        if s.role[i] == LEADER:
            lines.append("fetched " + ", ".join(f"{voter(k + 1)}:{o}" for k, o in enumerate(s.end_offset[i]) if k != i))
        out[voter(i + 1)] = lines
    out["in flight"] = [f"{message(m)}" + (f" x{c}" if c > 1 else "") for m, c in s.messages if c > 0] or ["-"]
    return out


def lanes(s: KRaftState) -> dict:
    """One lane per voter: its log's entries, HW and end, whether it leads, and its epoch, role
    and vote as the caption."""
    return {voter(i + 1): Lane(tuple(f"v{value}@e{epoch}" for epoch, value in s.log[i]), s.hw[i], len(s.log[i]),
                               s.role[i] == LEADER,
                               f"e{s.epoch[i]} {ROLES[s.role[i]]}, voted {voter(s.voted_for[i])}")
            for i in range(len(s.role))}
