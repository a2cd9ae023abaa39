"""Dynamic voters under `kip853` (KIP-853, Kafka 3.9.0-rc3 on kraft.version 1): the voter set as
records in the log, AddVoter and RemoveVoter one at a time, observers, a removed leader's
resignation; each step against what Kafka's code does, and the kernel's renaming of voter sets
against the readable oracle (`kraft_renaming`)."""

from __future__ import annotations

import json
import random
from itertools import permutations

import pytest

from checker.kernel.symmetry import permutations as symmetric_renamings
from checker.kernel.traces import Reducer
from checker.local import explore
from conftest import run_cli, run_json
from invariants.registry import select
from kraft_renaming import renamed, representative
from model.kraft import messages as msg, voter_sets
from model.kraft.state import (CONTROL, FOLLOWER, ILLEGAL, LEADER, RESIGN_REQUESTED, RESIGNED, UNATTACHED, VOTED,
                               with_voter)
from model.kraft.words import voter_set
from model.registry import build_model

LIVE = 1


def _model(**bounds):
    return build_model("kraft", "kip853", **{"replicas": 3, "max_records": 1, "max_elections": 2, "max_restarts": 1,
                                             "spares": 1, "max_voter_changes": 2, **bounds})


def _code(*members, replicas=3):
    """A set's code: members as voter (1..n) or (voter, directory id)."""
    return voter_sets.code(dict(m if isinstance(m, tuple) else (m, 0) for m in members), replicas)


def _steps(model, s, kind):
    """The successors of s by steps of kind `kind`: {action: state}."""
    return {a: t for a, t in model.successors(s) if a[0] == kind}


