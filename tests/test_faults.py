"""The faults the newest KIPs were written for, each off by default: a broker back on an empty
disk (`--max-disk-losses`, KIP-903's story) and a controlled shutdown (`--controlled-shutdown`),
driven through the readable model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.local import explore
from conftest import run_cli, run_json
from invariants.registry import select
from model.fetch.json_state import state_from_json, state_to_json
from model.fetch.layout import CLEAN_STOP, UNCLEAN_STOP
from model.registry import build_model
from traces.replay import walk
from traces.scenario import parse_step

R1, R2, R3 = 0, 1, 2
"""Replica ids as the steps name them (r1, r2, r3)."""

COPIED = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "ProducerWrite r1", "FollowerFetch r2",
          "LeaderServeFetch r1 r2", "FollowerApplyResponse r2", "FollowerFetch r2", "LeaderServeFetch r1 r2"]
"""r1 leads, writes a, and r2 copies it; r1's HW is 1: a is committed on both."""


def reachable(model):
    """Every (state, label, next state) reachable from the model's initial states."""
    seen, frontier = set(model.initial_states()), list(model.initial_states())
    while frontier:
        nxt = []
        for state in frontier:
            for label, after in model.successors(state):
                yield state, label, after
                if after not in seen:
                    seen.add(after)
                    nxt.append(after)
        frontier = nxt


# ----- a broker back on an empty disk ---------------------------------------------------------------

@pytest.mark.parametrize("variant", ["hw", "kip320", "kip966"])
def test_a_broker_back_on_an_empty_disk_has_no_log_no_cache_and_hw_0(variant):
    model = build_model("fetch", variant, ghost=True, max_disk_losses=1)
    crashed = walk(model, [parse_step(s) for s in COPIED + ["Crash r2"]])[-1]
    assert crashed.brokers[R2].log  # flushed (flush=sync): a plain restart would keep it
    outcomes = {label: after for label, after in model.successors(crashed) if label[0].startswith("Restart")}
    assert set(outcomes) == {("Restart", R2), ("RestartEmpty", R2)}
    empty = outcomes["RestartEmpty", R2].brokers[R2]
    assert (empty.alive, empty.log, empty.cache, empty.hw, empty.checkpoint, empty.flushed) == (True, (), (), 0, 0, 0)
    assert outcomes["RestartEmpty", R2].disk_losses == 1 and outcomes["Restart", R2].brokers[R2].log
    if variant == "kip966":  # a new disk holds no clean-shutdown marker
        assert empty.last_stop == UNCLEAN_STOP


def test_disk_losses_are_bounded_and_off_by_default():
    model = build_model("fetch", "kip320", ghost=True, max_crashes=2, max_disk_losses=1)
    steps = COPIED + ["Crash r2", "RestartEmpty r2", "Crash r2"]
    twice = walk(model, [parse_step(s) for s in steps])[-1]
    assert not any(label[0] == "RestartEmpty" for label, _ in model.successors(twice))
    default = build_model("fetch", "kip320", ghost=True)
    crashed = walk(default, [parse_step(s) for s in COPIED + ["Crash r2"]])[-1]
    assert not any(label[0] == "RestartEmpty" for label, _ in default.successors(crashed))


def test_a_disk_loss_state_survives_json_and_the_packed_row():
    model = build_model("fetch", "kip966", ghost=True, max_disk_losses=1)
    state = walk(model, [parse_step(s) for s in COPIED + ["Crash r2", "RestartEmpty r2"]])[-1]
    assert state_from_json(state_to_json(state), model.config.replicas) == state
    assert model.decode(model.encode(state)) == state


@pytest.mark.parametrize("given, says", [(["--max-disk-losses", "2", "--max-crashes", "1"], "cannot exceed --max-crashes"),
                                         (["--max-disk-losses", "4"], "between 0 and 3")])
