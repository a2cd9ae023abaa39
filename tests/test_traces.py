"""Trace files: round trip, replay verification, validation of bad files, atomic writes."""

from __future__ import annotations

import json
import os

import pytest

from checker.local import explore
from conftest import VARIANTS
from invariants.registry import select
from model.registry import build_model
from traces import store
from traces.replay import ReplayError, verify_trace
from traces.store import TraceFileError, load_trace, save_trace
from traces.trace import Step

SMALL = dict(replicas=2, log_size=2, max_records=2, max_epoch=2)


def found_trace(variant="hw", invariant="strong-isr", **bounds):
    """The shortest trace violating `invariant` (bounds default to the model's own)."""
    model = build_model("spec", variant, **bounds)
    result = explore(model, select("spec", [invariant]))
    return result.violations[invariant], model


@pytest.mark.parametrize("variant", VARIANTS)
def test_saved_traces_load_back_equal_and_replay(tmp_path, variant):
    # kip320 keeps strong-isr: leader-in-isr (fails when leaderless) gives it a trace. kip279
    # needs a third replica to lose strong-isr.
    invariant = "leader-in-isr" if variant == "kip320" else "strong-isr"
    bounds = SMALL if variant in ("hw", "kip101") else {}
    trace, model = found_trace(variant, invariant, **bounds)
    path = tmp_path / "t.json"
    save_trace(trace, model, path)
    loaded, loaded_model = load_trace(path)
    assert loaded == trace
    assert loaded_model.variant == variant
    verify_trace(loaded, loaded_model)
    doc = json.loads(path.read_text())
    assert doc["format"] == "replcheck-trace/1"
    assert doc["length"] == len(trace) == len(doc["steps"])


def test_two_phase_trace_round_trip(tmp_path):
    from checker.invariant import Invariant

    model = build_model("two-phase", rms=2)
    # A stand-in predicate under the model's real invariant name: "the TM never decides".
    result = explore(model, [Invariant("consistent", "", lambda s: s.tm == 0)])
    trace = result.violations["consistent"]
    for state in [trace.initial] + [step.state for step in trace.steps]:
        assert model.state_from_json(json.loads(json.dumps(model.state_to_json(state)))) == state
    save_trace(trace, model, tmp_path / "t.json")
    with pytest.raises(TraceFileError, match="not a counterexample of its model: the last state does not violate"):
        load_trace(tmp_path / "t.json")  # its real invariant holds: two-phase commit is correct


def test_replay_rejects_a_step_that_is_not_a_successor():
    trace, model = found_trace(**SMALL)
    steps = list(trace.steps)
    steps[1] = Step(steps[1].action, steps[2].state)
    broken = type(trace)(trace.model, trace.variant, trace.bounds, trace.invariant, trace.initial, tuple(steps))
    with pytest.raises(ReplayError, match="step 2"):
        verify_trace(broken, model)


def test_replay_rejects_a_trace_that_does_not_end_in_a_violation():
    trace, model = found_trace(**SMALL)
    cut = type(trace)(trace.model, trace.variant, trace.bounds, trace.invariant, trace.initial, trace.steps[:-1])
    with pytest.raises(ReplayError, match="does not violate"):
        verify_trace(cut, model)


def test_replay_rejects_a_trace_under_the_wrong_action():
    trace, model = found_trace(**SMALL)
    steps = list(trace.steps)
    steps[0] = Step(("LeaderWrite", 0), steps[0].state)
    broken = type(trace)(trace.model, trace.variant, trace.bounds, trace.invariant, trace.initial, tuple(steps))
    with pytest.raises(ReplayError, match="step 1"):
        verify_trace(broken, model)


def _write(tmp_path, doc_or_text):
    path = tmp_path / "bad.json"
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text))
    return path


def _good_doc(tmp_path):
    trace, model = found_trace(**SMALL)
    save_trace(trace, model, tmp_path / "good.json")
    return json.loads((tmp_path / "good.json").read_text())


