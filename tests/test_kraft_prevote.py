"""The `kafka40` variant: pre-vote (KIP-996) as Kafka 4.0's `KafkaRaftClient`, `QuorumState`
and its states do it (read where `model.kraft.rule_table` says: no 4.0.0 tag was read), step by
step on small states, and over every reachable state of small bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_json
from model.kraft import messages as msg
from model.kraft.kafka.quorum_state import restore
from model.kraft.state import CANDIDATE, CONTROL, FOLLOWER, LEADER, PROSPECTIVE, RESIGNED, UNATTACHED, VOTED
from model.registry import build_model

LIVE = 1
"""A request's last item while its sender expects the answer."""


def _model(variant="kafka40"):
    return build_model("kraft", variant, replicas=3, max_records=1, max_elections=3, max_restarts=1)


def _state(variant="kafka40", **fields):
    return _model(variant).initial_states()[0]._replace(**fields)


def _steps(s, kind, variant="kafka40"):
    """Every successor of s by a step of `kind` (its action, its state)."""
    return [(a, t) for a, t in _model(variant).successors(s) if a[0] == kind]


def _step(s, action, variant="kafka40"):
    """The state after the step named `action` (a prefix of the action value) from s."""
    return next(t for a, t in _model(variant).successors(s) if a[:len(action)] == action)


def _with(s, *messages):
    return s._replace(messages=tuple(sorted((m, 1) for m in messages)))


def _pre_vote(source, dest, epoch, last_epoch, end):
    """A pre-vote request from `source` to `dest` (1..n) for their first directory ids."""
    return msg.PRE_VOTE_REQUEST, source, dest, epoch, last_epoch, end, 0, LIVE


def _vote_answer(source, dest, epoch, granted, leader=0):
    return msg.VOTE_RESPONSE, source, dest, epoch, leader, granted, 0


def _answer(s, voter, to=None):
    """The fields of the Vote response voter (1..n) sent (to voter `to`, if given)."""
    return msg.fields(next(m for m, _ in s.messages if m[0] == msg.VOTE_RESPONSE and msg.source(m) == voter
                           and to in (None, msg.dest(m))))


LOGS = (((1, CONTROL),), ((1, CONTROL),), ((1, CONTROL),))
FOLLOWING = dict(epoch=(1, 1, 1), role=(FOLLOWER, FOLLOWER, FOLLOWER), leader=(2, 0, 2), log=LOGS, flushed=(1, 1, 1))
"""n1 and n3 follow n2 in epoch 1 (n2's role is set by each test); every log ends at offset 1."""


def test_a_voter_that_times_out_asks_first_in_its_own_epoch_keeping_leader_and_vote():
    """`pollFollowerAsVoter` @ 53364c5 (4.0 branch, not a tag): a fetch timeout is
    `transitionToProspective`, which keeps the epoch, the leader and the voted key; 3.9 stood at
    once in the next epoch."""
    s = _state(**{**FOLLOWING, "voted_for": (3, 0, 0)})
    after = _step(s, ("Timeout", 1))
    assert (after.role[0], after.epoch[0], after.leader[0], after.voted_for[0]) == (PROSPECTIVE, 1, 2, 3)
    assert (after.votes[0], after.heard[0], after.elections) == (1, 1, 1)
    assert (_step(s, ("Timeout", 1), "kip853").role[0], _step(s, ("Timeout", 1), "kip853").epoch[0]) == (CANDIDATE, 2)
    asked = _step(after, ("SendVoteRequests", 1))
    assert {m[0] for m, _ in asked.messages} == {msg.PRE_VOTE_REQUEST} and {m[3] for m, _ in asked.messages} == {1}