def test_impossible_disk_loss_bounds_are_one_line(given, says):
    result = run_cli("check", "--model", "fetch", "--engine", "local", *given)
    assert result.exit_code == 2 and says in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_replaced_disk_joins_the_isr_on_its_old_position_from_kip903_only_before_it_registers(tmp_path):
    """KAFKA-14139 at the default bounds with one disk loss: kip320 admits the empty broker on the
    LEO its previous incarnation fetched; from kip903 on broker epochs refuse it once it registered
    again, so its shortest join comes before the controller noticed the crash (its old
    registration still valid: `ClusterControlManager.registerBroker` @ 3.5.0 refuses the new one
    until the old session expires); both engines agree."""
    args = ["check", "--model", "fetch", "--max-disk-losses", "1", "--invariant", "isr-join-caught-up"]
    before = run_json(*args, "--variant", "kip320", "--engine", "local")
    assert before["invariants"]["isr-join-caught-up"]["status"] == "violated"
    local = run_json(*args, "--variant", "kip903", "--engine", "local", "--trace-dir", str(tmp_path))
    spark = run_json(*args, "--variant", "kip903", "--engine", "spark", "--master", "local[2]", "--partitions", "3")
    assert local["invariants"]["isr-join-caught-up"]["status"] == "violated"
    assert (local["distinct_states"], local["depth"]) == (spark["distinct_states"], spark["depth"])
    trace = json.loads(Path(local["invariants"]["isr-join-caught-up"]["trace_file"]).read_text())
    steps = [step["action"] for step in trace["steps"]]
    joined = steps[-1][2]
    back = steps.index(["RestartEmpty", joined])
    assert not any(action[:2] in (["ControllerNoticeFailure", joined], ["ControllerNoticeRestart", joined])
                   for action in steps[back:])


# ----- a controlled shutdown ------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["kip320", "kafka37", "kip966"])
def test_a_controlled_shutdown_moves_leadership_first_then_stops_cleanly(variant):
    model = build_model("fetch", variant, ghost=True, replicas=3, controlled_shutdown=True)
    state = walk(model, [parse_step(s) for s in COPIED + ["BecomeFollower r3 r1 e0"]])[-1]
    outcomes = {label: after for label, after in model.successors(state) if label[:2] == ("ControlledShutdown", R1)}
    assert set(outcomes) == {("ControlledShutdown", R1, R2), ("ControlledShutdown", R1, R3)}
    after = outcomes["ControlledShutdown", R1, R2]
    stopped = after.brokers[R1]
    assert not stopped.alive and stopped.flushed == len(stopped.log) == 1
    assert stopped.checkpoint == state.brokers[R1].hw  # its HW at the time, checkpointed
    assert (after.controller.leader, after.controller.isr) == (R2, 1 << R2 | 1 << R3)
    assert after.controller.offline >> R1 & 1 and after.crashes == 1
    assert after.committed == state.committed  # nothing committed is lost on the way
    if variant == "kip966":
        assert stopped.last_stop == CLEAN_STOP


def test_controlled_shutdowns_are_off_by_default_and_refused_under_a_majority_quorum():
    default = build_model("fetch", "kip320", ghost=True)
    state = walk(default, [parse_step(s) for s in COPIED])[-1]
    assert not any(label[0] == "ControlledShutdown" for label, _ in default.successors(state))
    result = run_cli("check", "--model", "fetch", "--quorum", "majority", "--controlled-shutdown")
    assert result.exit_code == 2 and "--controlled-shutdown" in result.stderr


def test_every_controlled_shutdown_leaves_the_whole_log_on_disk_and_the_broker_out_of_leadership():
    """Over every reachable step at small bounds (flush=async, so a crash would lose records)."""
    model = build_model("fetch", "kafka37", ghost=True, replicas=2, max_records=1, log_size=1, max_crashes=1,
                        flush="async", controlled_shutdown=True)
    shutdowns = 0
    for before, label, after in reachable(model):
        if label[0] != "ControlledShutdown":
            continue
        shutdowns += 1
        r = label[1]
        assert after.brokers[r].flushed == len(before.brokers[r].log)
        assert after.controller.leader != r and after.controller.offline >> r & 1
    assert shutdowns > 0


