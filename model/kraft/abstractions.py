"""How each abstraction row of the `kraft` rule table (`model.kraft.rule_table`) is vouched for
(`model.vouches`): a claim, cited, that every step resting on the row is a sequence of steps
Kafka's `KafkaRaftClient` takes, with the check of one step, read off the readable states
(`model.kraft.state`) and Kafka's code as cited, not off the kernel's rule for the step.

The 4.0 code (pre-vote) was read at a commit this repository's clone of Kafka does not hold
(`model.kraft.rule_table`): the checks of 4.0's transitions test what that reading says, and
their sources name only what was read here.
"""

from __future__ import annotations

from ..vouches import Merges, Steps
from .messages import (BEGIN_QUORUM_REQUEST, BEGIN_QUORUM_RESPONSE, DIVERGING, FETCH_REQUEST, FETCH_RESPONSE, OK,
                       PRE_VOTE_REQUEST, VOTE_REQUEST, VOTE_RESPONSE, fields)
from .state import (CANDIDATE, FOLLOWER, LEADER, NIL, PROSPECTIVE, RESIGN_REQUESTED, RESIGNED, UNATTACHED, VOTED,
                    last_epoch)
from .voter_sets import members

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

HANDLED = {"HandleVoteRequest": (VOTE_REQUEST, PRE_VOTE_REQUEST), "HandleVoteResponse": (VOTE_RESPONSE,),
           "HandleBeginQuorumEpoch": (BEGIN_QUORUM_REQUEST,), "HandleBeginQuorumEpochResponse": (BEGIN_QUORUM_RESPONSE,),
           "HandleFetchRequest": (FETCH_REQUEST,), "HandleFetchResponse": (FETCH_RESPONSE,)}
"""The types of message each handler handles."""

SENDERS = ("SendVoteRequests", "SendBeginQuorumEpoch", "SendFetch")
"""The steps that send requests."""

REQUESTS = (VOTE_REQUEST, PRE_VOTE_REQUEST, BEGIN_QUORUM_REQUEST, FETCH_REQUEST)
"""The types of message that are requests."""


def _connection(message: tuple) -> tuple[int, int]:
    """The (requester, receiver) pair of controllers (1..n) whose connection a message travels
    on: a request's sender and destination, a response's the other way round."""
    return (message[1], message[2]) if message[0] in REQUESTS else (message[2], message[1])


def _pre_vote(steps: Steps) -> bool:
    """The trace's rule set stands with a pre-vote first (4.0)."""
    return steps.model.rules["election"] != "vote"


def _voters(state, i: int, replicas: int, directory_ids: bool) -> dict[int, int]:
    """Voter i's (index) voter set, as voters 1..n to directory ids: its log's last VotersRecord
    under KIP-853 (else its bootstrap set, while it has its first disk), every controller under
    static voters (directory ids then read nothing)."""
    if not directory_ids:
        return {v: 0 for v in range(1, replicas + 1)}
    record = next((value for _, value in reversed(state.log[i]) if value < 0), None)
    if record is not None:
        return members(-record, replicas)
    return members(state.boot, replicas) if state.directory[i] == 0 and state.boot else {}


def _ids(steps: Steps) -> bool:
    """Voters are replica keys (node id and directory id): KIP-853."""
    return steps.model.rules["voter-key"] == "directory"


def _same_elsewhere(before, after, i: int) -> str | None:
    """Why a voter other than i changed its role, epoch, vote or log, None when none did."""
    for j in range(len(before.role)):
        if j != i and (before.role[j], before.epoch[j], before.voted_for[j], before.log[j]) != \
                (after.role[j], after.epoch[j], after.voted_for[j], after.log[j]):
            return f"n{j + 1} changed too"
    return None


# ----- stand --------------------------------------------------------------------------------------

