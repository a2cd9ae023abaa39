"""`--coverage`: what a search exercised, per action kind and acting replica, checked against
the run's own totals, against runs cut at a depth, and across engines and partition counts."""

from __future__ import annotations

import math

import pytest

from conftest import run_cli, run_json

KIP320 = ("check", "--model", "fetch", "--variant", "kip320", "--replicas", "2", "--coverage")
"""41,780 orbits over 41 levels: half a second of search."""


@pytest.fixture(scope="module")
def kip320():
    return run_json(*KIP320, "--engine", "local")


def test_fired_and_new_add_up_to_the_runs_generated_and_distinct_states(kip320):
    coverage = kip320["coverage"]
    actions = coverage["actions"]
    assert sum(a["fired"] for a in actions.values()) == kip320["generated_states"]
    assert sum(a["new"] for a in actions.values()) == kip320["distinct_states"]
    assert actions["Init"]["new"] == coverage["initial_states"] == 1
    assert coverage["states_expanded"] == kip320["distinct_states"]  # a complete search expands every state


def test_each_actions_figures_are_consistent_with_each_other_and_with_its_replicas(kip320):
    coverage = kip320["coverage"]
    for name, action in coverage["actions"].items():
        if name == "Init":
            continue
        assert action["new"] <= action["fired"] and action["enabled"] <= action["fired"]
        assert action["enabled"] <= coverage["states_expanded"]
        assert (action["fired"] == 0) == (action["enabled"] == 0) == (action["first_depth"] is None)
        assert (name in coverage["never_fired"]) == (action["fired"] == 0)
        by = action.get("by_replica", {})
        if by:
            assert sum(r["fired"] for r in by.values()) == action["fired"]
            assert sum(r["new"] for r in by.values()) == action["new"]
            assert max(r["enabled"] for r in by.values()) <= action["enabled"] <= sum(r["enabled"] for r in by.values())
            assert min(r["first_depth"] for r in by.values()) == action["first_depth"]
    # the retrying producer's steps name a record, not a replica; the others a replica
    assert "by_replica" in coverage["actions"]["Crash"] and "by_replica" not in coverage["actions"]["ProducerSend"]
    # what these bounds leave out never fires: no retries, no flush steps with --flush sync, no majority quorum
    assert {"ProducerSend", "Flush", "WinElection"} <= set(coverage["never_fired"])


@pytest.mark.parametrize("name", ["LeaderExpandIsr", "CheckpointHw", "ControllerNoticeRestart"])
def test_an_actions_first_depth_is_where_a_search_cut_short_first_takes_it(kip320, name):
    depth = kip320["coverage"]["actions"][name]["first_depth"]
    assert depth > 1
    before = run_json(*KIP320, "--engine", "local", "--max-depth", str(depth - 1))["coverage"]["actions"][name]
    at = run_json(*KIP320, "--engine", "local", "--max-depth", str(depth))["coverage"]["actions"][name]
    assert before["fired"] == 0 and at["fired"] > 0 and at["first_depth"] == depth


def test_spark_gives_the_same_coverage_at_any_partition_count(kip320):
    for partitions in ("1", "3"):
        spark = run_json(*KIP320, "--engine", "spark", "--master", "local[2]", "--partitions", partitions)
        assert spark["coverage"] == kip320["coverage"]


def test_a_model_without_a_kernel_has_coverage_per_kind_on_both_engines():
    args = ("check", "--model", "two-phase", "--coverage", "--continue")
    local = run_json(*args, "--engine", "local")
    spark = run_json(*args, "--engine", "spark", "--master", "local[2]")
    assert local["coverage"] == spark["coverage"]
    actions = local["coverage"]["actions"]
    assert sum(a["fired"] for a in actions.values()) == local["generated_states"]
    assert sum(a["new"] for a in actions.values()) == local["distinct_states"]
    assert not any("by_replica" in a for a in actions.values())


def test_a_resumed_search_reports_the_coverage_of_one_that_never_stopped(kip320, tmp_path):
    first = run_cli(*KIP320, "--engine", "local", "--max-depth", "12", "--checkpoint-dir", str(tmp_path))
    assert first.exit_code == 1, first.output  # stopped at the depth limit: undecided
    resumed = run_json("resume", str(tmp_path), "--engine", "local", "--max-depth", "100", "--coverage")
    assert resumed["coverage"] == kip320["coverage"]


def test_the_table_shows_every_action_fired_or_not_each_replica_and_why_not():
    result = run_cli(*KIP320, "--engine", "local", "--no-unclean-leader-election")
    assert result.exit_code == 0, result.output
    rows = {cells[1].strip(): [c.strip() for c in cells[2:-1]]
            for cells in (line.split("│") for line in result.stdout.splitlines()) if len(cells) >= 6}
    assert rows["Flush"][:4] == ["0", "0", "0", "never"] and rows["Flush"][4].startswith("'appends are flushed")
    assert rows["Init"] == ["-", "-", "1", "0", ""]
    assert rows["by r2"]  # a replica's row under its action
    assert rows["UncleanElection"][:2] == ["0", "never"]
    assert rows["UncleanElection"][2].startswith("'unclean.leader.election is on' false all")