@pytest.mark.parametrize("mutate, message", [
    (lambda d: "{not json", "not valid JSON"),
    (lambda d: {"nodes": [], "links": []}, "not a replcheck trace"),
    (lambda d: dict(d, format="replcheck-trace/9"), "this replcheck reads"),
    (lambda d: dict(d, model="raft"), "unknown model"),
    (lambda d: dict(d, variant="kip999"), "unknown variant"),
    (lambda d: dict(d, invariant="no-such"), "no invariant"),
    (lambda d: dict(d, bounds=dict(d["bounds"], replicas=0)), "--replicas must be between"),
    (lambda d: dict(d, steps="x"), "'steps'"),
    (lambda d: dict(d, steps=[dict(d["steps"][0], action=[1, 2])]), "action must be"),
    (lambda d: dict(d, initial=dict(d["initial"], replicas=[])), "state has 0 replicas"),
    (lambda d: dict(d, steps=[dict(d["steps"][0], state=dict(d["steps"][0]["state"], next_record_id=99))]),
     "next_record_id"),
])
def test_bad_trace_files_get_a_clear_error(tmp_path, mutate, message):
    path = _write(tmp_path, mutate(_good_doc(tmp_path)))
    with pytest.raises(TraceFileError, match=message) as err:
        load_trace(path)
    assert "\n" not in str(err.value)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(TraceFileError, match="cannot read"):
        load_trace(tmp_path / "absent.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TraceFileError, match="cannot read"):
        load_trace(tmp_path / "bin.json")


def test_atomic_write_leaves_nothing_half_written(tmp_path, monkeypatch):
    from checker.output_kinds import JUNIT

    target = tmp_path / "out.xml"
    old = "<?xml version='1.0' encoding='utf-8'?>\n<testsuites name=\"replcheck\" />\n"  # replcheck's: replaceable
    target.write_text(old)

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        store.write_atomically(target, "new content", JUNIT)
    assert target.read_text() == old
    assert os.listdir(tmp_path) == ["out.xml"]


def test_a_ctrl_c_just_after_the_rename_is_a_ctrl_c_and_the_file_is_whole(tmp_path, monkeypatch):
    """The interruption lands when the new file is already in place (the checkpoint journal met
    this): it is reported as the Ctrl-C it is, not as a failure to remove the temporary file."""
    from checker.output_kinds import JUNIT

    target = tmp_path / "out.xml"
    rename = os.replace

    def rename_then_interrupted(src, dst):
        rename(src, dst)
        raise KeyboardInterrupt

    monkeypatch.setattr(store.os, "replace", rename_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.write_atomically(target, "new content", JUNIT)
    assert target.read_text() == "new content"
    assert os.listdir(tmp_path) == ["out.xml"]


def test_every_column_of_a_fetch_step_table_has_a_heading():
    """The ghost column (acked and committed records) appears only once a record is acknowledged;
    the step table still names it, and leaves it empty before."""
    from model.fetch.words import records_text
    from traces.table import trace_table

    invariants = select("fetch", ["strong-isr"])
    model = build_model("fetch", "hw", ghost=True)
    trace = explore(model, invariants).violations["strong-isr"]
    assert not model.state_columns(trace.initial).get("ghost")
    table = trace_table(trace, model)
    headers = [str(column.header) for column in table.columns]
    assert all(headers[1:]) and "ghost" in headers
    assert (records_text(1), records_text(2)) == ("1 record", "2 records")


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_only_a_regular_file_is_ever_replaced(tmp_path, kind):
    """`-o /dev/full` (as root) replaced the device node; a FIFO or a symlink went the same way."""
    from checker.output_kinds import SVG_PICTURE

    target = tmp_path / "out.svg"
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep me")
    {"fifo": lambda: os.mkfifo(target), "symlink": lambda: target.symlink_to(elsewhere),
     "directory": target.mkdir}[kind]()
    with pytest.raises(OSError, match="not a regular file|is a directory"):
        store.write_atomically(target, "<svg/>", SVG_PICTURE)
    assert elsewhere.read_text() == "keep me" and (target.is_symlink() or not target.is_file())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "out.svg"]


@pytest.mark.parametrize("make, reason", [
    (lambda p: os.mkfifo(p), "not a regular file"),  # would block forever
    (lambda p: p.write_text("[" * 100_000), "nested too deeply"),
    (lambda p: p.write_text('{"format": ' + "9" * 5000 + "}"), "a number thousands of digits long"),
    (lambda p: p.write_bytes(b"\xff\xfe"), "not UTF-8 text"),
])
def test_hostile_trace_and_scenario_files_are_one_line_errors(tmp_path, make, reason):
    from traces.scenario import load_scenario

    path = tmp_path / "f.json"
    make(path)
    for load in (load_trace, load_scenario):
        with pytest.raises(TraceFileError, match=reason):
            load(path)


def test_a_device_is_refused_rather_than_read_forever():
    with pytest.raises(TraceFileError, match="not a regular file"):
        load_trace("/dev/zero")


@pytest.mark.parametrize("mutate", [
    lambda doc: doc["steps"].reverse(),
    lambda doc: doc["steps"].pop(2),
    lambda doc: doc.update(variant="kip320"),  # the same steps under another variant
], ids=["reversed", "dropped-step", "another-variant"])
def test_a_trace_file_that_is_not_a_behaviour_of_its_model_is_refused(tmp_path, mutate):
    """Such files were shown and rendered with exit 0."""
    trace, model = found_trace(**SMALL)
    save_trace(trace, model, tmp_path / "t.json")
    doc = json.loads((tmp_path / "t.json").read_text())
    mutate(doc)
    (tmp_path / "t.json").write_text(json.dumps(doc))
    with pytest.raises(TraceFileError, match="is not a counterexample of its model: "):
        load_trace(tmp_path / "t.json")
