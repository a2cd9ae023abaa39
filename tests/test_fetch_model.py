"""The `fetch` model against the known outcomes in docs/models/fetch.md ("Known outcomes") and
the published stories listed there (S0-S6). Each outcome checks the verdict and the length of
the shortest counterexample, and prints the trace when it fails."""

from __future__ import annotations

import pytest
from rich.console import Console

from checker.local import explore
from invariants.registry import select
from model.registry import build_model
from traces.replay import verify_trace, walk
from traces.store import load_trace, save_trace
from traces.table import trace_table

ALL = ("hw", "kip101", "kip279", "kip320", "kip903")
BOUNCE_MISSED = ("hw", "kip101", "kip279")
"""The variants whose controller may miss a bounce (Kafka 0.10 to 2.1, KAFKA-1120): a leader
back from a crash it did not see is sent the current LeaderAndIsr by a new controller and leads
the same epoch again, from its disk; from kip320 on it is failed first (KAFKA-7235), so a
restarted leader loses leadership to another live ISR member."""
KAFKA_2334 = {"replicas": 3, "max_crashes": 1}
"""Three replicas: the smallest ISR in which a new leader can have another member whose LEO it
does not know yet (at 2 replicas, from kip320 on, every elected leader's ISR is itself)."""

# (invariant, configuration, variant) -> shortest trace length, or None for "holds".
KNOWN = [
    # KIP-101 scenario 1: a follower restarts, truncates to its lagging HW, the leader dies. Under
    # 0.10's controller the follower stays in the ISR through a bounce it missed, and a new
    # controller sends it the current LeaderAndIsr, on which it truncates.
    ("committed-survives", {}, "hw", 15),
    *[("committed-survives", {}, v, None) for v in ALL[1:]],
    # KIP-101 scenario 2 (flush=async): logs diverge below both HWs under hw.
    ("no-divergence", {"flush": "async"}, "hw", 14),
    # Up to 2.0 a follower whose FETCH is past the leader's LEO keeps its longer log: in the model
    # (test_a_divergence_through_a_fetch_past_the_leaders_leo_rests_on_that_deviation), not in
    # Kafka, which answers OFFSET_OUT_OF_RANGE. KIP-279's own story needs a third record
    # (examples/kafka-jira.toml).
    ("no-divergence", {"flush": "async"}, "kip101", 14),
    ("no-divergence", {"flush": "async"}, "kip279", 14),
    *[("no-divergence", {"flush": "async"}, v, None) for v in ALL[3:]],
    # KAFKA-2334: the HW consumers see goes backwards on failover, in every variant. At the
    # defaults (2 replicas) it takes a controller that misses r1's bounce: r1 commits a, crashes and
    # restarts with HW 0 from its checkpoint, and a new controller sends it the current LeaderAndIsr,
    # so it leads epoch 0 again with HW 0 (12 steps). From kip320 on r1 is failed first, r2 is
    # elected with ISR {r2} and its HW jumps to its LEO: hw-monotonic holds at 2 replicas...
    *[("hw-monotonic", {}, v, 12 if v in BOUNCE_MISSED else None) for v in ALL],
    # ...and fails at 3 with one crash: r1 leads {r1, r2, r3}, commits a, crashes; r2 is elected
    # with ISR {r2, r3} and does not know r3's LEO yet (17 steps; 13 where the bounce is missed and
    # a new controller has r1 lead epoch 0 again from HW 0).
    *[("hw-monotonic", KAFKA_2334, v, 13 if v in BOUNCE_MISSED else 17) for v in ALL],
    # ...while a leader never lowers its own HW as long as it stays leader (a step property).
    *[("leader-hw-monotonic", {}, v, None) for v in ALL],
    # Configuration losses: acks=1 and unclean election lose data in every variant (kip903 in 7
    # steps: r1's shrink to {r1} is committed in a new leader epoch, which r1 has to take up
    # before its HW may pass a).
    *[("acked-survives", {"acks": "1"}, v, 5) for v in ALL],
    *[("committed-survives", {"unclean_leader_election": True}, v, 7 if v == "kip903" else 6) for v in ALL],
    # Every replica can crash with async flush: the acks=all promise is "in memory", not "on disk".
    # 12 steps where the controller misses the leader's bounce and a new controller has it lead
    # epoch 0 again, empty; from
    # kip320 on, 15: r1 and r2 both crash, r1's death is noticed (the partition goes offline, r2
    # its last ISR member), r2 restarts empty, is failed first as a bounce (nothing changes), then
    # taken back and elected as the last ISR member (Last Replica Standing).
    *[("acked-survives", {"flush": "async"}, v, 12 if v in BOUNCE_MISSED else 15) for v in ALL],
]