def test_a_pre_vote_is_granted_on_the_log_alone_and_writes_no_vote():
    """`unattachedOrProspectiveCanGrantVote` (in a copy of unknown commit): a pre-vote ignores the
    voted key; only a real vote is written (`if (!preVote && voteGranted)`)."""
    s = _state(epoch=(1, 1, 1), role=(VOTED, PROSPECTIVE, CANDIDATE), voted_for=(3, 0, 3), log=LOGS, flushed=(1, 1, 1),
               votes=(0, 2, 4), heard=(0, 2, 4))
    after = _step(_with(s, _pre_vote(2, 1, 1, 1, 1)), ("HandleVoteRequest", 1))
    assert _answer(after, 1).granted and (after.role[0], after.voted_for[0]) == (VOTED, 3)
    behind = _step(_with(s, _pre_vote(2, 1, 1, 0, 0)), ("HandleVoteRequest", 1))
    assert not _answer(behind, 1).granted
    newer = _step(_with(s, _pre_vote(2, 1, 2, 1, 1)), ("HandleVoteRequest", 1))
    assert _answer(newer, 1).granted and (newer.role[0], newer.epoch[0], newer.voted_for[0]) == (UNATTACHED, 2, 0)


def test_a_follower_refuses_pre_votes_once_its_leader_answered_a_fetch():
    """`FollowerState.canGrantVote` and `resetFetchTimeoutForSuccessfulFetch` @ e6d2421 (trunk, not a
    tag), which sets `hasFetchedFromLeader` and which `handleFetchResponse` @ 53364c5 (4.0 branch,
    not a tag) calls for every error-free answer: a follower grants pre-votes only until its leader
    first answers its FETCH."""
    s = _state(**{**FOLLOWING, "role": (FOLLOWER, LEADER, FOLLOWER)})
    assert _answer(_step(_with(s, _pre_vote(3, 1, 1, 1, 1)), ("HandleVoteRequest", 1)), 1).granted
    answered = _step(_with(s, (msg.FETCH_RESPONSE, 2, 1, 1, msg.OK, 0, 2, 1, 0, 0, (), ())), ("HandleFetchResponse", 1))
    assert answered.heard[0] == 0b010 and answered.hw[0] == 1
    assert not _answer(_step(_with(answered, _pre_vote(3, 1, 1, 1, 1)), ("HandleVoteRequest", 1)), 1).granted
    three_nine = _step(_with(s, (msg.FETCH_RESPONSE, 2, 1, 1, msg.OK, 0, 2, 1, 0, 0, (), ())), ("HandleFetchResponse", 1),
                       "kip853")
    assert three_nine.heard[0] == 0  # 3.9 has no such bit: its followers never grant


def test_a_prospective_stands_on_a_majority_and_goes_back_when_a_majority_refuses():
    """`maybeTransitionForward` and `maybeHandleElectionLoss` @ 53364c5 (4.0 branch, not a tag):
    granted a majority, a prospective is a candidate in the next epoch; refused by one voter of
    three it waits, by two it follows the leader it knew again, in its epoch
    (`prospectiveTransitionAfterElectionLoss`)."""
    s = _state(**{**FOLLOWING, "role": (PROSPECTIVE, RESIGNED, FOLLOWER), "leader": (2, 2, 2), "votes": (1, 0, 0),
                  "heard": (1, 0, 0)})
    won = _step(_with(s, _vote_answer(3, 1, 1, 1)), ("HandleVoteResponse", 1))
    assert (won.role[0], won.epoch[0], won.voted_for[0], won.leader[0]) == (CANDIDATE, 2, 1, 0)
    once = _step(_with(s, _vote_answer(3, 1, 1, 0)), ("HandleVoteResponse", 1))
    assert (once.role[0], once.heard[0], once.votes[0]) == (PROSPECTIVE, 0b101, 1)
    lost = _step(_with(once, _vote_answer(2, 1, 1, 0, leader=2)), ("HandleVoteResponse", 1))
    assert (lost.role[0], lost.epoch[0], lost.leader[0]) == (FOLLOWER, 1, 2)


