"""Witnesses: reachability questions checked beside invariants (issue 11).

The `fetch` model's two step witnesses ask whether an acks=all write can be acknowledged with
one (`acked-with-1-down`) or two (`acked-with-2-down`) brokers down, none of which holds the
record. Every search here is at three replicas and one record (`--max-records 1`); where a test
needs a complete search it also lowers `--max-epoch` to 1, and on Spark `--max-crashes` to 1,
so that each search takes a second or two (a dozen on Spark).
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from types import SimpleNamespace

import pytest

import checker.commands.search as search_module
from checker.local import explore
from checker.result import LevelStats
from checker.stopping import COMPLETE, DECIDED, DEPTH_LIMIT, FIRST_VIOLATION, stop_reason
from conftest import run_cli
from invariants.registry import invariants_for, select
from model.registry import build_model
from test_checkpoint import _saver, _search
from test_spark_engine import same_results, sc  # noqa: F401 (sc is a fixture)
from traces.legend import COLOURS
from traces.store import load_trace

WITNESSES = ("acked-with-1-down", "acked-with-2-down")
FETCH3 = ("--model", "fetch", "--variant", "kip320", "--replicas", "3", "--max-records", "1", "--engine", "local")
ASK = tuple(arg for name in WITNESSES for arg in ("--invariant", name))


def check(*args: str):
    """`replcheck check` on three replicas and one record, asking both witnesses: (exit code,
    JSON result)."""
    result = run_cli("check", *FETCH3, *ASK, *args, "--json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def verdicts(out: dict) -> dict:
    """Each property's (status, shortest trace length) in a JSON result."""
    return {name: (v["status"], v["trace_length"]) for name, v in out["invariants"].items()}


def fetch3(**bounds):
    """The kip320 model at three replicas and one record, with ghost state, and both witnesses."""
    witnesses = select("fetch", WITNESSES)
    return build_model("fetch", "kip320", ghost=True, replicas=3, max_records=1, **bounds), witnesses


def test_a_witness_stops_the_search_only_once_every_property_is_decided():
    witness, invariant = SimpleNamespace(name="w", witness=True), SimpleNamespace(name="i", witness=False)
    rule = {"exhausted": False, "properties": [witness, invariant], "stop_at_first": True, "depth": 3,
            "max_depth": 9}
    assert stop_reason(**rule, found={"w"}) is None  # a reached witness is no violation
    assert stop_reason(**rule, found={"i"}) == FIRST_VIOLATION
    assert stop_reason(**{**rule, "stop_at_first": False}, found={"i"}) is None
    assert stop_reason(**rule, found={"w", "i"}) == DECIDED
    assert stop_reason(**{**rule, "exhausted": True}, found={"w", "i"}) == COMPLETE
    assert stop_reason(**{**rule, "depth": 9}, found=set()) == DEPTH_LIMIT


def test_with_min_insync_1_two_brokers_down_do_not_stop_acks():
    code, out = check("--min-insync-replicas", "1")
    assert verdicts(out) == {"acked-with-1-down": ("reachable", 5), "acked-with-2-down": ("reachable", 6)}
    assert {v["kind"] for v in out["invariants"].values()} == {"witness"}
    assert {v["reachable"] for v in out["invariants"].values()} == {True}
    assert "holds" not in out["invariants"]["acked-with-1-down"]
    # both answered at depth 6: the search stops there, every property decided
    assert (out["complete"], out["depth"], out["distinct_states"], out["symmetry"]) == (False, 6, 674, True)
    assert code == 0
    text = run_cli("check", *FETCH3, *ASK, "--min-insync-replicas", "1").stdout
    assert "stopped: every property decided" in text and "first violation" not in text


def test_with_min_insync_2_one_broker_down_is_the_most_and_the_check_exits_0():
    """The complete search answers both witnesses: exit 0, since no invariant is violated and
    nothing stayed undecided."""
    code, out = check("--max-epoch", "1", "--invariant", "committed-survives")
    assert verdicts(out) == {"acked-with-1-down": ("reachable", 10), "acked-with-2-down": ("unreachable", None),
                             "committed-survives": ("holds", None)}
    assert out["invariants"]["acked-with-2-down"]["reachable"] is False
    assert out["invariants"]["committed-survives"]["kind"] == "invariant"
    assert (out["complete"], out["distinct_states"], code) == (True, 179_921, 0)


def test_a_reached_witness_does_not_stop_check_at_the_first_violation():
    """acked-with-1-down is reached at depth 10; `check` goes on to hw-monotonic's first
    violation at depth 17 (KAFKA-2334's story: r1 leads {r1, r2, r3} and crashes once both
    followers have fetched a, r2 is elected with ISR {r2, r3} and a HW behind r1's), and exits 1
    for that violation."""
    code, out = check("--max-epoch", "1", "--invariant", "hw-monotonic")
    assert verdicts(out) == {"acked-with-1-down": ("reachable", 10), "acked-with-2-down": ("unknown", None),
                             "hw-monotonic": ("violated", 17)}
    assert (out["depth"], out["complete"], code) == (17, False, 1)


