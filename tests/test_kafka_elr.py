"""Today's Kafka in the `fetch` model: Kafka 3.7's strict min-ISR HW rule (`kafka37`) and
KIP-966's eligible leader replicas (`kip966`), each rule on its own, checked against the KIP's
Last Replica Standing story (scenarios S9a-c) and Kafka's PartitionChangeBuilder behaviour."""

from __future__ import annotations

import pytest

from checker.local import explore
from conftest import run_cli, run_json
from invariants.registry import select
from model.fetch.kinds import NO_LEADER
from model.fetch.layout import CLEAN_STOP, RUNNING, UNCLEAN_STOP
from model.registry import build_model
from traces.replay import walk
from traces.scenario import load_scenario, parse_step

STORY = dict(replicas=3, min_insync_replicas=2, flush="async", log_size=1, max_records=1, max_crashes=1, max_epoch=3)
"""KIP-966's Last Replica Standing bounds, as the issue and docs/compare-variants.md give them."""

R1, R2, R3 = 0, 1, 2
"""Replica ids as the steps name them (r1, r2, r3)."""

LAGGING = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "ProducerWrite r1", "FollowerFetch r2",
           "LeaderServeFetch r1 r2", "FollowerApplyResponse r2", "LeaderShrinkIsr r1 r3", "LeaderShrinkIsr r1 r2"]
"""r1 leads with a written; r2 copies a unseen; r3 then r2 leave the ISR: r1 is alone in it."""


def states(variant: str, steps: list[str], **bounds):
    """The states met along `steps` under `variant` (the story's bounds, changed by `bounds`)."""
    model = build_model("fetch", variant, ghost=True, **{**STORY, **bounds})
    return walk(model, [parse_step(s) for s in steps])


@pytest.mark.parametrize("variant, hw", [("kip320", 1), ("kafka37", 0), ("kip966", 0)])
def test_a_leader_alone_in_a_short_isr_advances_its_hw_only_before_kafka_37(variant, hw):
    last = states(variant, LAGGING)[-1]
    assert last.controller.isr == 1 << R1
    assert last.brokers[R1].hw == hw
    assert bool(last.committed) == (hw == 1)


def test_the_hw_advances_again_once_the_isr_reaches_min_insync():
    caught_up = LAGGING + ["FollowerFetch r2", "LeaderServeFetch r1 r2", "LeaderExpandIsr r1 r2"]
    last = states("kafka37", caught_up)[-1]
    assert last.controller.isr == 1 << R1 | 1 << R2 and last.brokers[R1].hw == 1


def test_a_replica_leaving_an_isr_below_min_insync_joins_the_elr_and_leaves_it_on_rejoining():
    walked = states("kip966", LAGGING + ["FollowerFetch r2", "LeaderServeFetch r1 r2", "LeaderExpandIsr r1 r2"])
    after = {step: state.controller.elr for step, state in zip(["initial"] + LAGGING + ["fetch", "serve", "expand"],
                                                               walked)}
    assert after["LeaderShrinkIsr r1 r3"] == 0  # {r1, r2} still meets min.insync.replicas=2
    assert after["LeaderShrinkIsr r1 r2"] == 1 << R2
    assert after["expand"] == 0  # the ISR is back at min.insync.replicas: the ELR is cleared
    assert all(s.controller.elr == 0 for s in states("kafka37", LAGGING))  # only kip966 keeps one


def test_a_dead_last_isr_member_empties_the_isr_and_the_controller_elects_from_the_elr():
    model = build_model("fetch", "kip966", ghost=True, **STORY)
    crashed = walk(model, [parse_step(s) for s in LAGGING + ["Crash r1"]])[-1]
    outcomes = {label: s for label, s in model.successors(crashed) if label[0] == "ControllerNoticeFailure"}
    assert set(outcomes) == {("ControllerNoticeFailure", R1, R2)}  # r1 is fenced, r3 never joined the ELR
    elected = outcomes["ControllerNoticeFailure", R1, R2].controller
    assert (elected.leader, elected.isr, elected.elr) == (R2, 1 << R2, 1 << R1)
    before = states("kip320", LAGGING + ["Crash r1", "ControllerNoticeFailure r1 none"])[-1].controller
    assert (before.leader, before.isr) == (-1, 1 << R1)  # without the ELR the last member stays, offline