def test_a_prospective_grants_a_real_vote_once_and_keeps_it_when_it_loses():
    """`prospectiveAddVotedState` (its count starts afresh, its connections stay) and
    `transitionToUnattached` in the same epoch, which keeps the voted key "so that it will not
    vote again in the same epoch" (both in a copy of unknown commit)."""
    s = _state(epoch=(2, 2, 2), role=(PROSPECTIVE, CANDIDATE, CANDIDATE), voted_for=(0, 2, 3), votes=(3, 2, 4),
               heard=(3, 2, 4), log=LOGS, flushed=(1, 1, 1))
    vote = (msg.VOTE_REQUEST, 2, 1, 2, 1, 1, 0, LIVE)
    voted = _step(_with(s, vote, (msg.FETCH_REQUEST, 1, 3, 2, 1, 1, 0, LIVE)), ("HandleVoteRequest", 1))
    assert (voted.role[0], voted.voted_for[0], voted.votes[0], voted.heard[0]) == (PROSPECTIVE, 2, 1, 1)
    assert any(m[0] == msg.FETCH_REQUEST and m[-1] == LIVE for m, _ in voted.messages)  # no reset
    again = _step(_with(voted, (msg.VOTE_REQUEST, 3, 1, 2, 1, 1, 0, LIVE)), ("HandleVoteRequest", 1))
    assert not _answer(again, 1).granted
    gone_back = _step(voted, ("ProspectiveTimeout", 1))
    assert (gone_back.role[0], gone_back.epoch[0], gone_back.voted_for[0]) == (VOTED, 2, 2)
    forgetful = build_model("kraft", "kafka40+election=pre-vote-forgetful", replicas=3, max_records=1, max_elections=3,
                            max_restarts=1)
    forgot = next(t for a, t in forgetful.successors(voted) if a[:2] == ("ProspectiveTimeout", 1))
    assert (forgot.role[0], forgot.voted_for[0]) == (UNATTACHED, 0)


@pytest.mark.parametrize("leader, voted, back", [(2, 3, FOLLOWER), (0, 1, CANDIDATE), (0, 3, VOTED), (0, 0, UNATTACHED)])
def test_a_restarted_prospective_comes_back_as_its_quorum_state_file_says(leader, voted, back):
    """`QuorumState.initialize` (in a copy of unknown commit): a prospective is never written, so
    its file is the election of the role it came from: with a leader a follower (keeping its
    vote), voted for itself a candidate, else unattached with its vote."""
    s = _state(epoch=(2, 2, 2), role=(PROSPECTIVE, FOLLOWER, FOLLOWER), leader=(leader, 2, 2), voted_for=(voted, 0, 0),
               votes=(1, 0, 0), heard=(1, 0, 0))
    _, after = _on_row(s)
    assert (after.role[0], after.epoch[0], after.leader[0], after.voted_for[0], after.votes[0]) == \
        (back, 2, leader, voted, 1 if back == CANDIDATE else 0)


def _on_row(s):
    model = _model()
    row = model.kernel.encode(s)
    answer = restore(row, model.kernel.layout, 0)
    return answer, model.kernel.decode(row)


def test_a_resigned_voter_leaves_for_the_next_epoch_and_an_unattached_voter_fetches():
    """`pollResigned` @ 53364c5 (4.0 branch, not a tag) bumps the epoch for voters too (3.9 stood
    for election), and `pollUnattachedCommon` sends an unattached voter's FETCH to a bootstrap
    server when it has no request in flight (`findReadyBootstrapServer`); a 3.9 unattached voter
    never fetches."""
    s = _state(epoch=(2, 2, 2), role=(RESIGNED, UNATTACHED, UNATTACHED), leader=(1, 0, 0))
    assert all(a[1] != 1 for a, _ in _steps(s, "Timeout"))
    left = _step(s, ("ResignedTimeout", 1))
    assert (left.role[0], left.epoch[0], left.leader[0]) == (UNATTACHED, 3, 0)
    assert {a[1:3] for a, _ in _steps(s, "SendFetch")} == {(2, 1), (2, 3), (3, 1), (3, 2)}
    assert _steps(s, "SendFetch", "kip853") == []
    busy = _step(s, ("SendFetch", 2, 1))
    assert [a for a, _ in _steps(busy, "SendFetch") if a[1] == 2] == []


