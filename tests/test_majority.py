"""The `fetch` model's majority quorum (`--quorum majority`, Raft and KRaft's rules) against the
facts the Raft paper states: a leader needs the votes of a majority, a replica votes only for a
log at least as up to date as its own, a follower drops only the suffix that differs from the
leader's log, and with the own-epoch commitment rule nothing committed is ever lost, while
without it (`majority-naive`) a record held by a majority is overwritten (the paper's Figure 8).
"""

from __future__ import annotations

import json

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.local import explore
from conftest import run_cli
from invariants.fetch import STATE_INVARIANTS
from invariants.registry import select
from kernel_walks import assert_renaming_commutes, random_walk
from model.params import ModelError
from model.registry import build_model
from traces.replay import verify_trace, walk

FIGURE_8 = dict(replicas=3, log_size=1, max_records=2, max_epoch=3, max_crashes=0)
"""The smallest bounds I know in which majority-naive loses a committed record: two writes to
one offset, four epochs, and stale leaders instead of crashes."""


def majority_model(quorum="majority", **config):
    return build_model("fetch", "kip320", ghost=True, quorum=quorum, **config)


def enabled(model, state, kind):
    return {action for action, _ in model.successors(state) if action[0] == kind}


# ----- the rules, step by step ---------------------------------------------------------------------------

LEADER_WROTE = [("BecomeLeader", 0, 0), ("ProducerWrite", 0)]
"""r1 leads epoch 0 and holds a@e0; r2 and r3 hold nothing."""


def test_a_replica_votes_only_for_a_log_at_least_as_up_to_date_as_its_own():
    model = majority_model(**FIGURE_8)
    state = walk(model, LEADER_WROTE)[-1]
    # r2 and r3 (empty logs) may elect each other; neither can get r1's vote, whose log is longer.
    assert enabled(model, state, "WinElection") == {("WinElection", 1, 2, 15), ("WinElection", 2, 1, 15)}
    after = dict(model.successors(state))[("WinElection", 1, 2, 15)]
    assert (after.controller.epoch, after.controller.leader) == (1, 1)
    assert (after.brokers[2].epoch, after.brokers[2].leader) == (1, 1)  # the voter follows at once
    assert (after.brokers[0].epoch, after.brokers[0].leader) == (0, 0)  # r1 has not heard yet...
    assert [q.epoch for q in after.brokers[0].inbox] == [1]  # ...the new epoch waits in its inbox


def test_no_election_without_a_live_majority():
    model = majority_model(replicas=3, max_crashes=2)
    state = walk(model, [("BecomeLeader", 0, 0), ("Crash", 0), ("Crash", 1)])[-1]
    assert enabled(model, state, "WinElection") == set()
    state = walk(model, [("BecomeLeader", 0, 0), ("Crash", 0)])[-1]
    assert enabled(model, state, "WinElection") == {("WinElection", 1, 2, 15), ("WinElection", 2, 1, 15)}


def test_a_follower_drops_only_the_suffix_that_differs_from_the_leader_log():
    model = majority_model(replicas=3, log_size=2, max_records=3, max_epoch=2)
    steps = [("BecomeLeader", 0, 0), ("ProducerWrite", 0), ("BecomeFollower", 1, 0, 0), ("FollowerFetch", 1),
             ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1),  # r2 holds a@e0
             ("ProducerWrite", 0),  # r1 holds a@e0, b@e0
             ("WinElection", 1, 2, 15), ("ProducerWrite", 1),  # r2 leads epoch 1: a@e0, c@e1
             ("BecomeFollower", 0, 1, 1), ("FollowerFetch", 0), ("LeaderServeFetch", 1, 0)]
    states = walk(model, steps)
    answer = states[-1].brokers[0].fetch
    assert answer.diverging == 1 and not answer.records  # the logs agree on offset 0 only
    r1 = dict(model.successors(states[-1]))[("FollowerApplyResponse", 0)].brokers[0]
    assert [x.id for x in r1.log] == [0]  # b@e0 dropped, a@e0 kept
    assert r1.cache == ((0, 0),)