# ---- guards and events: the kernel's own conditions, named once ----

def _events(*args: str) -> dict:
    return run_json("check", "--model", "fetch", "--coverage", "--engine", "local", *args)["coverage"]["events"]


def test_at_the_default_bounds_the_unclean_election_is_kept_off_by_its_setting(kip320):
    unclean = kip320["coverage"]["events"]["UncleanElection"]
    assert unclean["fired"] == 0 and unclean["first_depth"] is None
    blocked = unclean["blocked_by"]
    assert blocked["guard"] == "unclean.leader.election is on" and blocked["always"]
    assert blocked["false"] == blocked["tested"] > 0
    assert "UncleanElection" in kip320["coverage"]["never_fired"]


def test_with_unclean_election_on_it_fires_and_that_guard_never_blocks():
    events = _events("--variant", "kip320", "--replicas", "2", "--unclean-leader-election")
    unclean = events["UncleanElection"]
    assert unclean["fired"] > 0 and "blocked_by" not in unclean
    guard = next(g for g in unclean["guards"] if g["guard"] == "unclean.leader.election is on")
    assert guard["false"] == 0 and guard["tested"] > 0


def test_only_kip966_elects_from_the_elr_and_its_first_depth_is_where_a_cut_search_first_does():
    kip966 = _events("--variant", "kip966", "--replicas", "2")
    assert kip966["ElrElection"]["fired"] > 0 and kip966["LastLeaderElection"]["fired"] > 0
    depth = kip966["ElrElection"]["first_depth"]
    assert _events("--variant", "kip966", "--replicas", "2", "--max-depth", str(depth - 1))["ElrElection"]["fired"] == 0
    assert _events("--variant", "kip966", "--replicas", "2", "--max-depth", str(depth))["ElrElection"]["fired"] > 0
    kip320 = _events("--variant", "kip320", "--replicas", "2")
    assert kip320["ElrElection"]["blocked_by"]["guard"] == "KIP-966's eligible leader replicas are on (rule elr=on)"
    switched = _events("--variant", "kip966", "--rule", "elr=off", "--replicas", "2")
    assert switched["ElrElection"]["fired"] == 0 and switched["ElrElection"]["blocked_by"]["always"]


def in_sample(tested: int, coverage: dict) -> bool:
    """Whether a guard tested once per state was tested in as many states as a search's sample
    of them holds (one in `guard_sample`, by fingerprint): within four standard deviations of
    the share, since fingerprints fall like random numbers. (Random but fixed: the same states
    are sampled in every run.)"""
    n, share = coverage["states_expanded"], 1 / coverage["guard_sample"]
    return coverage["guard_sample"] > 1 and abs(tested - n * share) <= 4 * math.sqrt(n * share * (1 - share))


def test_a_guard_tested_once_per_state_is_tested_in_the_sample_of_the_states_expanded(kip320):
    coverage = kip320["coverage"]
    flush = coverage["actions"]["Flush"]["guards"][0]  # --flush sync: tested once per state, always false
    assert flush["tested"] == flush["false"] and in_sample(flush["tested"], coverage), flush
    async_flush = run_json(*KIP320, "--engine", "local", "--flush", "async")["coverage"]["actions"]["Flush"]
    assert async_flush["fired"] > 0 and async_flush["guards"][0]["false"] == 0


# ---- simulation ----

SIMULATE = ("simulate", "--model", "fetch", "--variant", "kip966", "--replicas", "2", "--walks", "300", "--coverage",
            "--invariant", "committed-survives", "--seed", "7")


def test_walks_count_every_step_they_take_the_same_on_both_engines():
    local = run_json(*SIMULATE, "--engine", "local")
    spark = run_json(*SIMULATE, "--engine", "spark", "--master", "local[2]", "--partitions", "3")
    assert local["coverage"] == spark["coverage"]
    actions = local["coverage"]["actions"]
    assert sum(a["fired"] for a in actions.values()) == local["states_visited"] - local["walks"]
    for name, action in actions.items():
        assert action["fired"] <= action["enabled"]  # a walk takes one of the steps enabled
        assert "new" not in action
    assert local["coverage"]["events"]["ElrElection"]["possible"] > 0
    assert local["coverage"]["events"]["UncleanElection"]["blocked_by"]["guard"] == "unclean.leader.election is on"


# ---- warnings, compare, sweep, verify ----

