"""Kafka 0.10 to 2.1's ZooKeeper controller (rules bounce=missed and preferred-replica=rebalanced,
the variants hw, kip101 and kip279), step by step against what its code does:

- a bounce it missed changes nothing (`BrokerChange`: the broker is neither new nor dead), and the
  broker is back with no LeaderAndIsr;
- it counts a broker alive until it sees it dead, so what it sends meanwhile reaches the broker's
  next incarnation (`RequestSendThread.doWork` resends until answered), and seeing it dead drops
  the queue (`ControllerChannelManager.removeBroker`);
- its elections take the preferred replica (the first of the assignment) whenever it is a
  candidate, and auto.leader.rebalance.enable moves leadership back to it;
- a new controller sends every broker it counts alive the current LeaderAndIsr
  (`ReplicaStateMachine.startup`).

kip320 (2.2's controller, which fails a bounced broker first) is the contrast where one helps."""

from __future__ import annotations

import pytest

from model.registry import build_model
from traces.replay import walk
from traces.scenario import parse_step

R1, R2, R3 = 0, 1, 2
BOUNDS = dict(replicas=3, log_size=1, max_records=1, max_crashes=2, max_epoch=3, min_insync_replicas=2)
LED = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "BecomeFollower r3 r1 e0"]
"""r1, the preferred replica, leads epoch 0 with ISR {r1, r2, r3}; r2 and r3 follow it."""


def after(variant: str, steps: list[str], **bounds):
    """The model and the state after `steps` (each must be enabled) from the initial state."""
    model = build_model("fetch", variant, ghost=True, **{**BOUNDS, **bounds})
    return model, walk(model, [parse_step(s) for s in steps])[-1]


def kinds(model, state) -> set[str]:
    """The kinds of the steps enabled in `state`."""
    return {label[0] for label, _ in model.successors(state)}


@pytest.mark.parametrize("variant", ["hw", "kip101", "kip279"])
def test_a_bounce_the_controller_missed_changes_nothing(variant):
    model, led = after(variant, LED)
    _, bounced = after(variant, [*LED, "Crash r1", "Restart r1"])
    assert bounced.controller == led.controller
    back = bounced.brokers[R1]
    assert back.alive and back.epoch == -1 and back.leader == -1 and back.inbox == ()
    assert not kinds(model, bounced) & {"ControllerNoticeRestart", "ControllerNoticeFailure"}


def test_from_2_2_a_bounced_broker_is_failed_first():
    model, bounced = after("kip320", [*LED, "Crash r1", "Restart r1"])
    assert "ControllerNoticeFailure" in kinds(model, bounced)


@pytest.mark.parametrize("variant, reaches", [("hw", True), ("kip320", False)])
def test_what_the_controller_sends_a_broker_down_reaches_it_once_back(variant, reaches):
    """r1 crashes unseen; r2's death is noticed and the controller writes epoch 1 (r1 still
    leads, r2 leaves the ISR) to the brokers it counts alive, r1 among them under 0.10 to 2.1."""
    steps = [*LED, "Crash r1", "Crash r2", "ControllerNoticeFailure r2 r1", "Restart r1"]
    if variant == "kip320":  # r1 restarted unseen is a bounce to fail first; r2's death is noticed before
        steps = [*LED, "Crash r1", "Crash r2", "ControllerNoticeFailure r1 r3", "ControllerNoticeFailure r2 r3",
                 "Restart r1"]
    model, back = after(variant, steps)
    assert bool(back.brokers[R1].inbox) == reaches
    if reaches:
        assert back.brokers[R1].inbox[0].epoch == 1 and back.brokers[R1].inbox[0].leader == R1
        assert any(label == ("BecomeLeader", R1, 1) for label, _ in model.successors(back))


def test_seeing_a_broker_dead_drops_what_was_queued_for_it():
    model, down = after("hw", [*LED, "Crash r1", "Crash r2", "ControllerNoticeFailure r2 r1"])
    assert down.brokers[R1].inbox
    seen = {label: state for label, state in model.successors(down) if label[0] == "ControllerNoticeFailure"}
    assert seen and all(state.brokers[R1].inbox == () for label, state in seen.items() if label[1] == R1)


MOVED = [*LED, "Crash r1", "ControllerNoticeFailure r1 r2", "Restart r1", "ControllerNoticeRestart r1 r2",
         "BecomeLeader r2 e1", "BecomeFollower r1 r2 e1", "FollowerFetch r1", "LeaderServeFetch r2 r1"]
"""r1 dies and is seen dead, r2 is elected; r1 comes back, follows r2 and rejoins its ISR (hw)."""


def test_leadership_moves_back_to_the_preferred_replica():
    model, state = after("hw", MOVED)
    assert state.controller.leader == R2 and state.controller.isr == 0b111 and state.controller.preferred == R1
    moves = [(label, s) for label, s in model.successors(state) if label[0] == "PreferredReplicaElection"]
    assert [label for label, _ in moves] == [("PreferredReplicaElection", R1)]
    moved = moves[0][1].controller
    assert (moved.epoch, moved.leader, moved.isr) == (2, R1, 0b111)


def test_an_election_takes_the_preferred_replica_when_it_is_a_candidate():
    """r2 dies with r1 and r3 in the ISR: the first of the assignment, r1, is elected, never r3;
    without a preferred replica either may be."""
    for variant, leaders in (("hw", {R1}), ("hw+preferred-replica=left-out", {R1, R3})):
        model, state = after(variant, [*MOVED, "Crash r2"])
        elected = {label[2] for label, _ in model.successors(state) if label[:2] == ("ControllerNoticeFailure", R2)}
        assert elected == leaders, variant


def test_a_new_controller_sends_a_bounced_leader_the_current_leader_and_isr():
    """The leader r1 bounces unseen; a new controller counts it alive and sends it epoch 0 again,
    which it takes up from its disk (its HW from the checkpoint)."""
    model, bounced = after("hw", [*LED, "Crash r1", "Restart r1"])
    failovers = [s for label, s in model.successors(bounced) if label[0] == "ControllerFailover"]
    assert len(failovers) == 1
    request = failovers[0].brokers[R1].inbox
    assert [(q.epoch, q.leader) for q in request] == [(0, R1)]
    assert failovers[0].controller == bounced.controller
