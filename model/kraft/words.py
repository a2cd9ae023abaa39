"""The `kraft` model in a person's words: a step as what happened, a voter as a column of a
step table and as a lane of a picture (epoch, role, vote, log, HW; a leader's view of each
voter's fetched offset)."""

from __future__ import annotations

from checker.model import Lane

from . import messages as msg, voter_sets
from .state import CANDIDATE, CONTROL, FOLLOWER, LEADER, NIL, PROSPECTIVE, RESIGN_REQUESTED, RESIGNED, ROLES, KRaftState

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def voter(v: int) -> str:
    """Voter v (1..n) as pictures and tables name it; 0 is nobody."""
    return f"n{v}" if v != NIL else "nobody"


def entry(epoch: int, value: int, replicas: int) -> str:
    """A log entry of a quorum of `replicas` controllers: `v1@e2` for client value 1 written in
    epoch 2, `LC@e2` for epoch 2's LeaderChange record, `voters{n1, n2}@e2` for a VotersRecord
    (with the LeaderChange record when it starts its epoch)."""
    if value < 0:
        return f"voters{voter_sets.describe(-value, replicas)}@e{epoch}"
    return f"{'LC' if value == CONTROL else f'v{value}'}@e{epoch}"


def box_label(epoch: int, value: int, replicas: int) -> str:
    """A log entry as a picture's box shows it: as `entry`, but a VotersRecord as `{123}@e2`, its
    voters' numbers (a later directory marked `'`)."""
    if value >= 0:
        return entry(epoch, value, replicas)
    voters = voter_sets.members(-value, replicas)
    return "{" + "".join(f"{v}" + "'" * d for v, d in voters.items()) + f"}}@e{epoch}"


def entries(log: tuple, replicas: int) -> str:
    """A log as its entries (`entry`)."""
    return " ".join(entry(epoch, value, replicas) for epoch, value in log) or "empty"


def message(m: tuple, replicas: int) -> str:
    """A message among `replicas` controllers in a few words."""
    kind, src, dst, epoch = m[:4]
    head = f"{msg.NAMES[kind]} {voter(src)}->{voter(dst)} e{epoch}"
    if kind == msg.VOTE_REQUEST or kind == msg.PRE_VOTE_REQUEST:
        key = f", for directory {m[6]}" if len(m) > 7 and m[6] else ""  # a faithful request to a later disk
        return f"{head} (log ends e{m[4]} offset {m[5]}{key})"
    if kind == msg.FETCH_REQUEST:
        directory = f", directory {m[6]}" if len(m) > 7 and m[6] else ""  # a faithful FETCH after a lost disk
        parked = ", parked" if len(m) > 8 and m[7] else ""  # at a faithful leader inside flushLeaderLog
        return f"{head} (offset {msg.fetch_offset(m)}, last epoch {msg.last_fetched_epoch(m)}{directory}{parked})"
    if kind == msg.VOTE_RESPONSE:
        answer = msg.fields(m)
        said = "granted" if answer.granted else "refused"
        return f"{head} {said}" + (f" {msg.ERRORS[answer.error]}" if answer.error else "")
    if kind == msg.FETCH_RESPONSE:
        answer = msg.fields(m)
        if answer.result == msg.OK:
            return f"{head} {entries(answer.entries, replicas) if answer.entries else 'no records'}, HW {answer.hwm}"
        if answer.result == msg.DIVERGING:
            return f"{head} diverging: epoch {answer.diverging_epoch} ends at {answer.diverging_end_offset}"
        return f"{head} {msg.ERRORS[answer.error]}"
    if kind == msg.BEGIN_QUORUM_REQUEST and len(m) > 5 and m[4]:  # a faithful request to a later disk
        return f"{head} (for directory {m[4]})"
    return head + (f" {msg.ERRORS[m[4]]}" if kind == msg.BEGIN_QUORUM_RESPONSE and m[4] else "")


def sent(before: KRaftState, after: KRaftState) -> list[tuple]:
    """The messages a step sent (their count went up), not counting a faithful variant's
    request that only stopped being expected (`model.kraft.kafka.channels.reset`)."""
    had = dict(before.messages)
    stale = {m[:-1] for m in had if m[0] in msg.REQUESTS}
    return [m for m, c in after.messages if c > had.get(m, 0) and not (m[0] in msg.REQUESTS and m[:-1] in stale)]


def _change(before: KRaftState, after: KRaftState, i: int) -> str:
    """"; now <role> in epoch e, leader n" when the step moved voter i, else ""."""
    if (before.role[i], before.epoch[i], before.leader[i]) == (after.role[i], after.epoch[i], after.leader[i]):
        return ""
    return f"; now {ROLES[after.role[i]]} in epoch {after.epoch[i]}" + \
        (f", leader {voter(after.leader[i])}" if after.leader[i] != NIL and after.role[i] != RESIGNED else "")


