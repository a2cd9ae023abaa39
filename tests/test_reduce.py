"""`--reduce` (`checker.reduce`): a search reduced by stubborn sets decides what the full one does.

On every bound set whose footprints tests/test_footprints.py checks, and on three-replica bound
sets where invariants fail, the reduced search gives every fetch property (the invariants, the
step properties and the witnesses) the verdict of the full search, with all of them checked
together and with committed-survives alone (whose own visibility is the finest); it never
stores more states. `check --reduce` says it reduced, and a violation it finds comes with the
full search's shortest trace. (tests/test_spark_engine.py runs it on Spark.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.invariant import applies
from checker.kernel.reduction import NO_REDUCTION
from checker.local import explore
from conftest import run_cli
from invariants.registry import invariants_for, select
from test_footprints import CASES, fetch_model

LOSING = [("hw", dict(replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=1)),
          ("kip101", dict(replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=1))]
"""Bound sets at three replicas on which some invariants fail (the consumers' HW goes back; under
0.10's truncation a leader's ISR view misses records below its HW)."""


def verdicts(model, properties, reduced: bool):
    """(verdict per property, orbits stored) of a complete search of `model`, reduced or not."""
    model.kernel.reduction = model.reduction([p.name for p in properties]) if reduced else NO_REDUCTION
    try:
        result = explore(model, properties, stop_at_first=False, symmetry=True)
    finally:
        model.kernel.reduction = NO_REDUCTION
    return {name: result.verdict(name) for name in result.invariants}, result.distinct_states


@pytest.mark.parametrize("variant, bounds", CASES + LOSING,
                         ids=[f"{variant}-{i}" for i, (variant, _) in enumerate(CASES + LOSING)])
def test_a_reduced_search_decides_every_property_as_the_full_search(variant, bounds):
    model = fetch_model(variant, **bounds)
    everything = [p for p in invariants_for("fetch").values() if applies(p, model)]
    for properties in (everything, select("fetch", ["committed-survives"])):
        full, full_states = verdicts(model, properties, reduced=False)
        reduced, reduced_states = verdicts(model, properties, reduced=True)
        assert reduced == full
        assert reduced_states <= full_states


def test_the_reduction_cuts_a_three_replica_search():
    """Not only sound but of use: on three replicas with one stop, committed-survives alone is
    decided on fewer orbits than the full search stores."""
    model = fetch_model("kip320", replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=1)
    properties = select("fetch", ["committed-survives"])
    (_, full), (_, reduced) = verdicts(model, properties, False), verdicts(model, properties, True)
    assert reduced < full


BOUNDS = ["--model", "fetch", "--variant", "kip101", "--replicas", "3", "--max-crashes", "2", "--log-size", "2",
          "--max-records", "2", "--flush", "async", "--invariant", "committed-survives", "--engine", "local"]


def test_check_reduce_finds_the_shortest_trace_and_says_how():
    full = json.loads(run_cli("check", *BOUNDS, "--json").stdout)
    result = run_cli("check", *BOUNDS, "--json", "--reduce")
    assert result.exit_code == 1
    reduced = json.loads(result.stdout)
    assert "reduction" not in full
    assert reduced["reduction"].startswith("a reduced search found the violation at depth ")
    shown = reduced["invariants"]["committed-survives"]
    assert shown["status"] == "violated"
    assert shown["trace_length"] == full["invariants"]["committed-survives"]["trace_length"]


def test_check_reduce_on_a_model_without_footprints_says_so_and_searches_in_full():
    plain = run_cli("check", "--model", "two-phase", "--json")
    result = run_cli("check", "--model", "two-phase", "--json", "--reduce")
    assert result.exit_code == plain.exit_code
    assert "--reduce: the search is not reduced: the two-phase model declares no footprints" in result.stderr
    assert json.loads(result.stdout)["distinct_states"] == json.loads(plain.stdout)["distinct_states"]


def test_check_reduce_refuses_a_checkpoint(tmp_path):
    result = run_cli("check", *BOUNDS, "--reduce", "--checkpoint-dir", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("Error: --reduce cannot be combined with --checkpoint")


ABLATED = ["--model", "fetch", "--variant", "kip320", "--replicas", "2", "--max-crashes", "1", "--log-size", "1",
           "--max-records", "2", "--flush", "async", "--invariant", "committed-survives", "--engine", "local", "--json"]


def test_ablate_reduce_gives_the_same_table():
    """Which rules committed-survives needs, reduced or not: the same verdict and the same
    shortest counterexample length for every rule switched back."""
    def rows(*extra):
        result = run_cli("ablate", *ABLATED, *extra)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        return data["engine"], [(r["variant"], r["verdict"], r["trace_length"]) for r in data["switches"]]

    (full_engine, full), (reduced_engine, reduced) = rows(), rows("--reduce")
    assert reduced == full
    assert any(verdict == "violated" for _, verdict, _ in full)
    assert "stubborn sets" in reduced_engine and "stubborn sets" not in full_engine


def test_verify_reduce_meets_every_expectation_of_the_jira_stories():
    """The Jira stories' verdicts and shortest trace lengths (facts from Kafka's history, in the
    manifest) are what a reduced search finds too."""
    result = run_cli("verify", str(Path(__file__).parents[1] / "examples" / "kafka-jira.toml"), "--reduce")
    assert result.exit_code == 0, result.output
    assert " 0 surprises " in result.stdout


def test_compare_reduce_gives_every_variant_the_same_verdicts_and_trace_lengths():
    args = ["compare", "--model", "fetch", "--variants", "hw,kip101,kip320", "--replicas", "2", "--max-crashes", "1",
            "--log-size", "1", "--max-records", "2", "--flush", "async", "--engine", "local", "--json"]

    def verdicts(*extra):
        data = json.loads(run_cli(*args, *extra).stdout)
        return {(v, name): (p["status"], p["trace_length"]) for v, r in data["variants"].items()
                for name, p in r["invariants"].items()}, {v: r.get("reduction") for v, r in data["variants"].items()}

    (full, said), (reduced, reduced_said) = verdicts(), verdicts("--reduce")
    assert reduced == full
    assert any(status == "violated" for status, _ in full.values())
    assert set(said.values()) == {None} and None not in reduced_said.values()