def test_pre_vote_keeps_every_invariant_at_small_bounds():
    """No step Kafka 4.0 throws on is reachable (only a prospective becomes a candidate, same-epoch
    unattached only from a prospective), and no acknowledged value is lost."""
    out = run_json("check", "--model", "kraft", "--variant", "kafka40", "--replicas", "3", "--max-records", "1",
                   "--max-elections", "1", "--engine", "local")
    assert out["complete"] and out["distinct_states"] > 100_000
    assert {v["status"] for v in out["invariants"].values()} == {"holds"}


DATA = Path(__file__).resolve().parent / "data" / "kraft"
FORGOTTEN = DATA / "kafka40-forgotten-vote.json"
"""The shortest counterexample of `one-leader-per-epoch` under kafka40+election=pre-vote-forgetful
(3 voters, 1 value, 3 elections), as `check` saved it."""
STATIC_DISK_LOSS = DATA / "kafka40-static-disk-loss.json"
"""The shortest counterexample of `leader-has-acked-values` under kafka40-static with one lost
disk (3 voters, 1 value, 2 elections; 40.6 million orbits), as `check` saved it (docs/models/kraft.md
tells it)."""


def test_the_forgotten_vote_is_refused_by_kafka_40():
    """The ablation's second vote in one epoch (n3, a prospective that forgot voting for n1,
    grants n2) is named `vote-forgotten-in-epoch`; under kafka40 the same steps replay up to that
    vote, which is refused, since a prospective that voted grants only its candidate
    (`unattachedOrProspectiveCanGrantVote`, in a copy of unknown commit)."""
    from traces.explain import explain
    from traces.store import load_trace

    trace, model = load_trace(FORGOTTEN)
    assert ("Cause: a voter forgot its vote within an epoch and voted again, for a second leader "
            "(vote-forgotten-in-epoch).") in explain(trace, model)
    kafka40 = build_model("kraft", "kafka40", **model.parameters())
    state = kafka40.initial_states()[0]
    for step in trace.steps[:-2]:
        state = dict(kafka40.successors(state))[step.action]
        if step.action[0] == "HandleVoteRequest" and step.state.role[step.action[1] - 1] == PROSPECTIVE:
            break
    voter, candidate = step.action[1], step.action[2]
    assert step.action[0] == "HandleVoteRequest" and _answer(step.state, voter, candidate).granted
    assert not _answer(state, voter, candidate).granted and state.voted_for[voter - 1] != candidate


def test_pre_vote_does_not_stop_a_voter_on_a_new_disk_voting_twice_in_an_epoch():
    """Kafka 4.0 with static voters: n1 leads epoch 1 and commits v1 with n2, loses its disk, and
    grants n3, whose log is as empty as its own, a vote in epoch 1: n3 leads epoch 1 without v1.
    The cause is named with its steps, and every step is Kafka 4.0's."""
    from traces.explain import explain
    from traces.replay import verify_trace
    from traces.store import load_trace

    trace, model = load_trace(STATIC_DISK_LOSS)
    verify_trace(trace, model)
    told = explain(trace, model)
    assert told[1] == ("Cause: a voter that lost its disk voted again, for a candidate without the record "
                       "(vote-after-lost-disk).")
    assert model.audit(trace).conclusion() == "every step as Kafka 4.0"
    kinds = [step.action[0] for step in trace.steps]
    assert kinds.count("LoseDisk") == 1 and len(trace) == 24 and "Flush" in kinds[kinds.index("ClientAppend"):]