def _vote_answer(me: str, sender: int, before: KRaftState, after: KRaftState, i: int) -> str:
    """A nominee receiving a vote answer, and whether it was a vote (or, to a prospective, a
    granted pre-vote)."""
    if before.role[i] == PROSPECTIVE:
        answer = next((m for m, _ in before.messages if m[0] == msg.VOTE_RESPONSE and msg.source(m) == sender
                       and msg.dest(m) == i + 1), None)
        granted = answer is not None and msg.fields(answer).granted and not msg.fields(answer).error
        return f"{me} receives {voter(sender)}'s pre-vote answer ({'granted' if granted else 'refused'})"
    got = bin(after.votes[i]).count("1") > bin(before.votes[i]).count("1")
    return f"{me} receives {voter(sender)}'s vote answer" + (" (a vote)" if got else "")


def _begin_quorum(me: str, sender: int, epoch: int) -> str:
    """A voter receiving BeginQuorumEpoch."""
    return f"{me} receives BeginQuorumEpoch from {voter(sender)} for epoch {epoch}"


def _sent_line(before: KRaftState, after: KRaftState) -> str:
    """What a step sent, in a few words, or "nothing" ."""
    return "; ".join(message(m, len(before.role)) for m in sent(before, after)) or "nothing"


def describe_kafka_step(action: tuple, before: KRaftState, after: KRaftState) -> str:
    """A faithful variant's step as what a voter did (`model.kraft.kafka`)."""
    kind, who = action[0], action[1]
    i, n = who - 1, len(before.role)
    me = voter(who)
    if kind == "Restart":
        lost = len(before.log[i]) - len(after.log[i])
        return (f"{me} crashes and restarts from its quorum-state file as {ROLES[after.role[i]]} in epoch "
                f"{after.epoch[i]}" + (f", losing {lost} unflushed record(s)" if lost else "") + ", HW forgotten")
    if kind == "LoseDisk":
        if after.directory[i] == before.directory[i]:  # --reformat initial-controllers: the listed id again
            return (f"{me} comes back on a new, empty disk formatted with --initial-controllers: directory "
                    f"{after.directory[i]} again and the bootstrap voter set; unattached in epoch 0, no log")
        return f"{me} comes back on a new, empty disk (directory {after.directory[i]}): unattached in epoch 0, no log"
    if kind == "Timeout":
        tail = " and leads it at once (it is the only voter)" if after.role[i] == LEADER else ""
        if after.role[i] == PROSPECTIVE:
            return (f"{me} times out and becomes a prospective in epoch {after.epoch[i]}: it asks for pre-votes "
                    f"before it stands")
        return f"{me} times out and stands for election in epoch {after.epoch[i]}, voting for itself" + tail
    if kind == "ProspectiveTimeout":
        return f"{me}'s election timer runs out before a majority granted its pre-vote" + _change(before, after, i)
    if kind == "SendVoteRequests":
        asked = "pre-votes" if before.role[i] == PROSPECTIVE else "votes"
        return f"{me} asks for {asked}: {_sent_line(before, after)}"
    if kind == "SendBeginQuorumEpoch":
        return f"{me} sends {_sent_line(before, after)}"
    if kind == "AppendLeaderChange":
        voters = after.log[i][-1][1]
        record = f"LeaderChange and VotersRecord {voter_sets.describe(-voters, n)}" if voters < 0 else "LeaderChange"
        return f"{me} appends its {record} record at offset {after.start_offset[i]} in epoch {after.epoch[i]}" + \
            (f"; HW {after.hw[i]}" if after.hw[i] != before.hw[i] else "")
    if kind in ("AddVoter", "RemoveVoter"):
        did = "adds" if kind == "AddVoter" else "removes"
        return (f"{me} {did} {voter(action[2])}: appends VotersRecord {voter_sets.describe(-after.log[i][-1][1], n)} "
                f"at offset {len(after.log[i]) - 1} in epoch {after.epoch[i]}, its voter set from now on") + \
            (f"; HW {after.hw[i]}" if after.hw[i] != before.hw[i] else "") + \
            ("; its own removal committed, it will resign" if after.voter_op[i] == RESIGN_REQUESTED else "")
    if kind == "Resign":
        return f"{me} resigns as leader of epoch {after.epoch[i]}: its removal from the voter set is committed"
    if kind == "ResignedTimeout":
        return f"{me}, resigned and no longer a voter, times out and leaves for epoch {after.epoch[i]}, unattached"
    if kind == "ClientAppend":
        return f"{me} appends client value v{action[2]} at offset {len(after.log[i]) - 1} in epoch {after.epoch[i]}" + \
            (f"; HW {after.hw[i]}, acknowledged" if after.hw[i] != before.hw[i] else "")
    if kind == "Flush":
        return f"{me} flushes its log to offset {after.flushed[i]}"
    if kind == "SendFetch":
        return f"{me} sends {_sent_line(before, after)}"
    change = _change(before, after, i)
    if kind == "HandleVoteRequest":
        answer = sent(before, after)
        said = message(answer[0], n) if answer else "a request its sender no longer waits for: no answer"
        request = next((m for m, _ in before.messages if m[0] in (msg.VOTE_REQUEST, msg.PRE_VOTE_REQUEST)
                        and msg.source(m) == action[2] and msg.dest(m) == who), None)
        name = msg.NAMES[request[0] if request else msg.VOTE_REQUEST]
        return f"{me} handles {voter(action[2])}'s {name} for epoch {action[3]}: {said}" + change
    if kind == "HandleVoteResponse":
        return _vote_answer(me, action[2], before, after, i) + change
    if kind == "HandleBeginQuorumEpoch":
        return _begin_quorum(me, action[2], action[3]) + change
    if kind == "HandleBeginQuorumEpochResponse":
        return f"{me} receives {voter(action[2])}'s BeginQuorumEpoch answer" + change
    if kind == "HandleFetchRequest":
        answer = sent(before, after)
        hw = f"; its HW goes to {after.hw[i]}" if after.hw[i] != before.hw[i] else ""
        resign = "; its own removal committed, it will resign" if after.voter_op[i] == RESIGN_REQUESTED and \
            before.voter_op[i] != RESIGN_REQUESTED else ""
        return f"{me} answers {voter(action[2])}'s FETCH: " + \
            (message(answer[0], n) if answer else "to no one (its sender no longer waits)") + hw + resign
    if after.role[i] != before.role[i] and ROLES[after.role[i]] == "illegal":
        answer = next((m for m, _ in before.messages if m[0] == msg.FETCH_RESPONSE and msg.dest(m) == who), None)
        if answer and msg.fields(answer).leader == who:
            return (f"{me} handles {voter(action[2])}'s FETCH answer, which names it leader of epoch {msg.epoch(answer)}, "
                    f"and throws: it does not lead (hasConsistentLeader)")
        return f"{me} handles {voter(action[2])}'s FETCH answer and throws (Kafka refuses it)"
    if len(after.log[i]) < len(before.log[i]):
        return f"{me} truncates its log to offset {len(after.log[i])}" + change
    added = after.log[i][len(before.log[i]):]
    if added or after.hw[i] != before.hw[i]:
        return f"{me} appends and flushes {entries(added, n) if added else 'nothing'}, HW {after.hw[i]}" + change
    return f"{me} handles {voter(action[2])}'s FETCH answer" + change