def _stand(steps: Steps, i: int) -> str | None:
    """A `Timeout` is an election or fetch timer running out, at whatever moment (no clocks), and
    the transition Kafka makes then: 3.x stands at once as a candidate in the next epoch, voting
    for itself, with no leader, its log and HW kept (`QuorumState.transitionToCandidate`; a
    candidate's backoff ends in the same transition); 4.0 becomes a prospective in its own epoch,
    keeping its leader and, within the epoch, its vote."""
    v = steps.action(i)[1] - 1
    before, after = steps.before(i), steps.after(i)
    if before.role[v] not in (UNATTACHED, VOTED, FOLLOWER, CANDIDATE, RESIGNED):
        return f"n{v + 1}, {before.role[v]}, has no timer that stands it"
    if (after.log[v], after.hw[v]) != (before.log[v], before.hw[v]):
        return f"n{v + 1} changed its log or HW"
    alone = set(_voters(before, v, len(before.role), _ids(steps))) == {v + 1}
    if alone:  # its own vote is a majority: it leads at once (`onBecomeCandidate`)
        if (after.role[v], after.epoch[v], after.leader[v]) != (LEADER, before.epoch[v] + 1, v + 1):
            return f"n{v + 1}, the only voter, does not lead the next epoch at once"
        return _same_elsewhere(before, after, v)
    if _pre_vote(steps):
        kept = before.voted_for[v] if steps.model.rules["election"] == "pre-vote" else NIL
        wanted = (PROSPECTIVE, before.epoch[v], before.leader[v], kept, 1 << v)
    else:
        wanted = (CANDIDATE, before.epoch[v] + 1, NIL, v + 1, 1 << v)
    if (after.role[v], after.epoch[v], after.leader[v], after.voted_for[v], after.votes[v]) != wanted:
        return f"n{v + 1} is not where Kafka's transition puts it"
    return _same_elsewhere(before, after, v)


# ----- pre-vote -----------------------------------------------------------------------------------

def _prospective_timeout(steps: Steps, i: int) -> str | None:
    """A `ProspectiveTimeout` is the prospective's election timer running out before a majority
    granted its pre-vote (at any moment: no clocks), and 4.0's transition after a lost election:
    in its epoch, a follower of the leader it knows if its voter set names it, else unattached,
    keeping its vote."""
    v = steps.action(i)[1] - 1
    before, after = steps.before(i), steps.after(i)
    if before.role[v] != PROSPECTIVE:
        return f"n{v + 1} is no prospective"
    kept = before.voted_for[v] if steps.model.rules["election"] == "pre-vote" else NIL
    leader = before.leader[v]
    named = leader != NIL and leader in _voters(before, v, len(before.role), _ids(steps))
    role = FOLLOWER if named else VOTED if kept != NIL else UNATTACHED
    if (after.role[v], after.epoch[v], after.leader[v], after.voted_for[v]) != (role, before.epoch[v], leader, kept):
        return f"n{v + 1} is not where 4.0's transition after a lost pre-vote puts it"
    return _same_elsewhere(before, after, v)


# ----- begin-quorum -------------------------------------------------------------------------------

def _sent(before, after, sender: int, kinds: tuple) -> list[tuple]:
    """The messages of `kinds` that voter `sender` (1..n) put in flight in this step."""
    old = {m for m, _ in before.messages}
    return [m for m, _ in after.messages if m[0] in kinds and m[1] == sender and m not in old]


def _begin_quorum(steps: Steps, i: int) -> str | None:
    """A `SendBeginQuorumEpoch` is the leader's poll sending BeginQuorumEpoch, at whatever moment
    its timer runs out (no clocks): 3.8 only to the voters that have not acknowledged its epoch
    (`LeaderState.nonAcknowledgingVoters`), 3.9 to every voter of its set. The other steps of
    the row are as Kafka."""
    if steps.action(i)[0] != "SendBeginQuorumEpoch":
        return None
    v = steps.action(i)[1] - 1
    before, after = steps.before(i), steps.after(i)
    if before.role[v] != LEADER:
        return f"n{v + 1} does not lead"
    voters = _voters(before, v, len(before.role), _ids(steps))
    for m in _sent(before, after, v + 1, (BEGIN_QUORUM_REQUEST,)):
        to = m[2]
        if to not in voters or m[3] != before.epoch[v]:
            return f"n{v + 1} sent BeginQuorumEpoch to n{to}, no voter of its set, or in another epoch"
        if steps.model.rules["begin-quorum"] == "until-acknowledged" and before.heard[v] >> (to - 1) & 1:
            return f"n{to} had acknowledged n{v + 1}'s epoch, and 3.8 sends it no BeginQuorumEpoch"
    return None


# ----- follower-append ----------------------------------------------------------------------------

def _follower_append(steps: Steps, i: int) -> str | None:
    """A `HandleFetchResponse` that appends records is `appendAsFollower`'s append and then its
    flush, one after the other in the same call (3.8: a voter flushes; 3.9: a controller always
    does): a crash between them is the crash before the append but for records the follower had
    not yet acknowledged, and it acknowledges only by its next FETCH, sent after the flush."""
    v = steps.action(i)[1] - 1
    before, after = steps.before(i), steps.after(i)
    if len(after.log[v]) <= len(before.log[v]) or after.log[v][:len(before.log[v])] != before.log[v]:
        return None
    if after.flushed[v] != len(after.log[v]):
        return f"n{v + 1} appended without flushing"
    return None


