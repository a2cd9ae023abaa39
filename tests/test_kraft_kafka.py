"""The `kraft` model's faithful variants (kip595, kafka39, kip853) against what Kafka's `raft`
module does at 3.8.0 and 3.9.0-rc3: its epoch cache, its HW rule, its vote rule, its restart
from the quorum-state file, and the exceptions it throws, which the model must never reach.
The steps are the compiled kernel's (`model.kraft.kafka`), run on packed rows of readable
states built here."""

from __future__ import annotations

import json
from itertools import permutations
from pathlib import Path

import pytest

from checker.kernel.symmetry import permutations as symmetric_renamings
from checker.kernel.traces import Reducer
from conftest import run_cli, run_json
from invariants.registry import select
from kraft_renaming import renamed, representative
from model.kraft import messages as msg
from model.kraft.kafka.epoch_cache import diverging, end_offset_for_epoch, truncation_offset
from model.kraft.kafka.leader_state import majority_end_offset, update_high_watermark
from model.kraft.kafka.quorum_state import restore
from model.kraft.rule_table import ROWS
from model.kraft.rule_table_docs import DOC, rewritten
from model.kraft.rules import RULE_BOOK
from model.kraft.state import (ACKED, CANDIDATE, CONTROL, FOLLOWER, LEADER, RESIGNED, UNATTACHED, VOTED, WRITTEN,
                               with_voter)
from model.registry import build_model

LOG = ((1, CONTROL), (1, 1), (3, CONTROL), (3, 2))
"""A leader's log: epoch 1 from offset 0, epoch 3 from offset 2, LEO 4."""
LIVE = 1
"""A request's last item while its sender expects the answer."""


def _model(variant="kip595", **bounds):
    return build_model("kraft", variant, **{"replicas": 3, "max_records": 2, "max_elections": 3, "max_restarts": 1,
                                            "max_disk_losses": 1, **bounds})


def _state(variant="kip595", **fields):
    return _model(variant).initial_states()[0]._replace(**fields)


def _on_row(function, s, *args, model=None):
    """`function` (a kernel function over a packed row and its layout) applied to s's row:
    its answer, and the row decoded after it (for the functions that change it in place)."""
    model = model or _model()
    row = model.kernel.encode(s)
    answer = function(row, model.kernel.layout, *args)
    return answer, model.kernel.decode(row)


def _step(s, action, variant="kip595"):
    """The state after the step named `action` (a prefix of the action value) from s."""
    return next(t for a, t in _model(variant).successors(s) if a[:len(action)] == action)


def _log_of(log):
    return _state(log=(log, (), ()), flushed=(len(log), 0, 0))


@pytest.mark.parametrize("epoch, answer", [
    (3, (4, 3)),  # the latest epoch ends at the LEO
    (1, (2, 1)),  # an epoch the cache has ends where the next starts
    (2, (2, 1)),  # an epoch between two ends there too, with the epoch below it
    (0, (0, 0)),  # below every epoch: the first's start, with the epoch asked for
    (5, (4, 3)),  # above every epoch: the cache has no answer, so the LEO and the last epoch
])
def test_the_epoch_cache_answers_as_leader_epoch_file_cache(epoch, answer):
    """`LeaderEpochFileCache.endOffsetFor` @ 3.8.0 (through `KafkaMetadataLog.endOffsetForEpoch`)."""
    assert _on_row(end_offset_for_epoch, _log_of(LOG), 0, epoch)[0] == answer


def test_a_fetch_position_is_valid_where_the_leaders_log_continues_it():
    """`ReplicatedLog.validateOffsetAndEpoch`: offset 0 always; else the follower's last epoch must
    end at or after its fetch offset in the leader's log, or the answer is where it ends
    ((-1, -1): valid)."""
    def answer(offset, epoch):
        return _on_row(diverging, _log_of(LOG), 0, offset, epoch)[0]

    assert answer(0, 0) == answer(2, 1) == answer(4, 3) == (-1, -1)
    assert answer(3, 1) == (2, 1)  # the follower has an epoch-1 record the leader does not
    assert answer(3, 2) == (2, 1)  # an epoch the leader never had


def test_a_follower_truncates_where_its_own_cache_says():
    """`ReplicatedLog.truncateToEndOffset`: with the leader's epoch, at the lower of the two ends;
    without it, where its own last epoch below ends; epoch 0 means the leader's offset."""
    follower = _log_of(((1, CONTROL), (1, 1), (2, CONTROL)))
    assert _on_row(truncation_offset, follower, 0, 2, 1)[0] == 2
    assert _on_row(truncation_offset, follower, 0, 1, 1)[0] == 1
    assert _on_row(truncation_offset, _log_of(((1, CONTROL), (1, 1))), 0, 5, 3)[0] == 2
    assert _on_row(truncation_offset, follower, 0, 0, 0)[0] == 0