def describe_step(action: tuple, before: KRaftState, after: KRaftState) -> str:
    """The step as what a voter did."""
    if before.flushed:
        return describe_kafka_step(action, before, after)
    kind, who = action[0], action[1]
    i, n = who - 1, len(before.role)
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
    change = _change(before, after, i)
    if kind == "HandleRequestVoteRequest":
        answer = msg.fields(sent(before, after)[0])
        said = "grants its vote to" if answer.granted else "refuses its vote to"
        return f"{me} {said} {voter(action[2])} in epoch {action[3]}" + change
    if kind == "HandleRequestVoteResponse":
        return _vote_answer(me, action[2], before, after, i) + change
    if kind == "HandleBeginQuorumRequest":
        return _begin_quorum(me, action[2], action[3]) + change
    if kind in ("RejectFetchRequest", "DivergingFetchRequest", "AcceptFetchRequest"):
        hw = f"; its HW goes to {after.hw[i]}" if after.hw[i] != before.hw[i] else ""
        return f"{me} answers {voter(action[2])}'s FETCH: {message(sent(before, after)[0], n)}" + hw
    if kind == "HandleSuccessFetchResponse":
        added = after.log[i][len(before.log[i]):]
        return f"{me} appends {entries(added, n) if added else 'nothing'}, HW {after.hw[i]}"
    if kind == "HandleDivergingFetchResponse":
        return f"{me} truncates its log to offset {len(after.log[i])}"
    return f"{me} handles an error answer to its FETCH" + change


