"""The trade-off table (ISR against a majority quorum at replication factor 3, `replcheck
tradeoffs`): every cell is a verdict with its shortest trace length, every "yes" trace is a real
behaviour of its setup, and the source articles' claims come out of it, except the one the table
must explain (with clean elections and flush=sync the ISR loses nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.fetch import tradeoffs
from conftest import run_cli
from traces.store import load_trace

pytestmark = pytest.mark.xdist_group("tradeoffs")  # one worker computes the module's table, once

EXPECTED = {  # setup -> (committed lost, acked lost, acked with 1 down, acked with 2 down)
    "ISR, min.insync 1, clean": ("no", "no", "yes, 5 steps", "yes, 6 steps"),
    "ISR, min.insync 1, unclean": ("yes, 7 steps", "yes, 7 steps", "yes, 5 steps", "yes, 6 steps"),
    "ISR, min.insync 2, clean": ("no", "no", "yes, 10 steps", "no"),
    "ISR, min.insync 2, unclean": ("yes, 7 steps", "yes, 13 steps", "yes, 10 steps", "no"),
    "majority": ("no", "no", "yes, 8 steps", "no"),
}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The command's JSON (default bounds, local engine) and the directory of its traces."""
    traces = tmp_path_factory.mktemp("tradeoffs")
    result = run_cli("tradeoffs", "--engine", "local", "--json", "--trace-dir", str(traces))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), traces


@pytest.mark.slow
def test_every_cell_is_the_known_verdict_and_trace_length(table):
    doc, _ = table
    assert {label: tuple(setup["cells"][q.prop]["answer"] for q in tradeoffs.QUESTIONS)
            for label, setup in doc["setups"].items()} == EXPECTED
    assert all(setup["complete"] or all(c["yes"] for c in setup["cells"].values()) for setup in doc["setups"].values())


@pytest.mark.slow
def test_every_yes_is_a_real_behaviour_of_its_setup(table):
    doc, traces = table
    for label, setup in doc["setups"].items():
        for prop, c in setup["cells"].items():
            if not c["yes"]:
                assert c["trace_file"] is None
                continue
            trace, model = load_trace(Path(c["trace_file"]))  # loading replays the trace through its model
            assert (trace.invariant, len(trace)) == (prop, c["trace_length"])
            assert model.config.quorum == setup["settings"]["quorum"]
    assert len(list(traces.glob("*.json"))) == sum(c["yes"] for s in doc["setups"].values() for c in s["cells"].values())


@pytest.mark.slow
def test_the_articles_claims_come_out_of_it(table):
    doc, _ = table
    assert [c["borne_out"] for c in doc["claims"]] == [True, True, True, True, True, False]
    last = doc["claims"][-1]  # the one that fails says why, from the cell it read
    assert last["cells"] == "ISR, min.insync 1, clean: committed-survives no"
    assert "unclean election" in last["why_not"]
    assert all(c["why_not"] is None for c in doc["claims"][:-1])


def test_the_command_refuses_a_bound_it_cannot_use():
    result = run_cli("tradeoffs", "--max-crashes", "1")
    assert result.exit_code == 2
    assert "--max-crashes" in result.stderr and "Traceback" not in result.output