def test_a_run_that_holds_without_a_crash_says_so_on_its_verdict():
    args = ("check", "--model", "fetch", "--variant", "kip320", "--replicas", "2", "--max-crashes", "0",
            "--max-fencings", "1", "--engine", "local")
    data = run_json(*args, "--coverage")
    (warning,) = data["coverage_warnings"]
    assert warning["never_fired"] == "Crash" and warning["blocked_by"]["guard"] == "stops remain (--max-crashes)"
    assert all(p["status"] == "holds" for p in data["invariants"].values())
    text = run_cli(*args, "--coverage").stdout
    assert "holds, but Crash never fired at these bounds (guard 'stops remain (--max-crashes)' false all" in text
    plain = run_json(*args)  # guards are counted on request only: the warning stays, naming no guard
    (warning,) = plain["coverage_warnings"]
    assert warning["never_fired"] == "Crash" and warning["blocked_by"] is None
    assert "--coverage names the guard" in warning["message"]
    assert plain["generated_states"] == data["generated_states"]
    assert run_json("check", "--model", "fetch", "--variant", "kip320", "--replicas", "2",
                    "--engine", "local")["coverage_warnings"] == []


def test_kip966_relies_on_its_elr_election_and_unclean_election_on_its_setting():
    from model.registry import build_model

    kip966 = build_model("fetch", "kip966", replicas=2)
    assert {"ElrElection", "CleanShutdown", "CleanElection", "Crash"} <= set(kip966.relied_on())
    assert "UncleanElection" not in kip966.relied_on()
    assert "UncleanElection" in build_model("fetch", "kip320", replicas=2, unclean_leader_election=True).relied_on()
    names = set(kip966.action_kinds()) | set(kip966.kernel.guards.event_names())
    assert set(build_model("fetch", "kip966", replicas=2, flush="async", max_fencings=1, max_disk_losses=1,
                           controlled_shutdown=True, retries=True).relied_on()) <= names


def test_compare_and_sweep_carry_each_runs_coverage():
    compared = run_json("compare", "--model", "fetch", "--variants", "kip320,kip966", "--replicas", "2",
                        "--max-crashes", "1", "--engine", "local", "--coverage")
    assert compared["variants"]["kip966"]["coverage"]["events"]["ElrElection"]["fired"] > 0
    assert compared["variants"]["kip320"]["coverage"]["events"]["ElrElection"]["fired"] == 0
    swept = run_json("sweep", "--model", "fetch", "--acks", "1,all", "--max-crashes", "1", "--engine", "local",
                     "--coverage")
    for run in swept["runs"]:
        coverage = run["result"]["coverage"]
        assert sum(a["fired"] for a in coverage["actions"].values()) == run["result"]["generated_states"]


def test_verify_asserts_that_actions_and_events_fire(tmp_path):
    manifest = tmp_path / "fires.toml"
    entry = ('[[expect]]\nmodel = "fetch"\nvariant = "{v}"\nbounds = {{ replicas = 2, max-crashes = 1 }}\n'
             'property = "committed-survives"\noutcome = "holds"\nfires = ["ElrElection", "CleanShutdown"]\n')
    manifest.write_text(entry.format(v="kip966"))
    assert run_cli("verify", str(manifest)).exit_code == 0
    manifest.write_text(entry.format(v="kip320"))
    result = run_cli("verify", str(manifest))
    assert result.exit_code == 1 and "ElrElection, CleanShutdown never fired" in result.stdout
    manifest.write_text(entry.format(v="kip966").replace('"CleanShutdown"', '"Shutdown"'))
    result = run_cli("verify", str(manifest))
    assert result.exit_code == 2 and "fires names 'Shutdown', no action or event of model fetch" in result.stderr


def test_the_spec_model_names_its_guards_too():
    data = run_json("check", "--model", "spec", "--variant", "kip320", "--max-epoch", "1", "--coverage",
                    "--engine", "local")
    actions = data["coverage"]["actions"]
    assert sum(a["fired"] for a in actions.values()) == data["generated_states"]
    epoch_guard = next(g for g in actions["ControllerElectLeader"]["guards"] if "epoch" in g["guard"])
    assert 0 < epoch_guard["false"] < epoch_guard["tested"] and in_sample(epoch_guard["tested"], data["coverage"])


def test_steps_by_depth_add_up_to_each_levels_steps(kip320):
    by_depth = kip320["coverage"]["fired_by_depth"]
    per_depth = [sum(column) for column in zip(*by_depth.values())]
    assert per_depth[:len(kip320["levels"]) - 1] == [level["generated"] for level in kip320["levels"][1:]]
    assert sum(per_depth) == kip320["generated_states"]


def test_a_coverage_page_that_cannot_be_written_is_refused_before_the_search(tmp_path):
    result = run_cli(*KIP320, "--engine", "local", "--coverage-html", str(tmp_path / "missing" / "page.html"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "--coverage-html" in result.stderr and "cannot write a coverage page there" in result.stderr