def test_an_undecided_witness_makes_check_exit_1():
    code, out = check("--max-epoch", "1", "--max-depth", "12")
    assert verdicts(out)["acked-with-2-down"] == ("unknown", None)
    assert code == 1
    text = run_cli("check", *FETCH3, *ASK, "--max-epoch", "1", "--max-depth", "12").stdout
    assert "stopped at the depth limit" in text


def test_witnesses_are_symmetric_and_shortest_traces_do_not_depend_on_it():
    assert all(invariants_for("fetch")[name].symmetric for name in WITNESSES)
    _, reduced = check("--min-insync-replicas", "1", "--max-epoch", "1")
    _, plain = check("--min-insync-replicas", "1", "--max-epoch", "1", "--no-symmetry")
    assert verdicts(reduced) == verdicts(plain) == {"acked-with-1-down": ("reachable", 5),
                                                    "acked-with-2-down": ("reachable", 6)}


def test_one_step_can_reach_both_witnesses():
    """broken_steps reports every step property a step breaks: the step that acknowledges with
    two brokers down reaches both witnesses at once."""
    model, witnesses = fetch3(min_insync_replicas=1)
    trace = explore(model, witnesses, symmetry=True).violations["acked-with-2-down"]
    kernel = model.kernel
    before, after = (kernel.encode(s) for s in trace.states()[-2:])
    code = next(c for c, row in kernel.successor_rows(before) if (row == after).all())
    bit = {name: 1 << i for i, name in enumerate(kernel.step_property_names)}
    every = sum(bit.values())
    assert kernel.search.broken_steps(before, code, after, kernel.layout, every) == sum(bit[w] for w in WITNESSES)


@pytest.mark.parametrize("bounds, expected", [
    ({"min_insync_replicas": 1, "max_epoch": 1}, {"acked-with-1-down": 5, "acked-with-2-down": 6}),
    # complete: 40,979 orbits (with one crash, two brokers are never down)
    ({"max_epoch": 1, "max_crashes": 1}, {"acked-with-1-down": 10, "acked-with-2-down": None}),
])
def test_spark_finds_the_same_witnesses_and_traces(sc, bounds, expected):  # noqa: F811 (sc is a fixture)
    from checker.spark.engine import explore_spark

    model, witnesses = fetch3(**bounds)
    local = explore(model, witnesses, symmetry=True)
    spark = explore_spark(sc, model, witnesses, partitions=3, symmetry=True)
    same_results(spark, local)
    assert {name: len(t) for name, t in spark.violations.items()} == {k: v for k, v in expected.items() if v}
    assert spark.verdict("acked-with-2-down") == ("reachable" if expected["acked-with-2-down"] else "unreachable")


@pytest.mark.parametrize("depth, reader", [(3, "local"), (8, "local"), (8, "spark")])
def test_a_resumed_search_keeps_the_witnesses_it_had_reached(request, tmp_path, depth, reader):
    """Stopped before (depth 3) or after (depth 8) acked-with-1-down is reached at depth 5, and
    resumed: the verdicts and traces of an uninterrupted search (30,113 orbits)."""
    sc = request.getfixturevalue("sc") if reader == "spark" else None  # noqa: F811 (Spark only where it reads)
    model, witnesses = fetch3(min_insync_replicas=1, max_epoch=1, max_crashes=1)
    whole = explore(model, witnesses, stop_at_first=False, symmetry=True)
    assert (whole.verdict("acked-with-1-down"), whole.verdict("acked-with-2-down")) == ("reachable", "unreachable")
    first = _search("local", sc, model, witnesses, True, _saver(tmp_path, model, witnesses, True, depth), depth)
    assert set(first.violations) == ({"acked-with-1-down"} if depth >= 5 else set())
    resumed = _search(reader, sc, model, witnesses, True, _saver(tmp_path, model, witnesses, True), partitions=2)
    same_results(resumed, whole)


def test_compare_and_sweep_show_witnesses_beside_invariants():
    bounds = ("--replicas", "3", "--max-records", "1", "--max-epoch", "1", "--max-crashes", "1", "--engine", "local")
    compared = run_cli("compare", "--model", "fetch", "--variants", "kip279,kip320", *bounds, *ASK, "--markdown")
    assert compared.exit_code == 0, compared.output
    assert compared.stdout.splitlines()[:4] == ["| property | kip279 | kip320 |", "|---|---|---|",
                                                "| acked-with-1-down | reachable in 10 steps | reachable in 10 steps |",
                                                "| acked-with-2-down | unreachable | unreachable |"]
    swept = run_cli("sweep", "--model", "fetch", "--variant", "kip320", "--min-insync-replicas", "1,2", *bounds, *ASK,
                    "--invariant", "committed-survives", "--markdown")
    assert swept.exit_code == 0, swept.output
    rows = swept.stdout.splitlines()
    assert rows[0] == "| configuration | acked-with-1-down | acked-with-2-down | committed-survives | distinct orbits |"
    fixed = "replicas=3 max-records=1 max-epoch=1 max-crashes=1"
    assert rows[2:] == [f"| min-insync-replicas=1 {fixed} | reachable in 5 steps | unreachable | holds | 30,113 |",
                        f"| min-insync-replicas=2 {fixed} | reachable in 10 steps | unreachable | holds | 40,979 |"]
    out = json.loads(run_cli("sweep", "--model", "fetch", "--variant", "kip320", "--min-insync-replicas", "1", *bounds,
                             *ASK, "--json").stdout)
    entry = out["runs"][0]["result"]["invariants"]["acked-with-1-down"]
    assert entry == {"kind": "witness", "reachable": True, "status": "reachable", "trace_length": 5, "trace_file": None}


