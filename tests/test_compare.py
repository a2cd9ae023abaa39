"""`replcheck compare`: variants side by side, the same verdicts and trace lengths on both
engines, and its output formats."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from traces.replay import verify_trace
from traces.store import load_trace

ISR = ("--invariant", "strong-isr", "--invariant", "weak-isr")


@pytest.fixture(scope="module")
def local_comparison(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    result = run_cli("compare", "--model", "spec", "--engine", "local", *ISR, "--trace-dir", str(folder), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), folder


def test_hw_truncation_loses_strong_isr_and_kip320_keeps_it(local_comparison):
    out, _ = local_comparison
    verdicts = {v: r["invariants"]["strong-isr"]["status"] for v, r in out["variants"].items()}
    assert verdicts == {"hw": "violated", "kip101": "violated", "kip279": "violated", "kip320": "holds"}
    assert out["variants"]["kip320"]["symmetry"] is True
    assert out["variants"]["kip320"]["distinct_states"] == 123_311  # orbits of the 737,794 states
    assert out["variants"]["kip320"]["complete"] is True
    lengths = {v: r["invariants"]["strong-isr"]["trace_length"] for v, r in out["variants"].items()}
    assert lengths == {"hw": 8, "kip101": 10, "kip279": 10, "kip320": None}


def test_kept_traces_are_named_by_variant_and_invariant_and_replay(local_comparison):
    out, folder = local_comparison
    for variant in ("hw", "kip101", "kip279"):
        for invariant in ("strong-isr", "weak-isr"):
            path = folder / f"spec-{variant}-{invariant}.json"
            assert out["variants"][variant]["invariants"][invariant]["trace_file"] == str(path)
            trace, model = load_trace(path)
            verify_trace(trace, model)
    assert not list(folder.glob("spec-kip320-*"))


def test_spark_engine_gives_the_same_comparison(local_comparison):
    from test_spark_engine import _java_or_skip

    _java_or_skip()
    local, _ = local_comparison
    result = run_cli("compare", "--model", "spec", "--engine", "spark", "--master", "local[2]", *ISR, "--json")
    assert result.exit_code == 0, result.output
    spark = json.loads(result.stdout)
    assert spark["engine"] == "spark"
    for variant, figures in local["variants"].items():
        theirs = spark["variants"][variant]
        assert theirs["distinct_states"] == figures["distinct_states"]
        assert {k: (v["status"], v["trace_length"]) for k, v in theirs["invariants"].items()} == \
            {k: (v["status"], v["trace_length"]) for k, v in figures["invariants"].items()}


def test_markdown_table_and_rendered_traces(tmp_path):
    result = run_cli("compare", "--engine", "local", "--variants", "hw,kip101", "--replicas", "2", "--max-epoch", "3",
                     "--invariant", "strong-isr", "--markdown", "--trace-dir", str(tmp_path), "--render", "svg")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "| invariant | hw | kip101 |"
    assert lines[2].startswith("| strong-isr | violated in ") and lines[2].count("violated in") == 2
    assert (tmp_path / "spec-hw-strong-isr.lanes.svg").stat().st_size > 1000
    assert (tmp_path / "spec-kip101-strong-isr.lanes.svg").stat().st_size > 1000


@pytest.mark.parametrize("args, message", [
    (("--variants", "hw,kip999"), "unknown variant 'kip999'"),
    (("--model", "two-phase"), "model two-phase has no variants to compare"),
    (("--render", "svg"), "--render needs --trace-dir"),
    (("--json", "--markdown"), "choose one of --json and --markdown"),
    (("--replicas", "0"), "--replicas must be between"),
])
def test_bad_compare_input_exit_2(args, message):
    result = run_cli("compare", "--engine", "local", *args)
    assert result.exit_code == 2 and message in result.stderr