def voter_set(s: KRaftState, i: int) -> int | None:
    """Voter i's (index) voter set as a code (`model.kraft.voter_sets`) under KIP-853, as the
    kernel reads it off the packed state (`model.kraft.kafka.voter_set.voter_set`); None for
    static voters, whose set is everyone."""
    if not s.boot:
        return None
    from .kafka import codec, voter_set as kernel_sets
    from .kafka.layout import kafka_layout

    n = len(s.role)
    lay = kafka_layout(n, len(s.acked), max(len(log) for log in s.log), 0, len(s.end_offset[0]) // n - 1, True, True,
                       True)
    return int(kernel_sets.voter_set(codec.encode(s, lay), lay, i))


def _membership(s: KRaftState, i: int) -> str:
    """Voter i's voter set in words, and whether it is in it, for KIP-853 states ("" otherwise)."""
    code = voter_set(s, i)
    if code is None:
        return ""
    mine = voter_sets.members(code, len(s.role)).get(i + 1)
    return f"voters {voter_sets.describe(code, len(s.role))}" + ("" if mine == s.directory[i] else ", an observer")


def _fetched(s: KRaftState, i: int) -> str:
    """Leader i's view of each replica key's fetched end offset: every other controller's first
    disk, and a later disk once it has fetched."""
    n = len(s.role)
    disks = len(s.end_offset[i]) // n
    keys = [(h, d) for h in range(n) for d in range(disks)
            if (h, d) != (i, s.directory[i] if s.directory else 0) and (d == 0 or s.end_offset[i][h * disks + d])]
    return "fetched " + ", ".join(f"{voter(h + 1)}{f'/d{d}' if d else ''}:{s.end_offset[i][h * disks + d]}"
                                  for h, d in keys)


def _named(mask: int, replicas: int) -> str:
    """The voters in bitmask `mask` (bit j is voter j+1), or "nobody"."""
    return ", ".join(voter(j + 1) for j in range(replicas) if (mask >> j) & 1) or "nobody"


def _ballot(s: KRaftState, i: int) -> str:
    """Nominee i's count: who granted its (pre-)vote and who refused."""
    n, kind = len(s.role), "pre-votes" if s.role[i] == PROSPECTIVE else "votes"
    return f"{kind} granted by {_named(s.votes[i], n)}, refused by {_named(s.heard[i] & ~s.votes[i], n)}"


def columns(s: KRaftState) -> dict[str, list[str]]:
    """One column per voter and one for the messages in flight."""
    out, n = {}, len(s.role)
    for i in range(n):
        lines = [f"e{s.epoch[i]} {ROLES[s.role[i]]}", f"voted {voter(s.voted_for[i])}, leader {voter(s.leader[i])}",
                 f"log {entries(s.log[i], n)}", f"HW {s.hw[i]}"]
        if s.flushed:
            lines.append(f"flushed to {s.flushed[i]}" + (f", directory {s.directory[i]}" if s.directory[i] else ""))
        membership = _membership(s, i)
        if membership:
            lines.append(membership)
        if s.role[i] == LEADER and n > 1:
            lines.append(_fetched(s, i))
        if s.heard and s.role[i] in (CANDIDATE, PROSPECTIVE):
            lines.append(_ballot(s, i))
        if s.heard and s.role[i] == FOLLOWER and s.heard[i]:
            lines.append("its leader has answered its FETCH: it refuses pre-votes")
        if s.voter_op and s.voter_op[i]:
            lines.append("resign requested" if s.voter_op[i] == RESIGN_REQUESTED else
                         f"removal pending at offset {s.voter_op[i] - 1}")
        out[voter(i + 1)] = lines
    out["in flight"] = [f"{message(m, n)}" + (f" x{c}" if c > 1 else "") for m, c in s.messages if c > 0] or ["-"]
    return out


def _caption(s: KRaftState, i: int) -> str:
    """Voter i's lane caption: epoch, role and vote (an observer said instead of no vote), and
    where its flushed log ends when it has an unflushed tail."""
    observer = _membership(s, i).endswith("observer")
    vote = "observer" if observer and s.voted_for[i] == NIL else f"voted {voter(s.voted_for[i])}"
    return (f"e{s.epoch[i]} {ROLES[s.role[i]]}, {vote}" + (", observer" if observer and s.voted_for[i] else "")
            + (f", flushed to {s.flushed[i]}" if s.flushed and s.flushed[i] < len(s.log[i]) else ""))


def lanes(s: KRaftState) -> dict:
    """One lane per voter: its log's entries (`box_label`), HW and end, whether it leads, and its epoch, role
    and vote as the caption (and, in a faithful variant, where its flushed log ends when it has
    an unflushed tail)."""
    n = len(s.role)
    return {voter(i + 1): Lane(tuple(box_label(epoch, value, n) for epoch, value in s.log[i]), s.hw[i], len(s.log[i]),
                               s.role[i] == LEADER,
                               _caption(s, i))
            for i in range(n)}
