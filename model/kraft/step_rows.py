"""Which rows of the rule table (`model.kraft.rule_table`) each step of a faithful `kraft` trace
rests on: the rows that name its action kind, then the branch it takes through Kafka's method,
recognised from the readable states before and after the step, never from the kernel. A trace
saved by an earlier replcheck, or edited by hand, is read the same way as one the model makes
now, so a step Kafka does not take is named by its row:

    HandleFetchRequest   `handleFetchRequest`: an error, a diverging epoch, records, nothing new
                         (parked in Kafka), a parked FETCH completed by the leader's append, or
                         a FETCH Kafka does not park answered between the append and the flush
    ClientAppend, ...    an append that marks parked a FETCH Kafka does not park
    HandleVoteRequest    `handleVoteRequest`: an error, a vote or pre-vote granted or refused as
                         `canGrantVote` says, or an answer it does not give (a follower that has
                         fetched from its leader granting a pre-vote, above all)
    HandleFetchResponse  a truncation below the HW, which Kafka throws on
"""

from __future__ import annotations

from .kafka.kinds import ACTION_KINDS
from .messages import (DIVERGING, FENCED_LEADER_EPOCH, FETCH_REQUEST, FETCH_RESPONSE, INVALID_VOTER_KEY, NOT_OK,
                       PRE_VOTE_REQUEST, VOTE_REQUEST, VOTE_RESPONSE, fields)
from .rule_table import ROWS
from .state import FOLLOWER, ILLEGAL, LEADER, NIL, PROSPECTIVE, UNATTACHED, VOTED, KRaftState, last_epoch

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

BY_ACTION = {kind: tuple(row.key for row in ROWS if kind in row.steps) for kind in ACTION_KINDS}
"""The rows every step of a kind rests on."""

APPENDS = ("ClientAppend", "AppendLeaderChange", "AddVoter", "RemoveVoter")
"""The steps in which a leader appends to its log and begins `flushLeaderLog`."""

FETCHED = "fetched"
"""`kafka_vote`'s reason when a follower that has fetched from its leader refuses a pre-vote."""


def _message(s: KRaftState, kinds: tuple[int, ...], source: int, dest: int) -> tuple | None:
    """The message of one of `kinds` from voter `source` to voter `dest` (1..n) in flight in
    `s`, None if there is none (a connection holds one message at a time)."""
    return next((m for m, _ in s.messages if m[0] in kinds and m[1] == source and m[2] == dest), None)


def _kafka_parks(s: KRaftState, i: int, request: tuple, end: int) -> bool:
    """Leader i (index), whose log ended at `end` before its append, would have parked the FETCH
    `request` there (`handleFetchRequest` @ 3.6.0 to 3.9.0-rc3): of its epoch (no error), from
    that end (no records), and ending with the epoch of its last record there, so its log
    continues the fetcher's (no diverging epoch: `validateOffsetAndEpoch`)."""
    offset, last = request[4], request[5]
    return (s.role[i] == LEADER and request[3] == s.epoch[i] and offset == end
            and (offset == 0 or (offset <= len(s.log[i]) and s.log[i][offset - 1][0] == last)))


def _flushing(s: KRaftState, i: int) -> bool:
    """Voter i (index) is a leader inside `flushLeaderLog`: it counted records it has not
    flushed."""
    return s.role[i] == LEADER and s.flushed[i] < len(s.log[i])


def _parking_rows(before: KRaftState, after: KRaftState, leader: int) -> list[str]:
    """An append by `leader` (1..n) that marks parked a FETCH Kafka would not have parked."""
    i = leader - 1
    for m, _ in after.messages:
        if m[0] == FETCH_REQUEST and m[2] == leader and m[7]:
            request = _message(before, (FETCH_REQUEST,), m[1], leader)
            if request is None or not _kafka_parks(before, i, request, len(before.log[i])):
                return ["fetch-unparked-before-flush"]
    return []


def _fetch_request_rows(before: KRaftState, after: KRaftState, leader: int, follower: int) -> list[str]:
    """The path `leader`'s `handleFetchRequest` of `follower`'s FETCH takes (both 1..n), read
    from its answer (none when its sender no longer expects it) and, inside `flushLeaderLog`,
    from whether Kafka parked the FETCH before the append."""
    request = _message(before, (FETCH_REQUEST,), follower, leader)
    if request is None:
        return []
    i = leader - 1
    answer = _message(after, (FETCH_RESPONSE,), leader, follower)
    flushing = _flushing(before, i)
    if flushing and _kafka_parks(before, i, request, before.flushed[i]):
        return ["fetch-parked"]
    if answer is None:
        return []
    got = fields(answer)
    if got.result == DIVERGING:
        return ["fetch-diverging"]
    if got.result == NOT_OK:
        return ["fetch-error"]
    if flushing:
        return ["fetch-unparked-before-flush"]
    return ["fetch-records" if got.entries else "fetch-nothing-new"]