def test_an_unclean_shutdown_leaves_the_elr_at_registration_and_a_clean_one_stays():
    elected = LAGGING + ["Crash r1", "ControllerNoticeFailure r1 r2", "BecomeLeader r2 e1", "Restart r1"]
    walked = states("kip966", elected + ["ControllerNoticeRestart r1 r2"])
    assert walked[-2].brokers[R1].last_stop == UNCLEAN_STOP and walked[-2].controller.elr == 1 << R1
    assert walked[-1].brokers[R1].last_stop == RUNNING and walked[-1].controller.elr == 0
    stopped = LAGGING + ["CleanShutdown r1", "ControllerNoticeFailure r1 r2", "BecomeLeader r2 e1", "Restart r1"]
    walked = states("kip966", stopped + ["ControllerNoticeRestart r1 r2"])
    assert walked[len(LAGGING) + 1].brokers[R1].last_stop == CLEAN_STOP
    assert walked[len(LAGGING) + 1].brokers[R1].log  # flushed on the way down: a survives
    assert walked[-1].controller.elr == 1 << R1


def _registrations(steps: list[str]) -> dict:
    """The controller's record after each ControllerNoticeRestart enabled once `steps` are taken
    (kip966 at the story's bounds with two crashes), by action."""
    model = build_model("fetch", "kip966", ghost=True, **{**STORY, "max_crashes": 2})
    back = walk(model, [parse_step(s) for s in steps])[-1]
    return {label: s.controller for label, s in model.successors(back) if label[0] == "ControllerNoticeRestart"}


EMPTIED = LAGGING + ["Crash r2", "ControllerNoticeFailure r2 r1", "Crash r1", "ControllerNoticeFailure r1 none"]
"""Both replicas crash: the ISR empties, both are in the ELR, and r1, the leader then, is the last known leader."""


def test_the_last_known_leader_waits_while_the_elr_holds_a_fenced_member():
    offline = states("kip966", EMPTIED, max_crashes=2)[-1].controller
    assert (offline.leader, offline.isr, offline.elr, offline.last_leader) == (-1, 0, 1 << R1 | 1 << R2, R1)
    # r1 registers uncleanly and leaves the ELR; r2 is still in it, fenced: trunk's
    # PartitionChangeBuilder.canElectLastKnownLeader needs the ELR empty, so nobody is elected
    outcomes = _registrations(EMPTIED + ["Restart r1"])
    assert set(outcomes) == {("ControllerNoticeRestart", R1, NO_LEADER)}
    assert (outcomes["ControllerNoticeRestart", R1, NO_LEADER].elr) == 1 << R2


def test_the_last_known_leader_is_elected_once_every_elr_member_registered_uncleanly():
    steps = EMPTIED + ["Restart r2", "ControllerNoticeRestart r2 none", "Restart r1"]
    outcomes = _registrations(steps)
    assert set(outcomes) == {("ControllerNoticeRestart", R1, R1)}
    assert (outcomes["ControllerNoticeRestart", R1, R1].isr, outcomes["ControllerNoticeRestart", R1, R1].elr) == (
        1 << R1, 0)


def test_no_leader_is_elected_from_an_empty_isr_outside_kip966():
    model = build_model("fetch", "kafka37", ghost=True, **STORY)
    crashed = walk(model, [parse_step(s) for s in LAGGING + ["Crash r1"]])[-1]
    assert {label for label, _ in model.successors(crashed) if label[0] == "ControllerNoticeFailure"} == {
        ("ControllerNoticeFailure", R1, NO_LEADER)}


@pytest.mark.parametrize("name, violated", [("S9a-kip320-last-replica-standing", "committed-survives"),
                                            ("S9b-kip966-elr-keeps-committed", None),
                                            ("S9c-kafka37-last-replica-standing-after-isr-shrink",
                                             "committed-survives")])
def test_last_replica_standing_replays(name, violated):
    from pathlib import Path
    scenario = load_scenario(Path(__file__).resolve().parents[1] / "scenarios" / f"{name}.json")
    assert scenario.expect_violation == violated
    result = run_cli("replay", str(Path(__file__).resolve().parents[1] / "scenarios" / f"{name}.json"))
    assert result.exit_code == 0, result.output[-2000:]
    walked = walk(scenario.model, [action for action, _ in scenario.steps])
    assert any(state.committed for state in walked)  # each telling commits a record before the ISR shrinks