def test_the_own_epoch_rule_holds_back_a_majority_of_an_earlier_epoch():
    # r2 wins epoch 1 with an empty log, then r1 wins epoch 2 and replicates its a@e0 to r3: a
    # majority holds a@e0, but only majority-naive counts it as committed.
    steps = [("BecomeLeader", 0, 0), ("ProducerWrite", 0), ("WinElection", 1, 2, 15), ("WinElection", 0, 2, 15),
             ("FollowerFetch", 2), ("LeaderServeFetch", 0, 2), ("FollowerApplyResponse", 2), ("FollowerFetch", 2),
             ("LeaderServeFetch", 0, 2)]
    assert walk(majority_model("majority-naive", **FIGURE_8), steps)[-1].brokers[0].hw == 1
    assert walk(majority_model("majority", **FIGURE_8), steps)[-1].brokers[0].hw == 0


def test_commitment_needs_a_majority_not_the_whole_replica_set():
    model = majority_model(replicas=3, max_records=1)
    steps = [("BecomeLeader", 0, 0), ("BecomeFollower", 1, 0, 0), ("ProducerWrite", 0), ("FollowerFetch", 1),
             ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1), ("FollowerFetch", 1), ("LeaderServeFetch", 0, 1)]
    last = walk(model, steps)[-1]
    assert last.brokers[0].hw == 1 and last.brokers[2].leo == 0  # r3 never fetched
    assert last.acked == ((0, last.brokers[0].log[0]),)  # acks=all is answered by the majority


@pytest.mark.parametrize("config, message", [
    (dict(variant="hw"), "--quorum majority has its own epoch rules"),
    (dict(unclean_leader_election=True), "--unclean-leader-election does not apply"),
])
def test_settings_that_do_not_apply_to_a_majority_are_refused(config, message):
    variant = config.pop("variant", "kip320")
    with pytest.raises(ModelError, match=message):
        build_model("fetch", variant, quorum="majority", **config)


def test_the_cli_refuses_them_in_one_line():
    result = run_cli("check", "--model", "fetch", "--variant", "kip101", "--quorum", "majority")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "Error: --quorum majority has its own epoch rules (Raft's, with KIP-320's fencing): use --variant kip320, "
        "not kip101"]


SMALL = ("--model", "fetch", "--replicas", "3", "--log-size", "1", "--max-records", "1", "--max-crashes", "0",
         "--max-epoch", "1", "--engine", "local")
ISR_ONLY = ["leader-in-isr", "weak-isr", "strong-isr"]


def test_the_isr_invariants_are_left_out_of_a_majority_check_with_a_notice():
    result = run_cli("check", *SMALL, "--quorum", "majority", "--json")
    checked = list(json.loads(result.stdout)["invariants"])
    assert checked == [p.name for p in select("fetch", []) if p.name not in ISR_ONLY + ["elr-holds-committed"]]
    assert "not checked, since leader-in-isr, weak-isr, strong-isr do not apply here (they read Kafka's ISR, " \
           "which only --quorum isr has)" in result.stderr


def test_naming_an_isr_invariant_under_a_majority_is_a_one_line_error():
    result = run_cli("check", *SMALL, "--quorum", "majority", "--invariant", "weak-isr")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "Error: weak-isr does not apply to these settings: it reads Kafka's ISR, which only --quorum isr has"]