# ----- connections --------------------------------------------------------------------------------

def _connections(steps: Steps, i: int) -> str | None:
    """Nothing is lost in flight and no request times out: a handler handles a message that is in
    flight on its connection, once (it is gone after); a send puts each request on a connection
    that holds nothing, one request in flight per pair of controllers
    (`RequestManager.isResponseExpected`, `KafkaRaftClient.handleInboundMessage`)."""
    action = steps.action(i)
    before, after = steps.before(i), steps.after(i)
    if action[0] in HANDLED:
        receiver, sender, epoch = action[1:4]
        handled = [m for m, _ in before.messages
                   if m[0] in HANDLED[action[0]] and m[1] == sender and m[2] == receiver and m[3] == epoch]
        if not handled:
            return f"no such message from n{sender} to n{receiver} was in flight"
        if any(m in {n for n, _ in after.messages} for m in handled):
            return "the message handled is still in flight"
        return None
    if action[0] in SENDERS:
        busy = {_connection(m) for m, _ in before.messages}
        for m in _sent(before, after, action[1], REQUESTS):
            if _connection(m) in busy:
                return f"n{m[1]} sent a request to n{m[2]} while their connection held a message"
    return None


# ----- add-voter ----------------------------------------------------------------------------------

def _became_leader(steps: Steps, i: int, v: int) -> int:
    """The last step before i after which voter v (index) leads the epoch it leads before step i
    (0: it led from the first state)."""
    epoch = steps.before(i).epoch[v]
    for j in range(i - 1, 0, -1):
        if not (steps.before(j).role[v] == LEADER and steps.before(j).epoch[v] == epoch):
            return j
    return 0


def _caught_up(steps: Steps, i: int, v: int, h: int, directory: int) -> bool:
    """Leader v (index) counts replica key (h, `directory`) caught up before step i, as
    `LeaderState.isReplicaCaughtUp` @ 3.9.0-rc3 does: in its epoch it handled a FETCH from that
    key whose fetch offset reached its log end then, or reached its log end at that key's
    FETCH before (`ReplicaState.updateFollowerState`)."""
    previous_end = None
    for j in range(_became_leader(steps, i, v) + 1, i):
        action, before = steps.action(j), steps.before(j)
        if action[0] != "HandleFetchRequest" or action[1] != v + 1 or action[2] != h + 1:
            continue
        fetch = next((m for m, _ in before.messages if m[0] == FETCH_REQUEST and m[1] == h + 1 and m[2] == v + 1), None)
        if fetch is None or fetch[6] != directory or fetch[3] != before.epoch[v] or before.role[v] != LEADER:
            continue
        end = len(before.log[v])
        if fetch[4] >= end or (previous_end is not None and previous_end > 0 and fetch[4] >= previous_end):
            return True
        previous_end = end
    return False


def _add_voter(steps: Steps, i: int) -> str | None:
    """An `AddVoter` is the operator's request, the leader's API_VERSIONS exchange with the new
    voter and its append of the VotersRecord, one after the other; Kafka 3.9 appends only for a
    replica it counts caught up (`AddVoterHandler.handleApiVersionsResponse`): one that, in the
    leader's epoch, fetched up to the leader's log end. From a trace's first state the whole
    history is known, and a key never caught up is a step Kafka refuses (REQUEST_TIMED_OUT)."""
    _, leader, added = steps.action(i)
    before = steps.before(i)
    directory = before.directory[added - 1]
    if _caught_up(steps, i, leader - 1, added - 1, directory):
        return None
    if not steps.starts_at_creation():
        return None
    return (f"n{leader} never saw n{added} (directory {directory}) fetch up to its log end in its epoch, so Kafka "
            f"answers the AddVoter REQUEST_TIMED_OUT (not caught up)")


# ----- resign -------------------------------------------------------------------------------------