def test_the_hw_is_the_majoritys_end_offset_past_the_epochs_start():
    """`LeaderState.maybeUpdateHighWatermark`: index n/2 of the end offsets sorted from the
    highest, taken only past the epoch's start offset and the HW: a majority holding only
    earlier epochs' records commits nothing (Raft's Figure 8)."""
    assert _on_row(majority_end_offset, _state(end_offset=((4, 2, 0), (0,) * 3, (0,) * 3)), 0)[0] == 2
    five = _model(replicas=5)
    s5 = five.initial_states()[0]
    s5 = s5._replace(end_offset=((5, 5, 1, 0, 3),) + s5.end_offset[1:])
    assert _on_row(majority_end_offset, s5, 0, model=five)[0] == 3
    s = _state(role=(LEADER, FOLLOWER, FOLLOWER), epoch=(3, 3, 3), leader=(1, 1, 1), log=(LOG, LOG[:2], ()),
               flushed=(4, 2, 0), start_offset=(2, 0, 0), acked=(WRITTEN, WRITTEN))
    _, earlier_only = _on_row(update_high_watermark, with_voter(s, 0, end_offset=(4, 2, 0)), 0)
    assert earlier_only.hw[0] == 0 and earlier_only.acked == (WRITTEN, WRITTEN)
    _, own_epoch = _on_row(update_high_watermark, with_voter(s, 0, end_offset=(4, 3, 0)), 0)
    assert own_epoch.hw[0] == 3 and own_epoch.acked == (ACKED, WRITTEN)


def _vote_request(s, candidate, voter, epoch, last_epoch, last_offset):
    return s._replace(messages=(((msg.VOTE_REQUEST, candidate, voter, epoch, last_epoch, last_offset, 0, LIVE), 1),))


def _answer(s, voter):
    """The fields of the Vote response voter (1..n) sent."""
    return msg.fields(next(m for m, _ in s.messages if m[0] == msg.VOTE_RESPONSE and msg.source(m) == voter))


def test_a_vote_request_of_a_newer_epoch_moves_the_voter_even_when_it_refuses():
    """`handleVoteRequest` @ 3.8.0: `transitionToUnattached` comes before `canGrantVote`."""
    s = _vote_request(_state(epoch=(1, 1, 1), log=(((1, CONTROL),), ((1, CONTROL),), ()), flushed=(1, 1, 0)),
                      3, 1, 2, 0, 0)
    after = _step(s, ("HandleVoteRequest", 1))
    assert (after.role[0], after.epoch[0]) == (UNATTACHED, 2) and not _answer(after, 1).granted


def test_a_voter_grants_again_only_to_its_candidate_without_looking_at_logs():
    """`VotedState.canGrantVote` @ 3.8.0 compares candidate ids only; `UnattachedState`'s compares
    logs, (last epoch, LEO)."""
    s = _state(epoch=(2, 2, 2), role=(VOTED, CANDIDATE, CANDIDATE), voted_for=(2, 2, 3), log=(((1, CONTROL),), (), ()),
               flushed=(1, 0, 0))
    assert _answer(_step(_vote_request(s, 2, 1, 2, 0, 0), ("HandleVoteRequest", 1)), 1).granted
    assert not _answer(_step(_vote_request(s, 3, 1, 2, 1, 1), ("HandleVoteRequest", 1)), 1).granted
    fresh = s._replace(role=(UNATTACHED, CANDIDATE, CANDIDATE), voted_for=(0, 2, 3))
    assert not _answer(_step(_vote_request(fresh, 2, 1, 2, 0, 0), ("HandleVoteRequest", 1)), 1).granted


@pytest.mark.parametrize("role, back", [(LEADER, RESIGNED), (RESIGNED, RESIGNED), (CANDIDATE, CANDIDATE),
                                        (VOTED, VOTED), (FOLLOWER, FOLLOWER), (UNATTACHED, UNATTACHED)])
def test_a_restart_reads_the_quorum_state_file(role, back):
    """`QuorumState.initialize` @ 3.8.0: a leader comes back resigned, a candidate a candidate in
    the same epoch, a voter voted for the same candidate, a follower following; no HW."""
    leader = {LEADER: 1, RESIGNED: 1, FOLLOWER: 2}.get(role, 0)
    voted = {CANDIDATE: 1, VOTED: 3}.get(role, 0)
    s = _state(role=(role, FOLLOWER, FOLLOWER), epoch=(4, 4, 4), leader=(leader, 1, 1), voted_for=(voted, 0, 0),
               hw=(2, 0, 0), log=(((4, CONTROL),) * 2, (), ()), flushed=(2, 0, 0))
    _, after = _on_row(restore, s, 0)
    assert (after.role[0], after.epoch[0], after.hw[0]) == (back, 4, 0)
    assert after.voted_for[0] == (voted if back in (VOTED, CANDIDATE) else 0)