@pytest.mark.parametrize("variant, holds", [("kip320", False), ("kafka37", True), ("kip966", True)])
def test_committed_survives_at_the_story_bounds_with_and_without_symmetry(variant, holds):
    """With one record, Kafka 3.7's rule is enough: a record is committed only on two replicas,
    and a follower holding every record never lags, so the ISR cannot shrink to a leader that
    then loses it (kafka37 needs a second record for that: S9c)."""
    invariants = select("fetch", ["committed-survives"])
    model = build_model("fetch", variant, ghost=True, **STORY)
    full, reduced = explore(model, invariants), explore(model, invariants, symmetry=True)
    assert (full.complete and reduced.complete) == holds  # a violation stops the search at its level
    assert (full.verdict("committed-survives") == "holds") == holds
    assert full.verdict("committed-survives") == reduced.verdict("committed-survives")
    if not holds:
        assert len(full.violations["committed-survives"]) == len(reduced.violations["committed-survives"])


def test_both_engines_agree_on_kip966_at_the_story_bounds():
    args = ["check", "--model", "fetch", "--variant", "kip966", "--replicas", "3", "--min-insync-replicas", "2",
            "--flush", "async", "--log-size", "1", "--max-records", "1", "--max-crashes", "1", "--max-epoch", "3",
            "--invariant", "committed-survives"]
    local = run_json(*args, "--engine", "local")
    spark = run_json(*args, "--engine", "spark", "--master", "local[2]", "--partitions", "3")
    assert local["invariants"] == spark["invariants"]
    assert (local["distinct_states"], local["depth"]) == (spark["distinct_states"], spark["depth"])


@pytest.mark.parametrize("variant", ["kafka37", "kip966"])
@pytest.mark.parametrize("quorum", ["majority", "majority-naive"])
def test_isr_rules_under_a_majority_quorum_are_refused_in_one_line(variant, quorum):
    result = run_cli("check", "--model", "fetch", "--variant", variant, "--quorum", quorum)
    assert result.exit_code == 2
    error = result.stderr.strip()
    assert len(error.splitlines()) == 1 and variant in error and quorum in error and "ISR" in error


@pytest.mark.parametrize("variant, story", [("kip320", "below min.insync.replicas=2, and still advanced its HW"),
                                            ("kafka37", "at min.insync.replicas=2, so r2 held it too; then the ISR "
                                                        "shrank to r1 alone")])
def test_the_shortest_loss_is_last_replica_standing_in_kafkas_words(variant, story, tmp_path):
    """At the issue's bounds (two records) both releases before KIP-966 lose a committed record
    to Last Replica Standing: kip320 commits it alone, kafka37 commits it on two replicas and
    the ISR then shrinks to the leader."""
    args = ["check", "--model", "fetch", "--variant", variant, "--replicas", "3", "--min-insync-replicas", "2",
            "--flush", "async", "--log-size", "2", "--max-records", "2", "--max-crashes", "1", "--max-epoch", "3",
            "--invariant", "committed-survives", "--engine", "local", "--trace-dir", str(tmp_path)]
    assert run_cli(*args).exit_code == 1
    shown = run_cli("trace", "show", str(tmp_path / f"fetch-{variant}-committed-survives.json"), "--explain")
    assert shown.exit_code == 0
    text = " ".join(shown.stdout.split())
    assert "(last-replica-standing)" in text and story in text
    assert "the last ISR member lost committed records in an unclean shutdown and was re-elected" in text


def test_compare_checks_the_elr_invariant_where_it_applies_and_says_n_a_elsewhere():
    data = run_json("compare", "--model", "fetch", "--variants", "kip320,kip966", "--replicas", "3",
                    "--min-insync-replicas", "2", "--flush", "async", "--log-size", "1", "--max-records", "1",
                    "--max-crashes", "1", "--max-epoch", "3", "--engine", "local", "--invariant", "committed-survives",
                    "--invariant", "elr-holds-committed")
    assert data["invariants"] == ["committed-survives", "elr-holds-committed"]
    assert "elr-holds-committed" not in data["variants"]["kip320"]["invariants"]
    assert data["variants"]["kip966"]["invariants"]["elr-holds-committed"]["status"] == "holds"
    assert data["variants"]["kip966"]["invariants"]["committed-survives"]["status"] == "holds"
    refused = run_cli("compare", "--model", "fetch", "--variants", "kip320,kafka37", "--invariant",
                      "elr-holds-committed", "--engine", "local")
    assert refused.exit_code == 2 and "elr-holds-committed" in refused.stderr