def _resign(steps: Steps, i: int) -> str | None:
    """A `Resign` is the leader, its own removal committed before the pending RemoveVoter expired
    (no clocks: it may always be in time), resigning at its next poll in its epoch
    (`RemoveVoterHandler.highWatermarkUpdated`, `KafkaRaftClient.pollLeader`); a `ResignedTimeout`
    is a resigned controller outside its set, its election timer run out, going unattached to the
    next epoch (`KafkaRaftClient.pollResigned`)."""
    kind, v = steps.action(i)[0], steps.action(i)[1] - 1
    before, after = steps.before(i), steps.after(i)
    if kind == "Resign":
        if before.role[v] != LEADER or before.voter_op[v] != RESIGN_REQUESTED:
            return f"n{v + 1} was not a leader asked to resign"
        if (after.role[v], after.epoch[v]) != (RESIGNED, before.epoch[v]):
            return f"n{v + 1} did not resign in its epoch"
    elif (before.role[v], after.role[v], after.epoch[v]) != (RESIGNED, UNATTACHED, before.epoch[v] + 1):
        return f"n{v + 1} did not go from resigned to unattached in the next epoch"
    return _same_elsewhere(before, after, v)


# ----- fetch --------------------------------------------------------------------------------------

def _fetch(steps: Steps, i: int) -> str | None:
    """A leader's answer with records sends every record from the fetch offset to its log end:
    Kafka's answer holds up to 8 MiB (`KafkaRaftClient.tryCompleteFetchRequest`), more than a
    bounded log. (How a FETCH that finds nothing new waits is the row's other half.)"""
    if steps.action(i)[0] != "HandleFetchRequest":
        return None
    receiver, sender = steps.action(i)[1:3]
    before, after = steps.before(i), steps.after(i)
    answers = [m for m, _ in after.messages if m[0] == FETCH_RESPONSE and m[1] == receiver and m[2] == sender]
    asked = [m for m, _ in before.messages if m[0] == FETCH_REQUEST and m[1] == sender and m[2] == receiver]
    if not answers or not asked or not answers[0][10]:
        return None
    offset = asked[0][4]
    if tuple(answers[0][10]) != tuple(before.log[receiver - 1][offset:]):
        return f"n{receiver}'s answer does not carry every record from offset {offset} on"
    return None


def _answer(steps: Steps, i: int) -> tuple[tuple, tuple, int, int] | None:
    """For a `HandleFetchRequest` step i: (request, answer fields, leader, follower), both voters
    numbered from 1; None for any other step, or one that sent no answer."""
    if steps.action(i)[0] != "HandleFetchRequest":
        return None
    leader, follower = steps.action(i)[1:3]
    asked = [m for m, _ in steps.before(i).messages if m[0] == FETCH_REQUEST and m[1] == follower and m[2] == leader]
    answers = [m for m, _ in steps.after(i).messages
               if m[0] == FETCH_RESPONSE and m[1] == leader and m[2] == follower]
    if not asked or not answers:
        return None
    return asked[0], fields(answers[0]), leader, follower


def _epoch_end(log: tuple, epoch: int) -> tuple[int, int]:
    """(offset, epoch) where `epoch` ends in `log` as `LeaderEpochFileCache.endOffsetFor` answers:
    the last epoch ends at the log's end; an epoch it has, or falls between two it has, ends where
    the next one starts, with the epoch at or below it; with no answer, the log's end and last
    epoch."""
    if log and log[-1][0] == epoch:
        return len(log), epoch
    for offset, entry in enumerate(log):
        if entry[0] > epoch:
            return offset, log[offset - 1][0] if offset else epoch
    return len(log), last_epoch(log)


def _nothing_new(steps: Steps, i: int) -> str | None:
    """An answer with no records at once is the one Kafka sends when the parked FETCH's wait runs
    out before the leader appends: the FETCH asked from the leader's log end, and the answer
    carries the leader's HW then (`handleFetchRequest`: `fetchPurgatory.await`, on expiry the
    response computed as it arrived)."""
    found = _answer(steps, i)
    if found is None or found[1].result != OK or found[1].entries:
        return None
    request, answer, leader, _ = found
    before = steps.before(i)
    if request[4] != len(before.log[leader - 1]):
        return f"n{leader} answered no records to a FETCH from offset {request[4]}, not its log end"
    if answer.hwm != steps.after(i).hw[leader - 1]:
        return f"n{leader}'s empty answer does not carry its HW"
    return None


def _diverging(steps: Steps, i: int) -> str | None:
    """A diverging answer sent at once is what 3.3 to 3.5 send when the parked FETCH's wait runs
    out with nothing appended, computed again then: where the follower's last epoch ends in the
    leader's log as it is now (`ReplicatedLog.validateOffsetAndEpoch`)."""
    found = _answer(steps, i)
    if found is None or found[1].result != DIVERGING:
        return None
    request, answer, leader, _ = found
    offset, epoch = _epoch_end(steps.before(i).log[leader - 1], request[5])
    if (answer.diverging_end_offset, answer.diverging_epoch) != (offset, epoch):
        return (f"n{leader}'s diverging answer names epoch {answer.diverging_epoch} ending at "
                f"{answer.diverging_end_offset}, where its log says epoch {epoch} ends at {offset}")
    return None