def test_no_controlled_shutdown_loses_a_committed_record_though_a_crash_does():
    """Over every reachable step at small bounds with flush=async under kafka37: a Crash can drop
    a committed record (Last Replica Standing follows), a ControlledShutdown never does."""
    (committed,) = select("fetch", ["committed-survives"])
    model = build_model("fetch", "kafka37", ghost=True, replicas=2, flush="async", max_crashes=1,
                        controlled_shutdown=True)
    broke = {"Crash": 0, "ControlledShutdown": 0}
    for before, label, after in reachable(model):
        if label[0] in broke and committed.holds(before) and not committed.holds(after):
            broke[label[0]] += 1
    assert broke["ControlledShutdown"] == 0
    assert explore(model, [committed]).verdict("committed-survives") == "violated"


# ----- the fencing of a live broker -----------------------------------------------------------------

@pytest.mark.parametrize("variant", ["kip279", "kip320", "kafka37", "kip966"])
def test_a_fenced_broker_runs_on_as_a_zombie_until_it_registers_again(variant):
    """The controller fails r1 while it runs: r2 is elected, r1 keeps its log and still believes
    it leads epoch 0; when it registers again it is sent the current LeaderAndIsr."""
    model = build_model("fetch", variant, ghost=True, max_fencings=1)
    state = walk(model, [parse_step(s) for s in COPIED])[-1]
    fenced = {label: after for label, after in model.successors(state) if label[0] == "FenceLiveBroker"}
    assert ("FenceLiveBroker", R1, R2) in fenced
    zombie = fenced["FenceLiveBroker", R1, R2]
    assert zombie.brokers[R1].alive and zombie.brokers[R1].leader == R1 and zombie.brokers[R1].epoch == 0
    assert zombie.brokers[R1].log == state.brokers[R1].log and zombie.fencings == 1
    assert (zombie.controller.leader, zombie.controller.offline) == (R2, 1 << R1)
    assert not zombie.brokers[R1].inbox  # nothing is sent to a broker the controller counts gone
    back = {label: after for label, after in model.successors(zombie) if label[0] == "ControllerNoticeRestart"}
    assert set(back) == {("ControllerNoticeRestart", R1, R2)}
    registered = back["ControllerNoticeRestart", R1, R2]
    assert not registered.controller.offline and registered.brokers[R1].inbox
    assert not any(label[0] == "FenceLiveBroker" for label, _ in model.successors(registered))  # bounded


@pytest.mark.parametrize("variant, isr_grows", [("kip320", True), ("kip903", False), ("kafka37", False)])
def test_a_fenced_follower_joins_the_isr_only_before_kraft_refused_fenced_brokers(variant, isr_grows):
    """KIP-841 (KRaft): the controller refuses an ISR expansion naming a fenced broker; ZooKeeper's
    leader writes it (kip320)."""
    model = build_model("fetch", variant, ghost=True, max_fencings=1)
    steps = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "LeaderShrinkIsr r1 r2", "FenceLiveBroker r2 r1",
             "FollowerFetch r2", "LeaderServeFetch r1 r2"]
    if variant == "kip903":  # the shrink is a new leader epoch, which r1 and r2 take up first
        steps = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "LeaderShrinkIsr r1 r2", "BecomeLeader r1 e1",
                 "BecomeFollower r2 r1 e1", "FenceLiveBroker r2 r1", "FollowerFetch r2", "LeaderServeFetch r1 r2"]
    state = walk(model, [parse_step(s) for s in steps])[-1]
    assert state.controller.offline == 1 << R2
    assert (("LeaderExpandIsr", R1, R2) in {label for label, _ in model.successors(state)}) == isr_grows


def test_a_zombie_follower_breaks_the_isr_without_kip320_fencing_and_not_with_it():
    """KAFKA-6880 (KIP-320): with one fencing, kip279 lets a fenced broker act on a stale request
    and fetch across epochs until an ISR member lacks a committed record; kip320 holds."""
    args = ["check", "--model", "fetch", "--engine", "local", "--max-fencings", "1", "--invariant", "strong-isr"]
    assert run_json(*args, "--variant", "kip279")["invariants"]["strong-isr"]["status"] == "violated"
    assert run_json(*args, "--variant", "kip320")["invariants"]["strong-isr"]["status"] == "holds"


def test_fencings_are_refused_under_a_majority_quorum_in_one_line():
    result = run_cli("check", "--model", "fetch", "--quorum", "majority", "--max-fencings", "1")
    assert result.exit_code == 2 and "--max-fencings" in result.stderr and len(result.stderr.strip().splitlines()) == 1