def test_a_restart_loses_the_leaders_unflushed_tail_and_an_older_file_yields_to_the_log():
    s = _state(role=(LEADER, FOLLOWER, FOLLOWER), epoch=(2, 2, 2), leader=(1, 1, 1),
               log=(((2, CONTROL), (2, 1)), (), ()), flushed=(1, 0, 0), start_offset=(0, 0, 0))
    after = _step(s, ("Restart", 1))
    assert after.log[0] == ((2, CONTROL),) and after.role[0] == RESIGNED and after.restarts == 1
    stale_file = _state(role=(FOLLOWER,) * 3, epoch=(1, 2, 2), leader=(2, 0, 0), log=(((2, CONTROL),), (), ()),
                        flushed=(1, 0, 0))
    _, restored = _on_row(restore, stale_file, 0)
    assert (restored.role[0], restored.epoch[0]) == (UNATTACHED, 2)


def test_under_kip853_a_voter_on_a_new_disk_is_refused_and_not_counted():
    """`isValidVoterKey`, `handleVoteRequest` and `LeaderState.updateReplicaState` @ 3.9.0-rc3: a
    request for the old directory id is refused INVALID_VOTER_KEY, and an observer's fetch moves
    no HW, while a FETCH its sender sent before it lost its disk carries the old key and counts
    (`handleFetchRequest` takes the key from the request). Under static voters the same voter
    grants its vote."""
    lost = {variant: _step(_state(variant, epoch=(1, 1, 1)), ("LoseDisk", 1), variant) for variant in ("kip595", "kip853")}
    s = lost["kip853"]
    assert (s.epoch[0], s.log[0], s.directory[0], s.disk_losses) == (0, (), 1, 1)
    assert _answer(_step(_vote_request(s, 2, 1, 2, 1, 1), ("HandleVoteRequest", 1), "kip853"), 1).error == \
        msg.INVALID_VOTER_KEY
    assert _answer(_step(_vote_request(lost["kip595"], 2, 1, 2, 1, 1), ("HandleVoteRequest", 1), "kip595"), 1).granted
    own = {"kip595": (0, 1, 0), "kip853": (0, 0, 1, 0, 0, 0)}  # n2's own key: slot 1, or slot 2 of (id, directory)

    def leader(variant, directory):
        return lost[variant]._replace(
            role=(FOLLOWER, LEADER, FOLLOWER), epoch=(1, 1, 1), leader=(2, 2, 2), log=((), ((1, CONTROL),), ()),
            flushed=(0, 1, 0), start_offset=(0, 0, 0), end_offset=((0,) * len(own[variant]), own[variant],
                                                                    (0,) * len(own[variant])),
            messages=(((msg.FETCH_REQUEST, 1, 2, 1, 1, 1, directory, LIVE), 1),))

    observed = _step(leader("kip853", 1), ("HandleFetchRequest", 2), "kip853")
    assert observed.hw[1] == 0 and observed.end_offset[1][1] == 1  # kept as the observer key's, not counted
    assert _step(leader("kip595", 1), ("HandleFetchRequest", 2), "kip595").hw[1] == 1
    # the key the FETCH carries counts
    assert _step(leader("kip853", 0), ("HandleFetchRequest", 2), "kip853").hw[1] == 1


def test_a_stale_request_is_handled_and_its_answer_dropped():
    """`resetConnections` on a role change: the receiver still acts on a request its sender no
    longer expects, and the answer is dropped (`isResponseExpected`)."""
    s = _state(epoch=(1, 1, 1), messages=(((msg.VOTE_REQUEST, 3, 1, 2, 0, 0, 0), 1),))
    after = _step(s, ("HandleVoteRequest", 1))
    assert (after.role[0], after.voted_for[0], after.messages) == (VOTED, 3, ())


@pytest.mark.parametrize("variant", ["kip595", "kafka39", "kip853"])
def test_kafkas_own_checks_never_fire_and_every_invariant_holds_at_small_bounds(variant):
    """Every step Kafka's code would throw on (`QuorumState`'s refusals, a truncation below the
    HW, a falling follower HW) is the illegal role: none is reachable with one election and one
    restart, and no acknowledged value is lost."""
    out = run_json("check", "--model", "kraft", "--variant", variant, "--replicas", "3", "--max-records", "1",
                   "--max-elections", "1", "--max-restarts", "1", "--engine", "local")
    assert out["complete"] and out["distinct_states"] > 1000
    assert {v["status"] for v in out["invariants"].values()} == {"holds"}


