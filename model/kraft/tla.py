"""Variant `tla`: the steps of Jack Vanlightly's TLA+ specification of KRaft (`KRaft.tla`,
github Vanlightly/raft-tlaplus at 69ad9d6), one for one, so that the distinct and generated
state counts equal TLC's. Each function below is one of the specification's actions, named as
it names them; `successors` is its Next.

Where the specification and Kafka part (a combined timeout-and-Vote step, a restart that
forgets a vote, no flush, no quorum-state file), this variant follows the specification:
docs/models/kraft.md lists the differences."""

from __future__ import annotations

from typing import Iterator

from . import messages as msg
from .bounds import KRaftBounds
from .logs import end_offset_for_epoch, new_high_watermark, truncated, valid_fetch_position
from .messages import Bag
from .quorum_state import majority
from .state import ACKED, CANDIDATE, FOLLOWER, LEADER, NIL, UNATTACHED, VOTED, WRITTEN, KRaftState, last_epoch
from .transitions import Standing, common_response, maybe_transition, standing, to_voted

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _set(values: tuple, i: int, value) -> tuple:
    return values[:i] + (value,) + values[i + 1:]


def _with_standing(s: KRaftState, i: int, new: Standing) -> dict:
    """The fields of voter i's new role, epoch and leader."""
    return {"role": _set(s.role, i, new.role), "epoch": _set(s.epoch, i, new.epoch),
            "leader": _set(s.leader, i, new.leader)}


def restart(s: KRaftState, i: int, b: KRaftBounds) -> KRaftState | None:
    """Restart: voter i comes back as a follower of no one, keeping its epoch, vote and log,
    with no HW, no pending FETCH and no leader state."""
    if s.restarts >= b.max_restarts:
        return None
    n = len(s.role)
    return s._replace(role=_set(s.role, i, FOLLOWER), leader=_set(s.leader, i, NIL), votes=_set(s.votes, i, 0),
                      end_offset=_set(s.end_offset, i, (0,) * n), hw=_set(s.hw, i, 0), pending=_set(s.pending, i, ()),
                      restarts=s.restarts + 1)


def request_vote(s: KRaftState, i: int, b: KRaftBounds) -> KRaftState | None:
    """RequestVote: voter i times out, becomes a candidate in the next epoch, votes for itself
    and sends every other voter a Vote request with where its log ends."""
    if s.elections >= b.max_elections or s.role[i] not in (FOLLOWER, CANDIDATE, UNATTACHED):
        return None
    epoch, bag = s.epoch[i] + 1, Bag(s.messages)
    log = s.log[i]
    if not bag.send_all_once([msg.vote_request(i + 1, j + 1, epoch, last_epoch(log), len(log))
                              for j in range(len(s.role)) if j != i]):
        return None
    return s._replace(role=_set(s.role, i, CANDIDATE), epoch=_set(s.epoch, i, epoch), leader=_set(s.leader, i, NIL),
                      voted_for=_set(s.voted_for, i, i + 1), votes=_set(s.votes, i, 1 << i),
                      pending=_set(s.pending, i, ()), elections=s.elections + 1, messages=bag.frozen())


def handle_vote_request(s: KRaftState, m: tuple) -> KRaftState | None:
    """HandleRequestVoteRequest: a voter grants its vote when it has not voted in that epoch
    (or voted for this candidate) and the candidate's log ends no earlier than its own; a
    request from an older epoch is answered FENCED_LEADER_EPOCH."""
    i, j, bag = msg.dest(m) - 1, msg.source(m), Bag(s.messages)
    if msg.epoch(m) < s.epoch[i]:
        answer = msg.vote_response(i + 1, j, s.epoch[i], s.leader[i], False, msg.FENCED_LEADER_EPOCH)
        return s._replace(messages=bag.frozen()) if bag.reply(answer, m) else None
    before = Standing(UNATTACHED, msg.epoch(m), NIL) if msg.epoch(m) > s.epoch[i] else standing(s, i)
    last_epoch_j, last_offset_j = msg.last_log(m)
    log = s.log[i]
    log_ok = (last_epoch_j, last_offset_j) >= (last_epoch(log), len(log))
    grant = log_ok and (before.role == UNATTACHED or (before.role == VOTED and s.voted_for[i] == j))
    after = to_voted(msg.epoch(m), before) if grant and before.role == UNATTACHED else before
    if not bag.reply(msg.vote_response(i + 1, j, msg.epoch(m), after.leader, grant, NIL), m):
        return None
    changed = after.role != s.role[i]
    return s._replace(**_with_standing(s, i, after), voted_for=_set(s.voted_for, i, j) if grant else s.voted_for,
                      pending=_set(s.pending, i, ()) if changed else s.pending, messages=bag.frozen())