def _leading(model, log, hw, **fields):
    """n1 leading epoch 2 with `log` (flushed), HW `hw`, n2 following with the same log, n3 a spare
    with an empty log: every key's fetched offset the log's end."""
    s = model.initial_states()[0]
    lay = model.kernel.layout
    end = len(log)
    offsets = tuple(end if slot // (lay.keys // 3) < 2 else 0 for slot in range(lay.keys))
    return s._replace(role=(LEADER, FOLLOWER, UNATTACHED), epoch=(2, 2, 0), leader=(1, 1, 0), log=(log, log, ()),
                      flushed=(end, end, 0), hw=(hw, hw, 0), start_offset=(1, 0, 0), heard=(3, 0, 0),
                      end_offset=(offsets, (0,) * lay.keys, (0,) * lay.keys), elections=2, **fields)


TWO = -_code(1, 2)
"""The bootstrap set of the first two of three controllers, as a log entry's value."""


def test_the_first_leader_writes_the_bootstrap_set_and_every_replica_reads_its_set_off_its_log():
    """`LeaderState.appendStartOfEpochControlRecords`: a leader whose set came from the bootstrap
    checkpoint writes a VotersRecord of it with its LeaderChange record; a later leader, whose log
    has one, writes the LeaderChange alone. A spare has no set until its log holds a record."""
    model = _model()
    s = model.initial_states()[0]
    assert s.boot == _code(1, 2) and [voter_set(s, i) for i in range(3)] == [_code(1, 2), _code(1, 2), 0]
    leader = s._replace(role=(LEADER, FOLLOWER, UNATTACHED), epoch=(1, 1, 0), leader=(1, 1, 0), elections=1)
    first = _steps(model, leader, "AppendLeaderChange")[("AppendLeaderChange", 1)]
    assert first.log[0] == ((1, TWO),)
    later = leader._replace(epoch=(2, 2, 0), log=(((1, TWO),), ((1, TWO),), ()), flushed=(1, 1, 0),
                            start_offset=(1, 0, 0))
    assert _steps(model, later, "AppendLeaderChange")[("AppendLeaderChange", 1)].log[0] == ((1, TWO), (2, CONTROL))
    assert voter_set(later._replace(log=(later.log[0], later.log[1], ((1, TWO),))), 2) == _code(1, 2)


def test_a_voter_change_waits_for_a_hw_in_the_epoch_and_a_committed_voters_record():
    """`AddVoterHandler.handleAddVoterRequest` @ 3.9.0-rc3: no HW yet, or an uncommitted
    VotersRecord, and the request times out; otherwise the leader appends the new set, which is
    its own at once (`KRaftControlRecordStateMachine.lastVoterSet` reads the uncommitted log)."""
    model = _model()
    log = ((1, TWO), (2, CONTROL))
    assert not _steps(model, _leading(model, log, 0), "AddVoter")  # no HW in epoch 2 yet
    ready = _leading(model, log, 2)
    added = _steps(model, ready, "AddVoter")
    assert set(added) == {("AddVoter", 1, 3)}  # n1 and n2 are voters already: DUPLICATE_VOTER
    after = added[("AddVoter", 1, 3)]
    assert after.log[0][-1] == (2, -_code(1, 2, 3)) and voter_set(after, 0) == _code(1, 2, 3)
    assert after.voter_changes == 1 and after.hw[0] == 2  # n3 has fetched nothing: 2 of 3 hold offset 2
    flushed = after._replace(flushed=(3, 2, 0))
    assert not _steps(model, flushed, "AddVoter") and not _steps(model, flushed, "RemoveVoter")  # not committed
    spent = ready._replace(voter_changes=2)
    assert not _steps(model, spent, "AddVoter") and not _steps(model, spent, "RemoveVoter")


def test_a_leader_that_removed_itself_leads_without_counting_itself_then_resigns():
    """`RemoveVoterHandler.handleRemoveVoterRequest` and `highWatermarkUpdated`,
    `LeaderState.maybeUpdateHighWatermark` (the leader's own state an observer's once it is out of
    the set), `pollLeader` and `pollResigned` @ 3.9.0-rc3."""
    model = _model(spares=0)
    three = -_code(1, 2, 3)
    log = ((1, three), (2, CONTROL))
    s = _leading(model, log, 2)._replace(role=(LEADER, FOLLOWER, FOLLOWER), epoch=(2, 2, 2), leader=(1, 1, 1),
                                         log=(log, log, log), flushed=(2, 2, 2), hw=(2, 2, 2))
    removed = _steps(model, s, "RemoveVoter")
    assert set(removed) == {("RemoveVoter", 1, v) for v in (1, 2, 3)}
    gone = removed[("RemoveVoter", 1, 1)]._replace(flushed=(3, 2, 2))
    assert gone.role[0] == LEADER and gone.voter_op[0] == 3 and voter_set(gone, 0) == _code(2, 3)
    assert gone.hw[0] == 2  # its own offset 3 no longer counts: n2 and n3 are at 2
    # n2's FETCH at offset 3 is half of {n2, n3}: not a majority; n3's then commits the removal
    fetch = ((msg.FETCH_REQUEST, 2, 1, 2, 3, 2, 0, LIVE), 1)
    once = dict(model.successors(gone._replace(messages=(fetch,))))[("HandleFetchRequest", 1, 2, 2)]
    assert once.hw[0] == 2 and once.voter_op[0] == 3
    both = with_voter(once, 0, end_offset=tuple(3 if slot in (1, 2) else once.end_offset[0][slot]
                                               for slot in range(3)))
    fetch3 = ((msg.FETCH_REQUEST, 3, 1, 2, 3, 2, 0, LIVE), 1)
    committed = dict(model.successors(both._replace(messages=(fetch3,))))[("HandleFetchRequest", 1, 3, 2)]
    assert committed.hw[0] == 3 and committed.voter_op[0] == RESIGN_REQUESTED
    asked = committed._replace(messages=(((msg.FETCH_REQUEST, 2, 1, 2, 3, 2, 0, LIVE), 1),))
    assert [a for a, _ in model.successors(asked) if a[1] == 1] == [("Restart", 1), ("Resign", 1)]
    resigned = _steps(model, asked, "Resign")[("Resign", 1)]
    assert (resigned.role[0], resigned.epoch[0], resigned.leader[0], resigned.hw[0]) == (RESIGNED, 2, 1, 3)
    left = _steps(model, resigned, "ResignedTimeout")[("ResignedTimeout", 1)]
    assert (left.role[0], left.epoch[0], left.leader[0]) == (UNATTACHED, 3, 0)
    assert all(a[1] != 1 for a in _steps(model, resigned, "Timeout"))  # outside its set, it never stands


def test_an_observer_fetches_from_any_controller_and_follows_the_leader_it_hears_of():
    """`pollUnattachedAsObserver` (`maybeSendAnyVoterFetch`) @ 3.9.0-rc3: a spare, unattached
    and outside its (empty) voter set, fetches from its bootstrap servers; an answer naming the
    leader of a newer epoch makes it a follower (`maybeTransition`), which fetches the leader only.
    An unattached voter never fetches."""
    model = _model()
    s = _leading(model, ((1, TWO), (2, CONTROL)), 2)
    assert {a for a in _steps(model, s, "SendFetch") if a[1] == 3} == {("SendFetch", 3, 1), ("SendFetch", 3, 2)}
    asked = _steps(model, s, "SendFetch")[("SendFetch", 3, 2)]
    answered = dict(model.successors(asked))[("HandleFetchRequest", 2, 3, 0)]
    assert [m for m, _ in answered.messages if m[0] == msg.FETCH_RESPONSE][0][5] == msg.FENCED_LEADER_EPOCH
    follows = dict(model.successors(answered))[("HandleFetchResponse", 3, 2, 2)]
    assert (follows.role[2], follows.epoch[2], follows.leader[2]) == (FOLLOWER, 2, 1)
    assert {a for a in _steps(model, follows, "SendFetch") if a[1] == 3} == {("SendFetch", 3, 1)}
    idle = model.initial_states()[0]
    assert {a[1] for a in _steps(model, idle, "SendFetch")} == {3}


def test_a_follower_whose_leader_left_its_voter_set_restarts_unattached_knowing_it():
    """`QuorumState.initialize` @ 3.9.0-rc3: a follower of a leader that is not in its latest
    voter set comes back unattached with that leader known, and `UnattachedState.canGrantVote`
    refuses votes then."""
    model = _model(spares=0)
    log = ((1, -_code(1, 2, 3)), (2, CONTROL), (2, -_code(2, 3)))
    s = model.initial_states()[0]._replace(role=(RESIGNED, FOLLOWER, FOLLOWER), epoch=(2, 2, 2), leader=(1, 1, 1),
                                           log=(log, log, log), flushed=(3, 3, 3), hw=(3, 3, 3), elections=2)
    back = _steps(model, s, "Restart")[("Restart", 2)]
    assert (back.role[1], back.epoch[1], back.leader[1]) == (UNATTACHED, 2, 1)
    asked = back._replace(messages=(((msg.VOTE_REQUEST, 3, 2, 3, 2, 3, 0, LIVE), 1),))
    after = dict(model.successors(asked))[("HandleVoteRequest", 2, 3, 3)]
    assert after.role[1] == VOTED  # a newer epoch clears the leader first, then it grants
    same_epoch = back._replace(messages=(((msg.VOTE_REQUEST, 3, 2, 2, 2, 3, 0, LIVE), 1),))
    refused = dict(model.successors(same_epoch))[("HandleVoteRequest", 2, 3, 2)]
    assert refused.role[1] == UNATTACHED and not [m for m, _ in refused.messages if m[0] == msg.VOTE_RESPONSE][0][5]


def test_a_leader_back_on_a_new_disk_throws_on_hearing_it_leads():
    """`KafkaRaftClient.hasConsistentLeader` @ 3.9.0-rc3 (and 4.0): a response that names this
    replica leader must find it leading. A controller that led epoch 1 and comes back on a new,
    empty disk is an observer in epoch 0; the first controller it fetches from still follows it,
    and answers FENCED_LEADER_EPOCH naming it leader of epoch 1: `maybeTransition` throws
    IllegalStateException. No record is lost; Kafka's raft thread fails until a new leader is
    elected."""
    out = run_json("check", "--model", "kraft", "--variant", "kip853", "--max-disk-losses", "1", "--engine", "local")
    verdict = out["invariants"]["no-illegal-state"]
    assert verdict["status"] == "violated" and verdict["trace_length"] == 10
    static = run_json("check", "--model", "kraft", "--variant", "kip595", "--max-disk-losses", "1", "--engine", "local",
                      "--invariant", "no-illegal-state")
    assert static["invariants"]["no-illegal-state"]["status"] == "holds"  # a static voter never fetches unattached


def test_the_shortest_throw_is_a_fetch_answer_naming_the_lost_leader():
    model = build_model("kraft", "kip853", replicas=3, max_records=1, max_elections=1, max_disk_losses=1)
    result = explore(model, select("kraft", ["no-illegal-state"]), stop_at_first=True)
    steps = result.violations["no-illegal-state"].steps
    lost = next(step.action[1] for step in steps if step.action[0] == "LoseDisk")
    before = steps[-2].state
    assert steps[-1].action[:2] == ("HandleFetchResponse", lost) and steps[-1].state.role[lost - 1] == ILLEGAL
    answer = next(m for m, _ in before.messages if m[0] == msg.FETCH_RESPONSE and m[2] == lost)
    assert answer[5] == msg.FENCED_LEADER_EPOCH and answer[6] == lost
    assert any(step.state.role[lost - 1] == LEADER for step in steps)


@pytest.mark.parametrize("bounds, error", [
    (("--variant", "kip595", "--spares", "1"), "need dynamic voters"),
    (("--variant", "kip853+voter-key=id", "--max-voter-changes", "1"), "need dynamic voters"),
    (("--spares", "3"), "leaves no voter"),
    (("--replicas", "4", "--max-voter-changes", "1", "--max-disk-losses", "2"), "at most --max-disk-losses 1"),
])
def test_voter_change_bounds_a_variant_cannot_take_are_refused_in_one_line(bounds, error):
    result = run_cli("check", "--model", "kraft", *bounds, "--engine", "local")
    assert result.exit_code == 2 and error in result.output and "Traceback" not in result.output


def _reachable(model, depth):
    seen, frontier = set(model.initial_states()), list(model.initial_states())
    for _ in range(depth):
        frontier = [t for s in frontier for _, t in model.successors(s) if not (t in seen or seen.add(t))]
    return seen


def _walked(model, walks, length):
    """The states of `walks` seeded random walks of up to `length` steps."""
    rng, seen = random.Random(7), set()
    for _ in range(walks):
        s = model.initial_states()[0]
        for _ in range(length):
            nexts = model.successors(s)
            if not nexts:
                break
            s = rng.choice(nexts)[1]
            seen.add(s)
    return seen


def test_voter_set_states_survive_json_bytes_and_renaming():
    """Voter sets in logs, FETCH answers and the bootstrap set, per-key end offsets and a pending
    removal are renamed by the kernel as the readable oracle renames them."""
    model = _model(max_disk_losses=1, max_restarts=0)
    seen = {s for s in _walked(model, 400, 60) if s.voter_changes or s.disk_losses}
    reducer = Reducer(model.kernel, symmetric_renamings(3, True))
    for s in sorted(seen)[::7]:
        assert model.state_from_json(json.loads(json.dumps(model.state_to_json(s)))) == s
        assert model.decode(model.encode(s)) == s
        assert {representative(renamed(s, p)) for p in permutations(range(3))} == {representative(s)}
        assert len({reducer.representative(model.kernel.encode(renamed(s, p))).tobytes()
                    for p in permutations(range(3))}) == 1
    assert any(s.voter_op and RESIGN_REQUESTED in s.voter_op for s in seen)


def test_the_orbits_symmetry_stores_are_the_oracles_orbits():
    """Two voters, two voter changes (remove one, add it back) and two elections: the kernel's
    orbit count under renaming is the number of the oracle's representatives of every reachable
    state. (With spares the bootstrap set tells controllers apart, and orbits are states.)"""
    model = build_model("kraft", "kip853", replicas=2, max_records=1, max_elections=2, max_voter_changes=2)
    every = explore(model, [], stop_at_first=False, symmetry=False)
    orbits = explore(model, [], stop_at_first=False, symmetry=True)
    states = _reachable(model, every.depth)
    assert len(states) == every.distinct_states
    assert len({representative(s) for s in states}) == orbits.distinct_states < every.distinct_states
    kinds = {a[0] for s in states for a, _ in model.successors(s)}
    assert {"AddVoter", "RemoveVoter", "Resign", "ResignedTimeout"} <= kinds
    spares = build_model("kraft", "kip853", replicas=2, max_records=1, max_elections=2, spares=1, max_voter_changes=2)
    assert explore(spares, [], stop_at_first=False, symmetry=True).distinct_states == \
        explore(spares, [], stop_at_first=False, symmetry=False).distinct_states


def test_without_the_guard_two_uncommitted_removals_lose_a_value():
    """`AddVoterHandler`/`RemoveVoterHandler` @ 3.9.0-rc3 take a change only with a HW in the
    epoch, the last VotersRecord committed and none pending. Without that (no release) n1 removes
    n3 and n2 before either is committed, commits v1 alone, and n2 and n3 elect n2 without it;
    under kip853 the same actions stop at the first removal, which waits for a HW."""
    model = build_model("kraft", "kip853+voter-change-guard=none", replicas=3, max_records=1, max_elections=2,
                        max_voter_changes=2)
    result = explore(model, select("kraft", ["leader-has-acked-values"]), stop_at_first=True)
    steps = result.violations["leader-has-acked-values"].steps
    assert len(steps) == 15
    removals = [k for k, step in enumerate(steps) if step.action[0] == "RemoveVoter"]
    assert len(removals) == 2 and steps[removals[1]].state.hw[0] > steps[removals[1] - 1].state.hw[0]
    assert voter_set(steps[-1].state, 0) == _code(1) and voter_set(steps[-1].state, 1) == _code(1, 2, 3)
    kafka = build_model("kraft", "kip853", **model.parameters())
    state = kafka.initial_states()[0]
    for k, step in enumerate(steps):
        enabled = dict(kafka.successors(state))
        if step.action not in enabled:
            break
        state = enabled[step.action]
    assert k == removals[0] and state.hw[0] == 0


def test_explain_names_two_voter_sets_without_a_common_majority(tmp_path):
    """`--explain` of the guard story: the two hasty removals, the acknowledgement under {n1}, and
    the election under {n1, n2, n3}."""
    from traces.explain import explain
    from traces.store import load_trace

    run_cli("check", "--model", "kraft", "--variant", "kip853+voter-change-guard=none", "--replicas", "3",
            "--max-records", "1", "--max-elections", "2", "--max-voter-changes", "2", "--engine", "local",
            "--invariant", "leader-has-acked-values", "--trace-dir", str(tmp_path))
    trace, model = load_trace(tmp_path / "kraft-kip853+voter-change-guard=none-leader-has-acked-values.json")
    told = explain(trace, model)
    cause = next(line for line in told if line.startswith("Cause:"))
    assert cause.endswith("(voter-sets-without-common-majority).")
    assert sum("changed its voter set while a VotersRecord" in line for line in told) == 2
    assert any("A majority of it, {n1}, and a majority of {n1, n2, n3}, {n2, n3}, share no voter" in line
               for line in told)