# ----- a bounced broker is failed first (KafkaController.processBrokerChange; KRaft registerBroker) -----

BOUNCE_BOUNDS = dict(replicas=3, log_size=1, max_records=1, max_crashes=1, max_epoch=3, min_insync_replicas=2,
                     flush="async")


@pytest.mark.parametrize("variant", ["kip320", "kip903", "kafka37", "kip966"])
def test_a_leader_that_restarts_unseen_is_failed_first_and_another_isr_member_elected(variant):
    """r1 leads {r1, r2, r3}, crashes and restarts before the controller saw it die: the
    controller cannot take it back (no ControllerNoticeRestart); it fails it first, electing r2
    or r3, never r1."""
    model = build_model("fetch", variant, ghost=True, **BOUNCE_BOUNDS)
    bounced = walk(model, [parse_step(s) for s in ["BecomeLeader r1 e0", "Crash r1", "Restart r1"]])[-1]
    labels = {label for label, _ in model.successors(bounced)}
    assert not any(label[0] == "ControllerNoticeRestart" for label in labels)
    failed = {label: after for label, after in model.successors(bounced) if label[0] == "ControllerNoticeFailure"}
    assert set(failed) == {("ControllerNoticeFailure", R1, R2), ("ControllerNoticeFailure", R1, R3)}
    for after in failed.values():
        assert after.controller.leader != R1 and not after.controller.isr >> R1 & 1
        assert after.controller.offline >> R1 & 1


@pytest.mark.parametrize("variant", ["kip320", "kip903", "kafka37", "kip966"])
def test_no_reachable_step_takes_back_a_broker_the_controller_has_not_failed(variant):
    """Over every state reachable at small bounds, through the readable model: each
    ControllerNoticeRestart of broker r leaves a state in which the controller had r among
    the dead; and every election of a restarted broker makes it the ISR's only member."""
    model = build_model("fetch", variant, ghost=True, replicas=2, log_size=1, max_records=1, max_crashes=1,
                        max_epoch=2, min_insync_replicas=1, flush="async")
    seen, frontier, restarts = set(model.initial_states()), list(model.initial_states()), 0
    while frontier:
        nxt = []
        for state in frontier:
            for label, after in model.successors(state):
                if label[0] == "ControllerNoticeRestart":
                    restarts += 1
                    r = label[1]
                    assert state.controller.offline >> r & 1, (label, state.controller)
                    if after.controller.leader == r and state.controller.leader != r:
                        assert after.controller.isr == 1 << r
                if after not in seen:
                    seen.add(after)
                    nxt.append(after)
        frontier = nxt
    assert restarts > 0


# ----- KIP-903: the ISR grows only on a FETCH of the follower's current registration -----

def stale_expansions(variant: str) -> tuple[int, int]:
    """(ISR expansions on a LEO reported before the follower's latest registration, all
    expansions) over every state reachable at small bounds, walked through the readable model
    with a ghost per (leader, follower): set when the controller registers the follower again
    (`ClusterControlManager.registerBroker` gives it a new broker epoch), cleared when that leader
    records a FETCH of it or takes leadership (which forgets every remote LEO)."""
    model = build_model("fetch", variant, ghost=True, replicas=2, log_size=1, max_records=1, max_crashes=1,
                        max_epoch=2, min_insync_replicas=1, flush="async")
    start = [(state, frozenset()) for state in model.initial_states()]
    seen, frontier, stale, expansions = set(start), start, 0, 0
    while frontier:
        nxt = []
        for state, ghost in frontier:
            for label, after in model.successors(state):
                kind, args = label[0], label[1:]
                marks = ghost
                if kind == "ControllerNoticeRestart":
                    marks = marks | {(ldr, args[0]) for ldr in range(2) if ldr != args[0]}
                elif kind == "LeaderServeFetch" and not after.brokers[args[1]].fetch.fenced:
                    marks = marks - {(args[0], args[1])}
                elif kind == "BecomeLeader":
                    marks = frozenset(m for m in marks if m[0] != args[0])
                elif kind == "LeaderExpandIsr":
                    expansions += 1
                    stale += (args[0], args[1]) in ghost
                if (after, marks) not in seen:
                    seen.add((after, marks))
                    nxt.append((after, marks))
        frontier = nxt
    return stale, expansions