def handle_vote_response(s: KRaftState, m: tuple) -> KRaftState | None:
    """HandleRequestVoteResponse: a response of another epoch, an error or news of a leader
    moves the candidate as any response does; otherwise a candidate counts a granted vote."""
    i, j, answer = msg.dest(m) - 1, msg.source(m), msg.fields(m)
    new, handled = common_response(s, i, answer.leader, msg.epoch(m), answer.error)
    bag = Bag(s.messages)
    if not bag.discard(m):
        return None
    if handled:
        return s._replace(**_with_standing(s, i, new), messages=bag.frozen())
    if s.role[i] != CANDIDATE:
        return None
    votes = s.votes[i] | (1 << (j - 1)) if answer.granted else s.votes[i]
    return s._replace(votes=_set(s.votes, i, votes), messages=bag.frozen())


def become_leader(s: KRaftState, i: int) -> KRaftState | None:
    """BecomeLeader: a candidate with a majority of votes leads its epoch and sends every other
    voter BeginQuorumEpoch."""
    n = len(s.role)
    if s.role[i] != CANDIDATE or not majority(s, s.votes[i]):
        return None
    bag = Bag(s.messages)
    if not bag.send_all_once([msg.begin_quorum_request(i + 1, j + 1, s.epoch[i]) for j in range(n) if j != i]):
        return None
    return s._replace(role=_set(s.role, i, LEADER), leader=_set(s.leader, i, i + 1),
                      end_offset=_set(s.end_offset, i, (0,) * n), messages=bag.frozen())


def handle_begin_quorum(s: KRaftState, m: tuple) -> KRaftState | None:
    """HandleBeginQuorumRequest: a voter follows the new leader unless the request's epoch is
    older than its own (answered FENCED_LEADER_EPOCH)."""
    i, j, bag = msg.dest(m) - 1, msg.source(m), Bag(s.messages)
    if msg.epoch(m) < s.epoch[i]:
        answer = msg.begin_quorum_response(i + 1, j, s.epoch[i], msg.FENCED_LEADER_EPOCH)
        return s._replace(messages=bag.frozen()) if bag.reply(answer, m) else None
    new = maybe_transition(s, i, j, msg.epoch(m))
    if not bag.reply(msg.begin_quorum_response(i + 1, j, msg.epoch(m), NIL), m):
        return None
    return s._replace(**_with_standing(s, i, new), pending=_set(s.pending, i, ()), messages=bag.frozen())


def client_request(s: KRaftState, i: int, v: int) -> KRaftState | None:
    """ClientRequest: the leader appends client value v (1..m) in its epoch; v is written, not
    yet acknowledged."""
    if s.role[i] != LEADER or s.acked[v - 1] != NIL:
        return None
    return s._replace(log=_set(s.log, i, s.log[i] + ((s.epoch[i], v),)), acked=_set(s.acked, v - 1, WRITTEN))


def send_fetch(s: KRaftState, i: int, j: int) -> KRaftState | None:
    """SendFetchRequest: follower i, with no FETCH pending, asks its leader j for what follows
    its log end, naming the epoch of its last entry."""
    if i == j or s.role[i] != FOLLOWER or s.leader[i] != j + 1 or s.pending[i] != ():
        return None
    log = s.log[i]
    request = msg.fetch_request(i + 1, j + 1, s.epoch[i], len(log), last_epoch(log))
    bag = Bag(s.messages)
    bag.send(request)
    return s._replace(pending=_set(s.pending, i, request), messages=bag.frozen())