def test_an_interrupted_search_lists_witnesses_apart(monkeypatch):
    def interrupted_at_depth_11(model, invariants, on_level=None, **kwargs):
        on_level(LevelStats(11, 10, 30, 4321, 1.0, violated=("hw-monotonic",), reached=("acked-with-1-down",)), 10)
        raise KeyboardInterrupt

    monkeypatch.setattr(search_module, "engine_session", lambda *a, **k: nullcontext(interrupted_at_depth_11))
    result = run_cli("check", *FETCH3, *ASK, "--invariant", "hw-monotonic", "--invariant", "committed-survives",
                     "--json")
    assert result.exit_code == 130
    assert result.stderr == ("Error: interrupted by the user after depth 11 of the search (4,321 distinct states, "
                             "incomplete; violated: hw-monotonic; not yet violated: committed-survives; reached: "
                             "acked-with-1-down; not yet reached: acked-with-2-down); no result or trace was written\n")
    out = json.loads(result.stdout)
    assert (out["violated"], out["not_yet_violated"]) == (["hw-monotonic"], ["committed-survives"])
    assert (out["reached"], out["not_yet_reached"]) == (["acked-with-1-down"], ["acked-with-2-down"])


@pytest.fixture(scope="module")
def witness_trace(tmp_path_factory):
    """The 5-step trace to acked-with-1-down (min.insync.replicas 1), saved by `check`."""
    folder = tmp_path_factory.mktemp("witness")
    result = run_cli("check", *FETCH3, *ASK, "--min-insync-replicas", "1", "--max-epoch", "1", "--trace-dir",
                     str(folder))
    assert result.exit_code == 0, result.output
    return folder / "fetch-kip320-acked-with-1-down.json"


def says_reached_never_violated(text: str) -> None:
    assert "reached acked-with-1-down in 5 steps" in text
    assert "violat" not in text.lower() and "fail" not in text.lower()


def test_a_witness_trace_file_loads_back_and_says_what_was_reached(witness_trace):
    trace, _ = load_trace(witness_trace)
    assert (trace.invariant, len(trace)) == ("acked-with-1-down", 5)
    assert json.loads(witness_trace.read_text())["kind"] == "witness"
    shown = run_cli("trace", "show", str(witness_trace), "--explain")
    assert shown.exit_code == 0, shown.output
    says_reached_never_violated(shown.stdout)
    assert "Step 5 (" in shown.stdout and "reaches acked-with-1-down" in shown.stdout
    assert "Reaching it means the partition can still acknowledge acks=all writes with one broker gone" in \
        " ".join(shown.stdout.split())


@pytest.mark.parametrize("fmt, picture", [("svg", "lanes"), ("svg", "graph"), ("html", "lanes"), ("dot", "graph")])
def test_pictures_of_a_witness_trace_say_reached(witness_trace, tmp_path, fmt, picture):
    out = tmp_path / f"picture.{fmt}"
    result = run_cli("trace", "render", str(witness_trace), "--format", fmt, "--picture", picture, "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    if fmt == "dot":
        assert "reached=True" in text and "violating" not in text
    else:
        says_reached_never_violated(text)
    if fmt == "html":  # the last action in the step table is indigo, as in the lanes, not red
        assert text.count(f'<td class="action" style="color: {COLOURS["reached"]}">') == 1
        assert COLOURS["fails"] not in text


def test_list_shows_witnesses_apart_and_check_asks_them_only_by_name():
    listed = run_cli("list").stdout
    fetch = listed[listed.index("fetch"):]
    heading = fetch.index("witnesses (checked only when named):")
    assert fetch.index("invariants:") < fetch.index("committed-survives") < heading
    assert all(heading < fetch.index(name) for name in WITNESSES)
    assert not any(p.witness for p in select("fetch", []))
    unknown = run_cli("check", *FETCH3, "--invariant", "acked-with-3-down")
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith("Error: unknown invariant 'acked-with-3-down' for model fetch (choose from")
    assert "acked-with-2-down" in unknown.stderr and len(unknown.stderr.splitlines()) == 1