@pytest.mark.parametrize("variant, allowed", [("kip320", True), ("kip903", False), ("kafka37", False),
                                              ("kip966", False)])
def test_no_isr_expansion_on_a_leo_from_before_the_followers_registration_from_kip903_on(variant, allowed):
    stale, expansions = stale_expansions(variant)
    assert expansions > 0
    assert (stale > 0) == allowed


def test_a_restarted_follower_is_refused_the_isr_once_it_registered_until_it_fetches_again():
    """r2 reported LEO 1 and was out of the ISR; it crashes (its unflushed a is lost) and
    restarts. Until the controller has failed it, its old registration is valid, and every
    variant lets r1 add it on the old report (KAFKA-14139's window, which KIP-903 leaves open).
    Once it registered again, kip320 still does; from kip903 on only a new FETCH does."""
    shrunk = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "ProducerWrite r1", "LeaderShrinkIsr r1 r2"]
    bumped = ["BecomeLeader r1 e1", "BecomeFollower r2 r1 e1"]  # kip903's shrink starts a leader epoch
    fetched = ["FollowerFetch r2", "LeaderServeFetch r1 r2", "FollowerApplyResponse r2", "FollowerFetch r2",
               "LeaderServeFetch r1 r2", "Crash r2", "Restart r2"]
    bounds = dict(replicas=2, min_insync_replicas=1, max_epoch=2)
    for variant, allowed in [("kip320", True), ("kip903", False), ("kafka37", False)]:
        caught_up = shrunk + (bumped if variant == "kip903" else []) + fetched
        registered = caught_up + ["ControllerNoticeFailure r2 r1", "ControllerNoticeRestart r2 r1"]
        model = build_model("fetch", variant, ghost=True, **{**STORY, **bounds})
        walked = walk(model, [parse_step(s) for s in registered])
        restarted, back = walked[len(caught_up)], walked[-1]
        assert restarted.brokers[R2].leo == 0  # a was never flushed
        assert ("LeaderExpandIsr", R1, R2) in {label for label, _ in model.successors(restarted)}, variant
        assert (("LeaderExpandIsr", R1, R2) in {label for label, _ in model.successors(back)}) == allowed, variant


@pytest.mark.parametrize("variant, bumped", [("kip320", False), ("kip903", True), ("kafka37", False)])
def test_kraft_before_metadata_version_3_6_starts_a_leader_epoch_at_every_isr_shrink(variant, bumped):
    """PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded @ 3.5.0: the leader's own shrink is
    committed in a new leader epoch with the same leader; the leader keeps its old epoch and ISR
    until it handles that LeaderAndIsr, then leads the new epoch with the smaller ISR."""
    steps = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "BecomeFollower r3 r1 e0", "ProducerWrite r1",
             "LeaderShrinkIsr r1 r3"]
    walked = states(variant, steps)
    before, after = walked[-2], walked[-1]
    assert after.controller.isr == 1 << R1 | 1 << R2 and after.controller.leader == R1
    assert after.controller.epoch == before.controller.epoch + bumped
    if bumped:
        assert (after.brokers[R1].epoch, after.brokers[R1].isr) == (0, 0b111)
        taken = states(variant, steps + ["BecomeLeader r1 e1"])[-1].brokers[R1]
        assert (taken.epoch, taken.isr) == (1, 1 << R1 | 1 << R2)
    else:
        assert after.brokers[R1].isr == 1 << R1 | 1 << R2


@pytest.mark.parametrize("variant, same_epoch", [("kip320", False), ("kip903", False), ("kafka37", True),
                                                 ("kip966", True)])