def reject_fetch(s: KRaftState, m: tuple) -> KRaftState | None:
    """RejectFetchRequest: a voter that does not lead, or leads another epoch, answers a FETCH
    with NOT_LEADER, FENCED_LEADER_EPOCH or UNKNOWN_LEADER."""
    i, j = msg.dest(m) - 1, msg.source(m)
    if s.role[i] != LEADER:
        error = msg.NOT_LEADER
    elif msg.epoch(m) < s.epoch[i]:
        error = msg.FENCED_LEADER_EPOCH
    elif msg.epoch(m) > s.epoch[i]:
        error = msg.UNKNOWN_LEADER
    else:
        return None
    answer = msg.FetchResponse(msg.NOT_OK, error, s.leader[i], s.hw[i], 0, 0, (), m)
    bag = Bag(s.messages)
    return s._replace(messages=bag.frozen()) if bag.reply(msg.fetch_response(i + 1, j, s.epoch[i], answer), m) else None


def diverging_fetch(s: KRaftState, m: tuple) -> KRaftState | None:
    """DivergingFetchRequest: the leader answers a FETCH whose position its log does not have
    with the end of the follower's last epoch in its own log."""
    i, j = msg.dest(m) - 1, msg.source(m)
    log = s.log[i]
    if s.role[i] != LEADER or msg.epoch(m) != s.epoch[i] or \
            valid_fetch_position(log, msg.fetch_offset(m), msg.last_fetched_epoch(m)):
        return None
    offset, epoch = end_offset_for_epoch(log, msg.last_fetched_epoch(m))
    answer = msg.FetchResponse(msg.DIVERGING, NIL, s.leader[i], s.hw[i], epoch, offset, (), m)
    bag = Bag(s.messages)
    return s._replace(messages=bag.frozen()) if bag.reply(msg.fetch_response(i + 1, j, s.epoch[i], answer), m) else None


def accept_fetch(s: KRaftState, m: tuple) -> KRaftState | None:
    """AcceptFetchRequest: the leader records the follower's end offset, advances its HW to
    what a majority holds (in its own epoch), acknowledges the values the HW passed, and
    answers with the next entry, if any, and the HW (no further than that entry)."""
    i, j = msg.dest(m) - 1, msg.source(m)
    log = s.log[i]
    if s.role[i] != LEADER or msg.epoch(m) != s.epoch[i] or \
            not valid_fetch_position(log, msg.fetch_offset(m), msg.last_fetched_epoch(m)):
        return None
    offset = msg.fetch_offset(m) + 1
    entries = (log[offset - 1],) if offset <= len(log) else ()
    end_offsets = _set(s.end_offset[i], j - 1, msg.fetch_offset(m))
    hw = new_high_watermark(log, i, end_offsets, len(s.role), s.epoch[i], s.hw[i])
    committed = {log[k - 1][1] for k in range(s.hw[i] + 1, hw + 1)}
    acked = tuple((ACKED if v in committed else WRITTEN) if a == WRITTEN else a
                  for v, a in enumerate(s.acked, 1))
    answer = msg.FetchResponse(msg.OK, NIL, s.leader[i], min(hw, offset), 0, 0, entries, m)
    bag = Bag(s.messages)
    if not bag.reply(msg.fetch_response(i + 1, j, s.epoch[i], answer), m):
        return None
    return s._replace(end_offset=_set(s.end_offset, i, end_offsets), hw=_set(s.hw, i, hw), acked=acked,
                      messages=bag.frozen())


def _fetch_answer(s: KRaftState, m: tuple):
    """(voter index, the response's fields, its standing after, whether that handled it) for a
    FETCH response to voter i's pending FETCH; None for any other response."""
    i, answer = msg.dest(m) - 1, msg.fields(m)
    if s.pending[i] != answer.correlation:
        return None
    new, handled = common_response(s, i, answer.leader, msg.epoch(m), answer.error)
    return i, answer, new, handled


def _answered(s: KRaftState, m: tuple, result: int):
    """(voter index, the response's fields, the bag with `m` handled) for a FETCH response of
    `result` to voter i's pending FETCH that no common rule handled; None for any other."""
    got = _fetch_answer(s, m)
    if got is None or got[3] or got[1].result != result:
        return None
    bag = Bag(s.messages)
    bag.discard(m)
    return got[0], got[1], bag


def handle_fetched(s: KRaftState, m: tuple) -> KRaftState | None:
    """HandleSuccessFetchResponse: the follower appends the entry it was sent and takes the
    leader's HW."""
    got = _answered(s, m, msg.OK)
    if got is None:
        return None
    i, answer, bag = got
    return s._replace(hw=_set(s.hw, i, answer.hwm), log=_set(s.log, i, s.log[i] + answer.entries),
                      pending=_set(s.pending, i, ()), messages=bag.frozen())