VOUCHES = {
    "stand": Merges(
        "with no clocks, any timer may run out at any moment, which covers every setting of the election and fetch "
        "timeouts; the step is the transition Kafka makes then, a candidate's backoff ending in the same transition",
        "`KafkaRaftClient.pollCandidate`, `KafkaRaftClient.pollFollowerAsVoter`, `KafkaRaftClient.transitionToCandidate`, "
        "`KafkaRaftClient.onBecomeCandidate`, `QuorumState.transitionToCandidate` @ 3.8.0, 3.9.0-rc3",
        _stand),
    "pre-vote": Merges(
        "a prospective's election timer may run out at any moment; the step is 4.0's transition after a lost "
        "pre-vote, as the pre-vote row reads it; every controller runs 4.0, so none answers UNSUPPORTED_VERSION",
        "`KafkaRaftClient.handleVoteResponse`, `KafkaRaftClient.maybeHandleElectionLoss` @ 53364c5 (4.0 branch, not a "
        "tag)",
        _prospective_timeout),
    "begin-quorum": Merges(
        "the 3.9 timer is a step that may come at any moment; what the leader sends then is what 3.8 or 3.9 sends",
        "`KafkaRaftClient.maybeSendRequests`, `LeaderState.nonAcknowledgingVoters` @ 3.8.0; "
        "`KafkaRaftClient.maybeSendBeginQuorumEpochRequests` @ 3.9.0-rc3",
        _begin_quorum),
    "fetch": Merges(
        "every record fits in one answer, which Kafka's 8 MiB bound never reaches at these bounds",
        "`KafkaRaftClient.handleFetchRequest`, `KafkaRaftClient.tryCompleteFetchRequest` @ 3.8.0, 3.9.0-rc3",
        _fetch),
    "fetch-nothing-new": Merges(
        "with no clocks, a parked FETCH's wait (fetch.max.wait.ms) may run out at once; the step is the answer Kafka "
        "sends then, no records and the leader's HW, to a FETCH from the leader's log end",
        "`KafkaRaftClient.handleFetchRequest`, `ThresholdPurgatory.maybeComplete` @ 3.6.0, 3.8.0, 3.9.0-rc3",
        _nothing_new),
    "fetch-diverging": Merges(
        "3.3 to 3.5 park a diverging FETCH and, its wait run out with nothing appended, answer what the leader's log "
        "says then; with no clocks the wait may run out at once, and the answer is where the follower's last epoch "
        "ends in the leader's log",
        "`KafkaRaftClient.handleFetchRequest`, `ReplicatedLog.validateOffsetAndEpoch` @ 3.3.0; "
        "`LeaderEpochFileCache.endOffsetFor` @ 3.3.0",
        _diverging),
    "follower-append": Merges(
        "append and flush are one call, `appendAsFollower`; a crash between them loses only records the follower "
        "has not acknowledged, as a crash before the append does",
        "`KafkaRaftClient.appendAsFollower`, `KafkaRaftClient.handleFetchResponse` @ 3.8.0, 3.9.0-rc3; "
        "`KafkaRaftManager.buildRaftClient` @ 3.9.0-rc3",
        _follower_append),
    "connections": Merges(
        "nothing is lost in flight and no request times out: every message handled was in flight on its connection "
        "and is handled once, one request per pair of controllers",
        "`KafkaRaftClient.handleInboundMessage`, `RequestManager.isResponseExpected` @ 3.8.0, 3.9.0-rc3",
        _connections),
    "add-voter": Merges(
        "request, API_VERSIONS exchange and append are one step; Kafka appends only for a replica that fetched up to "
        "the leader's log end in its epoch, which a check looks for in the trace",
        "`AddVoterHandler.handleAddVoterRequest`, `AddVoterHandler.handleApiVersionsResponse`, "
        "`LeaderState.isReplicaCaughtUp` @ 3.9.0-rc3",
        _add_voter),
    "resign": Merges(
        "a pending removal committed in time makes the leader resign at its next poll; one that expires first is a "
        "behaviour the model leaves out",
        "`RemoveVoterHandler.highWatermarkUpdated`, `KafkaRaftClient.pollLeader`, `KafkaRaftClient.pollResigned` "
        "@ 3.9.0-rc3",
        _resign),
}
"""How each abstraction row of the kraft rule table is vouched for, by row key."""