def shortest(variant, invariant, **config):
    invariants = select("fetch", [invariant])
    model = build_model("fetch", variant, ghost=any(i.needs_ghost for i in invariants), **config)
    return model, explore(model, invariants)


@pytest.mark.parametrize("invariant, config, variant, length", KNOWN,
                         ids=[f"{v}-{i}-{'-'.join(f'{k}={x}' for k, x in c.items()) or 'default'}"
                              for i, c, v, _ in KNOWN])
def test_known_outcome(invariant, config, variant, length, capsys):
    model, result = shortest(variant, invariant, **config)
    trace = result.violations.get(invariant)
    if (None if trace is None else len(trace)) != length:
        if trace is not None:
            Console(width=200).print(trace_table(trace, model))
        pytest.fail(f"{variant} {invariant} {config}: expected {length}, got {None if trace is None else len(trace)}")
    if trace is not None:
        verify_trace(trace, model)
    else:
        assert result.complete


def test_kip320_keeps_everything_but_hw_monotonic():
    """Explored to the end with ghost state: at the defaults (2 replicas) kip320 keeps every
    invariant; at 3 replicas with one crash (and one record, to keep it small) every invariant
    but hw-monotonic (KAFKA-2334's story, as in KNOWN)."""
    invariants = select("fetch", [])
    for config, violated in (({}, set()), (dict(KAFKA_2334, max_records=1), {"hw-monotonic"})):
        result = explore(build_model("fetch", "kip320", ghost=True, **config), invariants, stop_at_first=False)
        assert result.complete
        assert {name for name in result.invariants if result.verdict(name) == "violated"} == violated, config


