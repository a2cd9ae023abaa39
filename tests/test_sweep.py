"""`replcheck sweep`: which configurations lose acknowledged or committed data."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

EXAMPLE = ("sweep", "--model", "fetch", "--variant", "kip320", "--acks", "1,all", "--min-insync-replicas", "1,2",
           "--unclean-leader-election", "both", "--flush", "sync,async", "--engine", "local")


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    result = run_cli(*EXAMPLE, "--json", "--trace-dir", str(folder))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["runs"], folder


def verdicts(runs, **where):
    return [(r["result"]["invariants"]["acked-survives"]["status"], r["result"]["invariants"]["committed-survives"]["status"])
            for r in runs if all(r["configuration"][k] == v for k, v in where.items())]


def test_the_product_of_the_settings_is_checked(example):
    runs, _ = example
    assert len(runs) == 16
    assert {tuple(sorted(r["configuration"].items())) for r in runs} == {
        tuple(sorted({"acks": a, "min_insync_replicas": m, "unclean_leader_election": u, "flush": f}.items()))
        for a in ("1", "all") for m in (1, 2) for u in (False, True) for f in ("sync", "async")}


def test_acks_1_loses_acknowledged_writes(example):
    runs, _ = example
    assert {acked for acked, _ in verdicts(runs, acks="1")} == {"violated"}


def test_unclean_election_loses_committed_writes(example):
    runs, _ = example
    assert {committed for _, committed in verdicts(runs, unclean_leader_election=True)} == {"violated"}


def test_the_safe_configuration_loses_nothing(example):
    runs, _ = example
    assert verdicts(runs, acks="all", min_insync_replicas=2, unclean_leader_election=False, flush="sync") == \
        [("holds", "holds")]


def test_losses_are_kept_as_traces(example):
    runs, folder = example
    losses = sum(1 for r in runs for v in r["result"]["invariants"].values() if v["status"] == "violated")
    assert len(list(folder.glob("fetch-kip320-*.json"))) == losses


def test_rendered_losses(tmp_path):
    result = run_cli("sweep", "--acks", "1", "--engine", "local", "--trace-dir", str(tmp_path), "--render", "svg")
    assert result.exit_code == 0
    assert [p.name for p in tmp_path.glob("*.lanes.svg")] == ["fetch-kip320-acks=1-acked-survives.lanes.svg"]


def test_markdown_and_bad_settings():
    result = run_cli("sweep", "--acks", "1", "--engine", "local", "--markdown")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[2].startswith("| acks=1 | violated".replace("violated", "lost in"))
    for args, message in [(("--acks", "2"), "Error: --acks must be one of 0, 1, all"),
                          (("--unclean-leader-election", "maybe"), "takes on, off or both"),
                          (("--min-insync-replicas", "3"), "cannot exceed --replicas"),
                          (("--rms", "3"), "--rms does not apply to model fetch")]:
        bad = run_cli("sweep", "--engine", "local", *args)
        assert bad.exit_code == 2 and message in bad.stderr, bad.stderr