def test_a_single_controller_acknowledges_a_record_before_flushing_it(tmp_path):
    """`flushLeaderLog` @ 3.8.0 counts the leader's LEO, and a one-voter quorum's HW with it,
    before `log.flush`: a crash between loses an acknowledged record (6 steps)."""
    result = run_cli("check", "--model", "kraft", "--variant", "kip595", "--replicas", "1", "--max-records", "1",
                     "--max-elections", "2", "--max-restarts", "1", "--engine", "local",
                     "--invariant", "leader-has-acked-values", "--trace-dir", str(tmp_path))
    assert result.exit_code == 1
    from traces.store import load_trace

    from traces.explain import explain

    trace, model = load_trace(tmp_path / "kraft-kip595-leader-has-acked-values.json")
    assert [step.action[0] for step in trace.steps] == ["Timeout", "AppendLeaderChange", "Flush", "ClientAppend",
                                                        "Restart", "Timeout"]
    audited = run_cli("trace", "audit", str(tmp_path / "kraft-kip595-leader-has-acked-values.json"))
    assert audited.exit_code == 0 and audited.output.strip().endswith("every step as Kafka 3.3 to 3.8")
    assert model.audit(trace).abstractions() == ["stand"]
    told = explain(trace, model)
    assert told[1] == "Cause: an unflushed log tail lost in a crash (unflushed-tail-lost-in-crash)."
    assert any("flushLeaderLog" in line and "its own log end is the majority" in line for line in told)
    three = run_json("check", "--model", "kraft", "--variant", "kip595", "--replicas", "3", "--max-records", "1",
                     "--max-elections", "1", "--max-restarts", "1", "--engine", "local",
                     "--invariant", "leader-has-acked-values")
    assert three["invariants"]["leader-has-acked-values"]["status"] == "holds"


def test_faithful_states_survive_json_bytes_and_renaming():
    model = _model("kip853", max_records=1, max_elections=1)
    seen, frontier = set(model.initial_states()), list(model.initial_states())
    for _ in range(9):
        frontier = [t for s in frontier for _, t in model.successors(s) if not (t in seen or seen.add(t))]
    reducer = Reducer(model.kernel, symmetric_renamings(3, True))
    for s in sorted(seen)[::5]:
        assert model.state_from_json(json.loads(json.dumps(model.state_to_json(s)))) == s
        assert model.decode(model.encode(s)) == s
        assert {representative(renamed(s, p)) for p in permutations(range(3))} == {representative(s)}
        assert len({reducer.representative(model.kernel.encode(renamed(s, p))).tobytes()
                    for p in permutations(range(3))}) == 1
    assert any(s.disk_losses for s in seen) and any(s.restarts for s in seen)


def test_a_tla_trace_is_no_release_and_is_not_judged(tmp_path):
    run_cli("check", "--model", "kraft", "--variant", "tla", "--max-restarts", "1", "--engine", "local",
            "--invariant", "no-illegal-state", "--trace-dir", str(tmp_path))
    audited = run_cli("trace", "audit", str(tmp_path / "kraft-tla-no-illegal-state.json"))
    assert audited.exit_code == 1 and "not judged: variant tla takes the steps of the TLA+ specification" in audited.output


def test_the_tla_variant_takes_no_rule_and_no_lost_disk():
    assert run_cli("check", "--model", "kraft", "--variant", "tla", "--rule", "voter-key=id").exit_code == 2
    assert run_cli("check", "--model", "kraft", "--variant", "tla", "--max-disk-losses", "1").exit_code == 2
    assert RULE_BOOK.resolve("kip595+voter-key=directory").switched == {"voter-key": "directory"}


def test_the_docs_rule_table_is_generated_from_the_data():
    assert rewritten(DOC.read_text()) == DOC.read_text()
    assert all(row.sources and row.statuses for row in ROWS)


DISK_LOSS = Path(__file__).resolve().parent / "data" / "kraft" / "kip595-disk-loss.json"
"""The shortest counterexample of `leader-has-acked-values` under kip595 with one lost disk
(3 voters, 1 value, 2 elections), as `check` saved it (docs/models/kraft.md tells it)."""