@pytest.mark.parametrize("variant", ["kip101", "kip279"])
def test_a_divergence_through_a_fetch_past_the_leaders_leo_rests_on_that_deviation(variant, tmp_path):
    from conftest import run_cli

    result = run_cli("check", "--model", "fetch", "--variant", variant, "--flush", "async", "--invariant",
                     "no-divergence", "--trace-dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    audit = run_cli("trace", "audit", str(next(tmp_path.glob("*.json"))))
    assert audit.output.strip().splitlines()[-1].startswith("rests on deviation offset-out-of-range at step ")


def test_hw_story_is_truncation_then_election():
    # KIP-101 scenario 1's shape: a follower truncates a committed record away (to its lagging
    # HW), then it is elected and the record is gone for good.
    from traces.lanes import losses

    model, result = shortest("hw", "committed-survives")
    trace = result.violations["committed-survives"]
    lost = losses([model.lanes(s) for s in trace.states()])
    assert len(lost) == 1
    loser = int(lost[0].lane[1:]) - 1
    truncation = trace.steps[lost[0].step - 1].action
    assert truncation[:2] == ("BecomeFollower", loser)
    assert trace.states()[lost[0].step - 1].brokers[loser].hw <= lost[0].offset  # its HW lagged
    assert trace.steps[-1].action[:2] == ("BecomeLeader", loser)


def test_s0_two_fetch_rounds():
    # Scenario S0: 2 replicas, one write under acks=all. The leader's HW reaches 1 only when it
    # handles the follower's second fetch; the follower's HW only when that response arrives.
    model = build_model("fetch", "kip320", ghost=True)
    steps = [("BecomeLeader", 0, 0), ("BecomeFollower", 1, 0, 0), ("ProducerWrite", 0),
             ("FollowerFetch", 1), ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1),
             ("FollowerFetch", 1), ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1)]
    states = walk(model, steps)
    table = [(s.brokers[0].leo, s.brokers[0].hw, s.brokers[1].leo, s.brokers[1].hw) for s in states[2:]]
    assert table == [
        (0, 0, 0, 0),  # both following epoch 0
        (1, 0, 0, 0),  # 1. m1 written to L: LEO 1, HW 0
        (1, 0, 0, 0),  # 2. F fetches at 0 ...
        (1, 0, 0, 0),  #    L records F's LEO 0: HW min(1, 0) = 0, answers m1 and HW 0
        (1, 0, 1, 0),  #    F appends m1: LEO 1, HW 0
        (1, 0, 1, 0),  # 3. F fetches at 1 ...
        (1, 1, 1, 0),  #    L records F's LEO 1: HW 1, m1 committed
        (1, 1, 1, 1),  #    F learns HW 1 from that response
    ]
    assert states[-2].acked == states[-1].acked == ((0, states[3].brokers[0].log[0]),)
    assert states[-3].acked == ()  # acknowledged only once the HW passed the record


def test_fetch_traces_round_trip(tmp_path):
    model, result = shortest("hw", "committed-survives")
    trace = result.violations["committed-survives"]
    save_trace(trace, model, tmp_path / "t.json")
    loaded, loaded_model = load_trace(tmp_path / "t.json")
    assert loaded == trace and loaded_model.ghost
    verify_trace(loaded, loaded_model)


def test_min_insync_above_replicas_is_refused():
    from model.params import ModelError

    with pytest.raises(ModelError, match="cannot exceed --replicas"):
        build_model("fetch", "kip320", replicas=2, min_insync_replicas=3)


def test_plain_runs_keep_no_ghost_state():
    plain = explore(build_model("fetch", "kip320"), select("fetch", ["no-divergence"]))
    ghost = explore(build_model("fetch", "kip320", ghost=True), select("fetch", ["no-divergence"]))
    assert plain.distinct_states < ghost.distinct_states
    assert plain.verdict("no-divergence") == ghost.verdict("no-divergence") == "holds"


def test_fetch_traces_render_with_messages_crashes_and_page_cache(tmp_path):
    import xml.etree.ElementTree as ET

    from conftest import run_cli

    model, result = shortest("hw", "committed-survives")
    trace = result.violations["committed-survives"]
    lanes = [model.lanes(s) for s in trace.states()]
    assert any(lane.message and lane.message[2] == "to" for view in lanes for lane in view.values())
    assert any(lane.message and lane.message[2] == "from" for view in lanes for lane in view.values())
    assert any(not lane.alive for view in lanes for lane in view.values())
    path = tmp_path / "t.json"
    save_trace(trace, model, path)
    for fmt in ("svg", "png", "dot", "graphml", "json", "html"):
        assert run_cli("trace", "render", str(path), "--format", fmt, "-o", str(tmp_path / f"out.{fmt}")).exit_code == 0
    ids = {el.get("id") for el in ET.parse(tmp_path / "out.svg").getroot().iter() if el.get("id")}
    assert {"lane-r1", "lane-r2"} <= ids


def test_unflushed_records_are_marked_in_the_lanes():
    model = build_model("fetch", "kip320", flush="async")
    states = walk(model, [("BecomeLeader", 0, 0), ("ProducerWrite", 0)])
    lane = model.lanes(states[-1])["r1"]
    assert lane.cells == ("a@e0",) and lane.flushed == 0