def test_from_metadata_version_3_6_a_dead_follower_leaves_the_isr_in_the_same_leader_epoch(variant, same_epoch):
    """KAFKA-15021: KRaft at metadata version 3.6 writes an ISR change that keeps the leader as a
    new partition epoch only; the leader applies it in its epoch. ZooKeeper and KRaft before 3.6
    start a new leader epoch, which the leader takes up when it handles the LeaderAndIsr."""
    steps = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "BecomeFollower r3 r1 e0", "Crash r3",
             "ControllerNoticeFailure r3 r1"]
    after = states(variant, steps)[-1]
    assert after.controller.isr == 1 << R1 | 1 << R2 and after.controller.leader == R1
    assert after.controller.epoch == (0 if same_epoch else 1)
    assert after.brokers[R1].epoch == 0
    assert after.brokers[R1].isr == (1 << R1 | 1 << R2 if same_epoch else 0b111)
    assert bool(after.brokers[R2].inbox) != same_epoch  # nothing new for the follower to handle


@pytest.mark.parametrize("variant", ["kip320", "kip903", "kafka37", "kip966"])
@pytest.mark.parametrize("last_member", [True, False])
def test_a_bounced_broker_failed_first_is_sent_nothing_until_it_is_taken_back(variant, last_member):
    """processBrokerChange removes the bounced broker from the live brokers before it fails it, so
    the failure's LeaderAndIsr is not sent to it; then its startup is handled: the controller
    takes it back (and, as the ISR's last member, may elect it)."""
    first = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "BecomeFollower r3 r1 e0"]
    shrink = ["LeaderShrinkIsr r1 r2", "LeaderShrinkIsr r1 r3"] if last_member else []
    if variant == "kip903" and last_member:  # each shrink is a new leader epoch, which r1 takes up
        shrink = ["LeaderShrinkIsr r1 r2", "BecomeLeader r1 e1", "LeaderShrinkIsr r1 r3", "BecomeLeader r1 e2"]
    model = build_model("fetch", variant, ghost=True, **{**BOUNCE_BOUNDS, "max_epoch": 4})
    steps = first + shrink + ["Crash r1", "Restart r1"]
    bounced = walk(model, [parse_step(s) for s in steps])[-1]
    failed = [after for label, after in model.successors(bounced) if label[0] == "ControllerNoticeFailure"
              and label[1] == R1]
    assert failed
    for after in failed:
        assert not after.brokers[R1].inbox and after.controller.offline >> R1 & 1
        back = {label for label, _ in model.successors(after) if label[0] == "ControllerNoticeRestart"}
        assert back and all(label[1] == R1 for label in back)
        if last_member and variant != "kip966":
            assert ("ControllerNoticeRestart", R1, R1) in back


@pytest.mark.parametrize("variant", ["kip320", "kip903", "kafka37", "kip966"])
def test_a_bounced_broker_is_failed_before_the_controller_handles_any_other_broker(variant):
    """processBrokerChange fails the bounced brokers before it handles the dead and the new
    ones: with r1 bounced and r2 dead, the only controller step fails r1, so r1 is never elected
    by r2's failure while its bounce is pending."""
    model = build_model("fetch", variant, ghost=True, **BOUNCE_BOUNDS | {"max_crashes": 2})
    steps = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "BecomeFollower r3 r1 e0", "Crash r1", "Restart r1",
             "Crash r2"]
    state = walk(model, [parse_step(s) for s in steps])[-1]
    controller = {label for label, _ in model.successors(state) if label[0].startswith("Controller")}
    assert controller and all(label[:2] == ("ControllerNoticeFailure", R1) for label in controller)


@pytest.mark.parametrize("variant", ["kip320", "kip903", "kafka37", "kip966"])
def test_two_bounced_brokers_are_failed_together_so_neither_is_elected_or_sent_anything(variant):
    """processBrokerChange fails every bounced broker at once, so while r2's bounce is pending,
    failing r1 elects r3 (or nobody), never r2, and sends r2 nothing."""
    model = build_model("fetch", variant, ghost=True, **BOUNCE_BOUNDS | {"max_crashes": 2})
    steps = ["BecomeLeader r1 e0", "BecomeFollower r2 r1 e0", "BecomeFollower r3 r1 e0", "Crash r1", "Restart r1",
             "Crash r2", "Restart r2"]
    state = walk(model, [parse_step(s) for s in steps])[-1]
    failed = [(label, after) for label, after in model.successors(state)
              if label[:2] == ("ControllerNoticeFailure", R1)]
    assert {label[2] for label, _ in failed} == {R3}
    assert all(not after.brokers[R2].inbox for _, after in failed)