def test_a_sweep_over_both_quorums_skips_what_a_majority_refuses_and_marks_isr_cells_na():
    result = run_cli("sweep", *SMALL, "--quorum", "isr,majority", "--unclean-leader-election", "both",
                     "--invariant", "committed-survives", "--invariant", "weak-isr", "--json")
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)["runs"]
    assert [(r["configuration"]["quorum"], r["configuration"]["unclean_leader_election"]) for r in runs] == [
        ("isr", False), ("isr", True), ("majority", False)]
    assert [list(r["result"]["invariants"]) for r in runs] == [["committed-survives", "weak-isr"]] * 2 + [
        ["committed-survives"]]
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped")]
    assert skipped == ["skipped replicas=3 log-size=1 max-records=1 max-crashes=0 max-epoch=1 quorum=majority "
                       "unclean-leader-election=on: --quorum majority elects by votes: --unclean-leader-election "
                       "does not apply"]
    table = run_cli("sweep", *SMALL, "--quorum", "isr,majority", "--invariant", "weak-isr", "--markdown").stdout
    isr_row, majority_row = table.splitlines()[-2:]
    assert "quorum=isr | holds |" in isr_row and "quorum=majority | n/a |" in majority_row


# ----- what the search finds -------------------------------------------------------------------------------

def test_majority_never_loses_a_committed_record():
    model = majority_model(**FIGURE_8)
    result = explore(model, select("fetch", ["committed-survives", "no-divergence", "single-leader"]),
                     stop_at_first=False, symmetry=True)
    assert result.complete and result.ok
    assert result.distinct_states > 500_000  # the search did reach the stale leaders of Figure 8's shape


def test_majority_naive_overwrites_a_record_a_majority_held():
    model = majority_model("majority-naive", **FIGURE_8)
    result = explore(model, select("fetch", ["committed-survives"]), symmetry=True)
    trace = result.violations["committed-survives"]
    assert len(trace) == 11
    verify_trace(trace, model)
    states = trace.states()
    (offset, record), = states[-1].committed
    # The record was committed from an earlier epoch than its committing leader's...
    commit = next(i for i, s in enumerate(states) if s.committed)
    committer = states[commit].controller.leader
    assert record.epoch < states[commit].brokers[committer].epoch
    # ...and the last step elects a replica whose log holds another record there.
    last = trace.steps[-1].action
    assert last[0] == "WinElection"
    winner = states[-1].brokers[last[1]]
    assert winner.log[offset] != record and winner.log[offset].epoch > record.epoch


# ----- the kernel: bijection and symmetry --------------------------------------------------------------------

SYMMETRY_MODELS = {q: majority_model(q, replicas=3, log_size=2, max_epoch=3, max_crashes=2, flush="async")
                   for q in ("majority", "majority-naive")}
EVERY_INVARIANT = (1 << len(STATE_INVARIANTS)) - 1


@settings(max_examples=60, deadline=None)
@given(quorum=st.sampled_from(sorted(SYMMETRY_MODELS)), choices=st.lists(st.integers(0, 1000), max_size=40))
def test_renaming_commutes_with_every_majority_rule(quorum, choices):
    model = SYMMETRY_MODELS[quorum]
    row = random_walk(model, choices)
    assert np.array_equal(model.kernel.encode(model.kernel.decode(row)), row)  # the readable view is exact here too
    assert_renaming_commutes(model, row, EVERY_INVARIANT)


def test_symmetry_keeps_the_majority_naive_trace_length():
    model = majority_model("majority-naive", **FIGURE_8)
    invariants = select("fetch", ["committed-survives"])
    full = explore(model, invariants)
    assert len(full.violations["committed-survives"]) == 11
    verify_trace(full.violations["committed-survives"], model)


def test_explain_names_the_figure_8_cause(tmp_path):
    from traces.explain import explain

    model = majority_model("majority-naive", **FIGURE_8)
    trace = explore(model, select("fetch", ["committed-survives"]), symmetry=True).violations["committed-survives"]
    lines = explain(trace, model)
    assert lines[1] == "Cause: a majority counted for a record of an earlier epoch (Raft's Figure 8) (earlier-epoch-counted)."
    assert re.search(r"leading epoch 2, counted [ab]@e0 as committed at step \d+ .* a record of epoch 0\.$", lines[3])
    assert "Raft's rule (--quorum majority) removes this" in lines[-1]