def kafka_vote(s: KRaftState, j: int, request: tuple, directory_ids: bool) -> tuple[int, int, str]:
    """(error, granted, why) of voter j's (index) answer, in state s, to the Vote or pre-vote
    `request`, as `handleVoteRequest` and the role's `canGrantVote` give it (rule-table rows
    `vote-error`, `vote-granted`, `vote-refused`, `pre-vote-granted`, `pre-vote-refused`): an
    older epoch is fenced; a newer one makes the voter unattached first; under KIP-853 a request
    for a directory id it no longer has is refused INVALID_VOTER_KEY; a pre-vote is granted to an
    up-to-date log by any role but a leader, by a follower only until its leader answered its
    FETCH; a real vote by an unattached, voted or prospective voter only, to the candidate it
    voted for, else to an up-to-date log while it knows no leader."""
    epoch, nominee = request[3], request[1]
    if epoch < s.epoch[j]:
        return FENCED_LEADER_EPOCH, 0, "an older epoch"
    role, voted, leader, heard = s.role[j], s.voted_for[j], s.leader[j], s.heard[j]
    if epoch > s.epoch[j]:
        role, voted, leader, heard = UNATTACHED, NIL, NIL, 0
    if directory_ids and request[6] != s.directory[j]:
        return INVALID_VOTER_KEY, 0, "a directory id it no longer has"
    log = s.log[j]
    up_to_date = (request[4], request[5]) >= (last_epoch(log), len(log))
    if request[0] == PRE_VOTE_REQUEST:
        if role == FOLLOWER and heard:
            return 0, 0, FETCHED
        return 0, int(up_to_date and role != LEADER), "its role and log"
    if role not in (UNATTACHED, VOTED, PROSPECTIVE):
        return 0, 0, "its role"
    if voted != NIL:
        return 0, int(voted == nominee), "its vote"
    return 0, int(up_to_date and leader == NIL), "its known leader and log"


def _vote_request_rows(before: KRaftState, after: KRaftState, voter: int, nominee: int,
                       directory_ids: bool) -> list[str]:
    """The path `voter`'s `handleVoteRequest` of `nominee`'s request takes (both 1..n): Kafka's
    answer, or, where the answer in flight after the step is not Kafka's, the row that names
    it."""
    request = _message(before, (VOTE_REQUEST, PRE_VOTE_REQUEST), nominee, voter)
    if request is None:
        return []
    error, granted, why = kafka_vote(before, voter - 1, request, directory_ids)
    answer = _message(after, (VOTE_RESPONSE,), voter, nominee)
    if answer is not None and (fields(answer).error, fields(answer).granted) != (error, granted):
        return ["pre-vote-granted-after-fetch" if why == FETCHED and fields(answer).granted else "vote-unlike-kafka"]
    if error:
        return ["vote-error"]
    return [("pre-vote-" if request[0] == PRE_VOTE_REQUEST else "vote-") + ("granted" if granted else "refused")]


def _fetch_response_rows(before: KRaftState, after: KRaftState, i: int, leader: int) -> list[str]:
    """A follower i (1..n) that, told by `leader` (1..n) it diverges, throws (truncation below
    its HW)."""
    answer = _message(before, (FETCH_RESPONSE,), leader, i)
    j = i - 1
    if (answer is not None and fields(answer).result == DIVERGING and before.role[j] == FOLLOWER
            and answer[3] == before.epoch[j] and after.role[j] == ILLEGAL):
        return ["truncation-below-hw"]
    return []


def step_rows(states: list[KRaftState], actions: list[tuple], i: int, rules: dict[str, str]) -> tuple[str, ...]:
    """The rows (keys of `rule_table.BY_KEY`) step i (1-based) of a faithful trace rests on: those
    of its action kind, then the branch it takes. `states` holds the initial state first; `rules`
    is the trace's rule set (each rule's choice)."""
    action, before, after = actions[i - 1], states[i - 1], states[i]
    kind = action[0]
    rows = list(BY_ACTION.get(kind, ()))
    if kind == "HandleFetchRequest":
        rows += _fetch_request_rows(before, after, action[1], action[2])
    elif kind == "HandleVoteRequest":
        rows += _vote_request_rows(before, after, action[1], action[2], rules["voter-key"] == "directory")
    elif kind == "HandleFetchResponse":
        rows += _fetch_response_rows(before, after, action[1], action[2])
    elif kind in APPENDS:
        rows += _parking_rows(before, after, action[1])
    return tuple(dict.fromkeys(rows))