def test_a_voter_on_a_new_disk_votes_again_under_static_voters_and_kip853_refuses_it():
    """3.8's voters are node ids: the voter that lost its disk comes back in epoch 0, with no
    memory of the vote it gave in epoch 1, and stands in epoch 1 itself; the epoch gets two
    leaders and one of them lacks the acknowledged value. With KIP-853's directory ids the same
    steps replay up to that candidacy, which an observer never takes."""
    from traces.explain import explain
    from traces.replay import verify_trace
    from traces.store import load_trace

    trace, model = load_trace(DISK_LOSS)
    verify_trace(trace, model)
    kinds = [step.action[0] for step in trace.steps]
    assert kinds.count("LoseDisk") == 1 and kinds.count("Timeout") == 2
    told = explain(trace, model)
    assert told[1] == ("Cause: a voter forgot its vote within an epoch and voted again, for a second leader "
                       "(vote-forgotten-in-epoch).")
    assert any("came back on a new, empty disk" in line for line in told)
    assert model.audit(trace).conclusion() == "every step as Kafka 3.3 to 3.8"
    wiped = trace.steps[kinds.index("LoseDisk")].action[1]
    directory_ids = build_model("kraft", "kip595+voter-key=directory", **model.parameters())
    state = directory_ids.initial_states()[0]
    for step in trace.steps:
        taken = dict(directory_ids.successors(state))
        if step.action not in taken:
            break
        state = taken[step.action]
    assert step.action == ("Timeout", wiped) and kinds.index("LoseDisk") < trace.steps.index(step)


def test_distinguish_steps_two_variants_without_a_kernel():
    """The product of two variants stepped by their own successors: kip595 and kafka39 take the
    same events but for BeginQuorumEpoch's resends, and no behaviour of both loses an
    acknowledged value under one only; tla names its steps apart, so it shares no event with
    kip595 past the start."""
    out = run_json("distinguish", "--model", "kraft", "--variants", "kip595,kafka39",
                   "--invariant", "leader-has-acked-values", "--engine", "local")
    assert (out["found"], out["complete"]) == (False, True) and out["pairs"] > 10_000
    apart = run_json("distinguish", "--model", "kraft", "--variants", "tla,kip595", "--invariant", "no-illegal-state",
                     "--max-restarts", "1", "--engine", "local")
    assert (apart["found"], apart["complete"], apart["depth"]) == (False, True, 1)


FIGURE_8 = Path(__file__).resolve().parents[1] / "examples" / "kraft-figure-8.json"
"""Raft's Figure 8 told as KRaft steps (3 voters, 1 value, 4 elections), under
kip595+commit-rule=majority: docs/models/kraft.md tells it."""


def test_figure_8_loses_a_value_only_without_kafkas_commit_rule():
    """`LeaderState.maybeUpdateHighWatermark` @ 3.8.0 moves the HW only past the epoch's start
    offset. Without that condition (commit-rule=majority, no release) n1, leading epoch 3,
    commits v1 of epoch 1 on n3's FETCH, and n3 then elects n2, whose log ends in epoch 2
    without v1. Under kip595 itself the same steps replay, and v1 is never acknowledged."""
    from traces.explain import explain
    from traces.replay import verify_trace
    from traces.store import load_trace

    trace, model = load_trace(FIGURE_8)
    verify_trace(trace, model)
    assert trace.variant == "kip595+commit-rule=majority" and model.parameters()["max_elections"] == 4
    told = explain(trace, model)
    assert told[2] == "Cause: a majority counted for a record of an earlier epoch (Raft's Figure 8) (earlier-epoch-counted)."
    assert model.audit(trace).not_judged.startswith("rule set kip595+commit-rule=majority switches commit-rule=majority")
    acked = select("kraft", ["leader-has-acked-values"])[0]
    assert not acked.holds(trace.states()[-1])
    kafka = build_model("kraft", "kip595", **model.parameters())
    state = kafka.initial_states()[0]
    for step in trace.steps:  # the same actions, each enabled, under Kafka's own commit rule
        state = dict(kafka.successors(state))[step.action]
        assert acked.holds(state) and ACKED not in state.acked


def test_figure_8_found_by_a_walk_is_explained_the_same_way():
    """The trace `simulate` found (seed 1; docs/models/kraft.md): the candidate without v1 wins
    epoch 4 first, and the leader of epoch 3 acknowledges v1 one step later."""
    from traces.explain import explain
    from traces.store import load_trace

    trace, model = load_trace(Path(__file__).resolve().parent / "data" / "kraft" / "figure-8-walk.json")
    told = explain(trace, model)
    assert told[2] == "Cause: a majority counted for a record of an earlier epoch (Raft's Figure 8) (earlier-epoch-counted)."
    assert trace.steps[-1].action[0] == "HandleFetchRequest"