def handle_diverging(s: KRaftState, m: tuple) -> KRaftState | None:
    """HandleDivergingFetchResponse: the follower truncates its log to its last entry at or
    before the leader's answer, to fetch again from there."""
    got = _answered(s, m, msg.DIVERGING)
    if got is None:
        return None
    i, answer, bag = got
    log = truncated(s.log[i], answer.diverging_end_offset, answer.diverging_epoch)
    return s._replace(log=_set(s.log, i, log), pending=_set(s.pending, i, ()), messages=bag.frozen())


def handle_fetch_error(s: KRaftState, m: tuple) -> KRaftState | None:
    """HandleErrorFetchResponse: a response of another epoch, with an error or naming a new
    leader moves the follower as any response does."""
    got = _fetch_answer(s, m)
    if got is None or not got[3]:
        return None
    i, new = got[0], got[2]
    bag = Bag(s.messages)
    bag.discard(m)
    return s._replace(**_with_standing(s, i, new), pending=_set(s.pending, i, ()), messages=bag.frozen())


HANDLERS = {msg.VOTE_REQUEST: (("HandleRequestVoteRequest", handle_vote_request),),
            msg.VOTE_RESPONSE: (("HandleRequestVoteResponse", handle_vote_response),),
            msg.BEGIN_QUORUM_REQUEST: (("HandleBeginQuorumRequest", handle_begin_quorum),),
            msg.FETCH_REQUEST: (("RejectFetchRequest", reject_fetch), ("DivergingFetchRequest", diverging_fetch),
                                ("AcceptFetchRequest", accept_fetch)),
            msg.FETCH_RESPONSE: (("HandleSuccessFetchResponse", handle_fetched),
                                 ("HandleDivergingFetchResponse", handle_diverging),
                                 ("HandleErrorFetchResponse", handle_fetch_error))}
"""The steps that handle a message, by the message's type."""

ACTION_KINDS = ("Restart", "RequestVote", "HandleRequestVoteRequest", "HandleRequestVoteResponse", "BecomeLeader",
                "ClientRequest", "RejectFetchRequest", "DivergingFetchRequest", "AcceptFetchRequest",
                "HandleBeginQuorumRequest", "SendFetchRequest", "HandleSuccessFetchResponse",
                "HandleDivergingFetchResponse", "HandleErrorFetchResponse")
"""The specification's actions, in its Next's order."""


def successors(s: KRaftState, b: KRaftBounds) -> Iterator[tuple[tuple, KRaftState]]:
    """Next: every enabled step. A step that handles a message is named by its action, the
    receiving voter, the sender and the message's epoch (voters 1..n)."""
    n = len(s.role)
    for i in range(n):
        for name, step in (("Restart", restart), ("RequestVote", request_vote)):
            after = step(s, i, b)
            if after is not None:
                yield (name, i + 1), after
        after = become_leader(s, i)
        if after is not None:
            yield ("BecomeLeader", i + 1), after
        for v in range(1, len(s.acked) + 1):
            after = client_request(s, i, v)
            if after is not None:
                yield ("ClientRequest", i + 1, v), after
        for j in range(n):
            after = send_fetch(s, i, j)
            if after is not None:
                yield ("SendFetchRequest", i + 1, j + 1), after
    for m, count in s.messages:
        if count <= 0 or m[0] not in HANDLERS:
            continue
        for name, handle in HANDLERS[m[0]]:
            after = handle(s, m)
            if after is None:
                continue
            action = (name, msg.dest(m), msg.source(m), msg.epoch(m))
            yield action, after
            if handle is accept_fetch and _enumerated_twice(s, m):
                yield action, after


def _enumerated_twice(s: KRaftState, m: tuple) -> bool:
    """Whether TLC takes this AcceptFetchRequest twice: its `valid` holds by both disjuncts of
    ValidFetchPosition (an empty follower), and TLC enumerates an action's disjunctions one by
    one, so the same successor counts twice among its generated states."""
    return valid_fetch_position(s.log[msg.dest(m) - 1], msg.fetch_offset(m), msg.last_fetched_epoch(m)) == 2
