"""The command line: exit codes, JSON output, listings, trace display and bad input."""

from __future__ import annotations

import json
import re
import signal
from contextlib import nullcontext

import pytest

import checker.commands.search as search_module
from conftest import VARIANTS, run_cli, run_json
from interrupting import PATIENCE, progress_lines, started, wait_for
from invariants.registry import invariants_for
from model.registry import MODELS
from traces.store import load_trace

SMALL = ("--replicas", "2", "--log-size", "2", "--max-records", "2", "--max-epoch", "2")


def test_exit_0_when_every_invariant_holds():
    result = run_cli("check", "--engine", "local", "--model", "two-phase", "--rms", "3", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["invariants"]["consistent"]["holds"] is True


def test_exit_1_and_json_fields_when_violated(tmp_path):
    result = run_cli("check", "--engine", "local", "--variant", "hw", *SMALL, "--invariant", "strong-isr", "--trace-dir", str(tmp_path),
                     "--json")
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert {"model", "variant", "bounds", "engine", "distinct_states", "generated_states", "depth", "seconds",
            "invariants"} <= set(out)
    assert out["bounds"] == {"replicas": 2, "log_size": 2, "max_records": 2, "max_epoch": 2}
    verdict = out["invariants"]["strong-isr"]
    assert verdict["holds"] is False and verdict["trace_length"] == out["depth"]
    trace, _ = load_trace(verdict["trace_file"])
    assert len(trace) == verdict["trace_length"] and trace.variant == "hw"


def test_continue_reports_every_violation_and_keeps_going():
    out = run_json("check", "--engine", "local", "--variant", "hw", *SMALL, "--continue")
    assert out["complete"] is True
    statuses = {name: v["status"] for name, v in out["invariants"].items()}
    assert statuses == {"leader-in-isr-or-none": "holds", "weak-isr": "violated", "strong-isr": "violated"}
    named = run_json("check", "--engine", "local", "--variant", "hw", *SMALL, "--continue", "--invariant",
                     "leader-in-isr", "--invariant", "strong-isr")
    assert named["invariants"]["leader-in-isr"]["trace_length"] == 0  # by name: the specification's own quirk


def test_a_first_check_of_the_spec_model_leaves_out_the_invariant_that_fails_by_design():
    out = run_json("check", "--engine", "local", *SMALL)
    assert "leader-in-isr" not in out["invariants"] and out["invariants"]["leader-in-isr-or-none"]["holds"]
    listed = run_cli("list")
    assert "(fails when leaderless) (checked only when named:" in " ".join(listed.output.split())


def test_default_variant_is_kip320_with_default_bounds():
    out = run_json("check", "--engine", "local", "--max-depth", "3", "--invariant", "strong-isr")
    assert out["variant"] == "kip320"
    assert out["bounds"] == {"replicas": 3, "log_size": 2, "max_records": 2, "max_epoch": 2}
    assert out["depth"] == 3 and out["invariants"]["strong-isr"]["status"] == "unknown"


@pytest.mark.parametrize("args, message", [
    (("--variant", "kip999"), "unknown variant 'kip999' for model spec (choose from hw, kip101, kip279, kip320)"),
    (("--model", "raft"), "unknown model 'raft'"),
    (("--invariant", "no-loss"), "unknown invariant 'no-loss' for model spec (choose from leader-in-isr,"),
    (("--replicas", "0"), "--replicas must be between 1 and 7, got 0"),
    (("--log-size", "-1"), "--log-size must be between"),
    (("--max-records", "0"), "--max-records must be between"),
    (("--max-epoch", "0"), "--max-epoch must be between"),
    (("--replicas", "100"), "--replicas must be between 1 and 7, got 100"),
    (("--max-epoch", "1000000"), "--max-epoch must be between"),
    (("--rms", "3"), "--rms does not apply to this model"),
    (("--model", "two-phase", "--variant", "hw"), "model two-phase has no variants"),
    (("--model", "two-phase", "--rms", "11"), "--rms must be between 1 and 10"),
    (("--replicas", "two"), "'two' is not a valid integer"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = run_cli("check", "--engine", "local", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert len([line for line in result.stderr.splitlines() if line.strip()]) <= 3  # click usage errors add a hint


def test_unwritable_trace_dir_is_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run_cli("check", "--engine", "local", "--variant", "hw", *SMALL, "--trace-dir", str(blocker / "sub"))
    assert result.exit_code == 2
    assert f"--trace-dir {blocker / 'sub'}: cannot write there (Not a directory)" in result.stderr


def test_trace_show_prints_every_step_in_protocol_words(tmp_path):
    run_cli("check", "--engine", "local", "--variant", "hw", "--invariant", "strong-isr", "--trace-dir", str(tmp_path), "--json")
    path = tmp_path / "spec-hw-strong-isr.json"
    trace, model = load_trace(path)
    result = run_cli("trace", "show", str(path))
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    flat = text.replace("│", " ")
    words = " ".join(flat.split())
    for step in json.loads(path.read_text())["steps"]:
        assert step["description"].split(",")[0].split()[0] in words
    # The last step is the truncation to the lagging HW that drops the committed record.
    assert "truncates its log to offset 0 (its HW)" in json.loads(path.read_text())["steps"][-1]["description"]
    assert f"violated after {len(trace)} steps" in result.stdout


@pytest.mark.parametrize("content", ["{broken", '{"nodes": []}', ""])
def test_trace_show_bad_files_exit_2(tmp_path, content):
    path = tmp_path / "t.json"
    path.write_text(content)
    result = run_cli("trace", "show", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and len(result.stderr.strip().splitlines()) == 1


def test_trace_show_missing_file_exit_2(tmp_path):
    result = run_cli("trace", "show", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and "cannot read trace file" in result.stderr


def test_list_names_every_model_variant_and_invariant():
    result = run_cli("list")
    assert result.exit_code == 0
    for kind in MODELS.values():
        assert kind.name in result.stdout
        for variant in kind.variants:
            assert variant in result.stdout
        for name in invariants_for(kind.name):
            assert name in result.stdout
    assert set(VARIANTS) == set(MODELS["spec"].variants)


def test_interrupt_exits_130_with_one_line(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(search_module, "engine_session", lambda *a, **k: nullcontext(interrupted))
    result = run_cli("check", "--engine", "local", "--model", "two-phase")
    assert result.exit_code == 130
    assert result.stderr == "Error: interrupted by the user; no result or trace was written\n"


def test_an_interrupt_that_a_compiled_function_wraps_in_an_error_exits_130_with_one_line(monkeypatch):
    """numba turns a Ctrl-C that lands while it loads a compiled function into a SystemError
    caused by the KeyboardInterrupt; the CLI still reports the interruption, not a traceback.
    An error with no interruption behind it stays an error."""
    def interrupted(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(<function walk_weights>) returned a result with an exception set") from exc

    monkeypatch.setattr(search_module, "engine_session", lambda *a, **k: nullcontext(interrupted))
    result = run_cli("check", "--engine", "local", "--model", "two-phase")
    assert result.exit_code == 130
    assert result.stderr == "Error: interrupted by the user; no result or trace was written\n"

    def broken(*args, **kwargs):
        raise SystemError("a compiled function failed")

    monkeypatch.setattr(search_module, "engine_session", lambda *a, **k: nullcontext(broken))
    with pytest.raises(SystemError, match="a compiled function failed"):
        run_cli("check", "--engine", "local", "--model", "two-phase")


def test_an_interrupted_search_says_how_far_it_got(monkeypatch):
    from checker.result import LevelStats

    def interrupted_at_depth_7(model, invariants, on_level=None, **kwargs):
        on_level(LevelStats(7, 100, 300, 1234, 1.0), 100)
        raise KeyboardInterrupt

    monkeypatch.setattr(search_module, "engine_session", lambda *a, **k: nullcontext(interrupted_at_depth_7))
    result = run_cli("check", "--engine", "local", "--model", "two-phase")
    assert result.exit_code == 130
    assert result.stderr == ("Error: interrupted by the user after depth 7 of the search (1,234 distinct states, "
                             "incomplete; not yet violated: consistent); no result or trace was written\n")


def test_an_interrupted_search_lists_its_verdicts_so_far_also_in_json(monkeypatch):
    from checker.result import LevelStats

    def interrupted_at_depth_9(model, invariants, on_level=None, **kwargs):
        on_level(LevelStats(9, 10, 30, 4321, 1.0, violated=("strong-isr",)), 10)
        raise KeyboardInterrupt

    monkeypatch.setattr(search_module, "engine_session", lambda *a, **k: nullcontext(interrupted_at_depth_9))
    result = run_cli("check", "--engine", "local", "--invariant", "strong-isr", "--invariant", "weak-isr", "--json")
    assert result.exit_code == 130
    assert result.stderr == ("Error: interrupted by the user after depth 9 of the search (4,321 distinct states, "
                             "incomplete; violated: strong-isr; not yet violated: weak-isr); no result or trace "
                             "was written\n")
    assert json.loads(result.stdout) == {"interrupted": "SIGINT", "complete": False, "depth": 9,
                                         "distinct_states": 4321, "violated": ["strong-isr"],
                                         "not_yet_violated": ["weak-isr"], "reached": [], "not_yet_reached": [],
                                         "checkpoint": None}


@pytest.mark.parametrize("signum, moment, code, message", [
    (signal.SIGINT, 0.05, 130, "interrupted by the user"),  # Ctrl-C while Python itself starts,
    (signal.SIGINT, 0.3, 130, "interrupted by the user"),  # while importing,
    (signal.SIGINT, 0.9, 130, "interrupted by the user"),  # while loading the kernel,
    (signal.SIGINT, "searching", 130, "interrupted by the user"),  # once the search has finished a level
    (signal.SIGTERM, 0.05, 143, "terminated (SIGTERM)"),
    (signal.SIGTERM, 0.3, 143, "terminated (SIGTERM)"),
    (signal.SIGTERM, "searching", 143, "terminated (SIGTERM)")])
def test_real_ctrl_c_stops_the_search(tmp_path, signum, moment, code, message):
    """A Ctrl-C or SIGTERM at any moment of a real run ends it with one line, exit 130 or 143, and
    nothing written. The seconds are moments, not expectations: on a slow or busy machine 0.9 s
    may still be Python's start-up, and the outcome must be the same. The run starts with both
    signals blocked until cli.py's first statements are ready for them (`interrupting`: one that
    lands in Python's own start-up, before cli.py's first line, is beyond any program's reach),
    so 0.05 s is as good a moment as any. "searching" waits for the first level's line in the
    --progress log: then the search is under way, and the message says how far it got."""
    import time

    from checker.progress import prepare_kernels
    from model.registry import build_model

    prepare_kernels([build_model("fetch", "kip320", replicas=3)])  # compiled beforehand: the run below searches
    traces, progress = tmp_path / "traces", tmp_path / "progress.jsonl"
    proc = started("check", "--engine", "local", "--model", "fetch", "--replicas", "3", "--continue", "--trace-dir",
                   str(traces), "--progress", str(progress))
    if moment == "searching":
        wait_for(progress_lines(progress), proc, "the search's first level")
    else:
        time.sleep(moment)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == code, err
    *before, last = err.strip().splitlines()
    how_far = r" after depth \d+ of the search \([\d,]+ distinct states, incomplete(; (not yet )?violated: [^)]*)*\)"
    # how far the search got, once it has finished a level (at a given second, which stage that is depends on the machine)
    assert re.fullmatch(rf"Error: {re.escape(message)}({how_far}){'' if moment == 'searching' else '?'}; no result or "
                        "trace was written", last), last
    # compile notices, where something compiled (or another process on the machine was compiling it)
    assert all(line.startswith(("compiling ", "waiting for another replcheck process")) for line in before), before
    assert out == "" and not (traces.exists() and any(traces.iterdir()))


def test_replay_prints_scenario_notes_verbatim():
    """A scenario's notes quote logs in brackets; they are text, not terminal markup."""
    result = run_cli("replay", "scenarios/S1-hw-truncation-loses-committed.json")
    assert result.exit_code == 0
    assert "A truncates to its HW: log [m1]" in " ".join(result.stdout.split())


def test_violation_in_the_initial_state_is_a_zero_step_trace(tmp_path):
    """spec kip320 without a leader breaks leader-in-isr before any step: the table says 0 steps,
    as the trace's own heading does, and the trace file is written."""
    result = run_cli("check", "--engine", "local", "--model", "spec", "--invariant", "leader-in-isr",
                     "--trace-dir", str(tmp_path))
    assert result.exit_code == 1
    row = next(line for line in result.stdout.splitlines() if "leader-in-isr" in line and "violated" in line)
    assert "0 steps" in row and str(tmp_path) in " ".join(result.stdout.split())
    assert len(load_trace(tmp_path / "spec-kip320-leader-in-isr.json")[0]) == 0


def test_bounds_print_flags_as_the_cli_takes_them():
    """--unclean-leader-election takes on/off, so the summary prints on/off, never True/False."""
    result = run_cli("check", "--engine", "local", "--model", "fetch", "--max-depth", "2", "--no-unclean-leader-election")
    bounds = next(line for line in result.stdout.splitlines() if line.startswith("bounds"))
    assert "unclean-leader-election=off" in bounds and "False" not in bounds


def test_help_gives_each_model_its_own_default():
    """spec runs 3 replicas by default and fetch 2: --help must not claim one default for both."""
    text = " ".join(run_cli("check", "--help").stdout.split())
    assert "spec default 3; fetch default 2" in text and "[fetch; default off]" in text


@pytest.mark.parametrize("variants", [",", "", " , "])
def test_compare_refuses_a_variant_list_naming_nothing(variants):
    """`--variants ,` was an IndexError traceback."""
    result = run_cli("compare", "--engine", "local", "--variants", variants)
    assert result.exit_code == 2
    assert result.stderr == "Error: --variants names no variant (choose from hw, kip101, kip279, kip320)\n"


@pytest.mark.parametrize("args", [("check", "--engine", "local", "--trace-dir", ""), ("trace", "show", ""),
                                  ("trace", "render", "x.json", "--format", "svg", "-o", "")])
def test_an_empty_path_is_refused_not_taken_as_the_current_directory(args, tmp_path, monkeypatch):
    """`--trace-dir ''` wrote traces into the current directory."""
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args)
    assert result.exit_code == 2 and "must not be empty" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_trace_that_cannot_be_saved_does_not_cost_the_verdict(tmp_path, monkeypatch):
    """`check` printed nothing when a trace could not be saved; now the result comes first, then
    one line saying which file failed, and exit 2. (A directory in the trace file's way is
    refused before the search: test_output_rule.py; here the disk fills as the trace is saved.)"""
    import checker.atomic_file

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checker.atomic_file.os, "fsync", full)
    result = run_cli("check", "--engine", "local", "--variant", "hw", "--invariant", "strong-isr", "--json",
                     "--trace-dir", str(tmp_path))
    assert result.exit_code == 2
    assert json.loads(result.stdout)["invariants"]["strong-isr"]["status"] == "violated"
    assert result.stderr.startswith(f"Error: cannot write trace file {tmp_path}/spec-hw-strong-isr.json")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("master", ["local[0]", "local[abc]", "local[-1]", "sparc://host:7077", ""])
def test_a_malformed_spark_master_is_refused_before_a_jvm_starts(master):
    """These gave 55-70 lines of py4j traceback, or (local[0]) a context that never runs a task."""
    result = run_cli("check", "--model", "two-phase", "--master", master)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: --master {master!r} ") and result.stderr.count("\n") == 1


@pytest.mark.parametrize("master", ["local", "local[1]", "local[*]", "local[4,2]", "spark://h1:7077,h2:7077", "yarn",
                                    "k8s://https://host:443"])
def test_spark_master_forms_spark_documents_are_accepted(master):
    from checker.spark.master_url import master_problem

    assert master_problem(master) is None
