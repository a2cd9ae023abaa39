"""Hostile input (issue #10): real trace files, scenario files and command lines, mutated by
hypothesis, get the CLI's documented answer and nothing else.

The contract is `hostile.py`'s. Every search runs on the local engine with small bounds, so
each example takes well under a second; Spark is never started.
"""

from __future__ import annotations

import copy
import json
import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hostile import (assert_documented_answer, assert_one_error_line, at, hostile, invoke, leftovers, no_spark,  # noqa: F401
                     places)
from invariants.registry import invariants_for
from model.registry import MODELS
from traces import figure_file
from traces import render as render_module
from traces import store
from traces.replay import walk
from traces.scenario import load_scenario, parse_step
from traces.store import TraceFileError, load_trace, save_trace
from traces.trace import Step, Trace

pytestmark = pytest.mark.usefixtures("no_spark")

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.json"))
S1 = next(f for f in SCENARIOS if f.name.startswith("S1-hw"))

VARIANT_NAMES = sorted({v for kind in MODELS.values() for v in kind.variants})
INVARIANT_NAMES = sorted({i for name in MODELS for i in invariants_for(name)})
ACTION_NAMES = ["BecomeLeader", "BecomeFollower", "ProducerWrite", "FollowerFetch", "LeaderServeFetch",
                "FollowerApplyResponse", "Crash", "Restart", "ControllerElectLeader", "LeaderWrite"]


def loads(load, path: Path) -> bool:
    """Whether `load` (load_trace or load_scenario) accepts the file: the CLI's verdict to match."""
    try:
        load(path)
    except TraceFileError:
        return False
    return True


# --- real files to mutate ---------------------------------------------------------------------

class Files(dict):
    """File name -> text, shown by name only in hypothesis' reports."""

    def __repr__(self) -> str:
        """The file names."""
        return f"Files({', '.join(self)})"


@pytest.fixture(scope="module")
def found(tmp_path_factory) -> Files:
    """Real trace files as the CLI writes them (file name -> text): every spec hw counterexample
    under the default bounds, and the fetch hw ones (with ghost variables) under small bounds."""
    folder = tmp_path_factory.mktemp("found")
    for args in (["--model", "spec", "--variant", "hw"],
                 ["--model", "fetch", "--variant", "hw", "--max-records", "1", "--log-size", "1", "--max-epoch", "1"]):
        result = invoke(["check", "--engine", "local", "--continue", "--trace-dir", str(folder), *args])
        assert result.exit_code == 1, result.output
    files = Files((p.name, p.read_text()) for p in sorted(folder.iterdir()))
    assert {json.loads(text)["model"] for text in files.values()} == {"spec", "fetch"}
    return files


def scenario_texts() -> Files:
    """The shipped scenario files, name -> text."""
    return Files((p.name, p.read_text()) for p in SCENARIOS)


# --- mutations --------------------------------------------------------------------------------

HOSTILE_TEXT = ["\x1b[2J\x1b]0;title\x07", "a\rb", "\u202egnp.", "v" * 100_000]
"""Text a file may hold: escape sequences, a carriage return, a right-to-left override, 100,000
characters (an error line quotes only its start)."""


def replace_text(draw, doc):
    """Some text (a name, a note, a key) replaced by hostile text."""
    texts = [p for p in places(doc) if p and isinstance(at(doc, p), str)]
    keys = [p for p in places(doc) if isinstance(at(doc, p), dict) and at(doc, p)]
    text = draw(st.sampled_from(HOSTILE_TEXT))
    if keys and (not texts or draw(st.booleans())):
        table = at(doc, draw(st.sampled_from(keys)))
        key = draw(st.sampled_from(sorted(table)))
        table[text] = table.pop(key)
    elif texts:
        path = draw(st.sampled_from(texts))
        at(doc, path[:-1])[path[-1]] = text
    return doc


def json_values(max_leaves: int = 12):
    """Any JSON value (numbers of up to a few thousand digits, NaN and infinities included, as
    Python's json module writes them; text with terminal escape sequences)."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12),
                        st.sampled_from([10**4000, -10**4000, 2**63, -1, 0, *HOSTILE_TEXT]))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                        max_leaves=max_leaves)


def replace_value(draw, doc):
    """Some value (possibly the whole document) replaced by any JSON value."""
    path = draw(st.sampled_from(places(doc)))
    value = draw(json_values())
    if not path:
        return value
    at(doc, path[:-1])[path[-1]] = value
    return doc


def delete_value(draw, doc):
    """A key or list item deleted somewhere."""
    spots = places(doc)[1:]
    if spots:
        path = draw(st.sampled_from(spots))
        del at(doc, path[:-1])[path[-1]]
    return doc


def reorder_list(draw, doc):
    """Some list (the steps, a log, an ISR, an action) reversed, shuffled, cut, or an item of it
    dropped or duplicated."""
    lists = [p for p in places(doc) if isinstance(at(doc, p), list) and at(doc, p)]
    if not lists:
        return doc
    items = at(doc, draw(st.sampled_from(lists)))
    i = draw(st.integers(0, len(items) - 1))
    how = draw(st.sampled_from(["reverse", "shuffle", "cut", "drop", "duplicate"]))
    if how == "reverse":
        items.reverse()
    elif how == "shuffle":
        items[:] = draw(st.permutations(items))
    elif how == "cut":
        del items[i:]
    elif how == "drop":
        del items[i]
    else:
        items.insert(i, copy.deepcopy(items[i]))
    return doc


def rename(draw, doc):
    """A model, variant, invariant or action name swapped for another real one or any text."""
    names = st.one_of(st.sampled_from(sorted(MODELS) + VARIANT_NAMES + INVARIANT_NAMES + ACTION_NAMES),
                      st.text(max_size=8))
    spots = [p for p in places(doc) if p and isinstance(at(doc, p), str)
              and (p[-1] in ("model", "variant", "invariant", "violated") or p[-2:-1] == ("action",))]
    if spots:
        path = draw(st.sampled_from(spots))
        at(doc, path[:-1])[path[-1]] = draw(names)
    return doc


def change_number(draw, doc):
    """A whole number somewhere (a bound, a replica id, an epoch, an action's argument) nudged,
    negated or made huge; or an action given one argument more or fewer."""
    numbers = [p for p in places(doc) if p and type(at(doc, p)) is int]
    actions = [p for p in places(doc) if p and p[-1] == "action" and isinstance(at(doc, p), list)]
    if actions and draw(st.booleans()):
        action = at(doc, draw(st.sampled_from(actions)))
        if len(action) > 1 and draw(st.booleans()):
            action.pop()
        else:
            action.append(draw(st.integers(-2, 9)))
    elif numbers:
        path = draw(st.sampled_from(numbers))
        old = at(doc, path)
        at(doc, path[:-1])[path[-1]] = draw(st.sampled_from([old + 1, old - 1, -old - 1, 10**4000, 2**64, -(2**64)]))
    return doc


MUTATIONS = [replace_value, delete_value, reorder_list, rename, change_number, replace_text]


@st.composite
def mutated_document(draw, text: str):
    """The JSON document `text` after one to three mutations, written back as JSON bytes."""
    doc = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        doc = draw(st.sampled_from(MUTATIONS))(draw, doc)
    return json.dumps(doc, indent=1).encode()


@st.composite
def mangled_bytes(draw, text: str):
    """The file `text` cut short, or with bytes spliced in: invalid UTF-8, NUL, stray JSON
    punctuation, a number thousands of digits long, a run of brackets."""
    data = text.encode()
    where = draw(st.integers(0, len(data)))
    if draw(st.booleans()):
        return data[:where]
    insert = draw(st.one_of(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"}", b",", b'"', b"[",
                                             b"9" * 5000, b"[" * 50_000, b"\xef\xbb\xbf"]),
                            st.binary(min_size=1, max_size=8)))
    cut = draw(st.integers(0, min(4, len(data) - where)))
    return data[:where] + insert + data[where + cut:]


def hostile_file(texts: dict[str, str]):
    """One of the real files `texts`: its JSON mutated, its bytes mangled, or now and then as it
    is (so that the answer to a valid file is checked too)."""
    return st.sampled_from(sorted(texts)).flatmap(
        lambda name: st.one_of(mutated_document(texts[name]), mutated_document(texts[name]),
                               mangled_bytes(texts[name]), st.just(texts[name].encode())))


# --- trace files ------------------------------------------------------------------------------

def assert_audited_as_shown(result, path: Path, as_json: bool) -> None:
    """`trace audit` judged the file (exit 0 or 1) where `trace show` reads it and its model has a
    rule table, and refused it (exit 2) where show refuses it, but for a trace saved before a fix:
    show refuses that one, whose steps the model no longer all takes, and the audit says so."""
    try:
        _, model = load_trace(path)
    except TraceFileError:
        if result.exit_code != 2:
            before_a_fix = (json.loads(result.stdout)["first_unreplayed_step"] is not None if as_json
                            else "saved before the rule it rests on was fixed" in result.stdout)
            assert before_a_fix, result.output[-2000:]
        return
    assert (result.exit_code != 2) == hasattr(model, "audit"), result.output[-2000:]


DATA = Path(__file__).parent / "data"
KRAFT_TRACE = DATA / "kraft" / "kip595-disk-loss.json"
BEFORE_A_FIX = DATA / "findings" / "kip966-fencing-last-leader-with-elr.json"
AUDITED = Files((p.name, p.read_text()) for p in (KRAFT_TRACE, BEFORE_A_FIX))
"""What `trace audit` reads besides `found`: a kraft trace, and a fetch trace (with ghost variables)
saved before a fix, which the audit judges and `trace show` refuses."""


@pytest.mark.parametrize("command, flag", [("show", "--explain"), ("audit", "--json")])
@hostile(150)
@given(data=st.data())
def test_trace_show_and_audit_answer_a_mutated_trace_file_as_documented(found, command, flag, data):
    content = data.draw(hostile_file(found if command == "show" else Files({**found, **AUDITED})), label="file")
    flagged = data.draw(st.booleans(), label=flag)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "trace.json")
        path.write_bytes(content)
        result = invoke(["trace", command, str(path), *([flag] if flagged else [])])
        if command == "show":
            assert_documented_answer(result, {0, 2})
            assert (result.exit_code == 0) == loads(load_trace, path)
        else:
            assert_documented_answer(result, {0, 1, 2})
            assert_audited_as_shown(result, path, flagged)
        assert path.read_bytes() == content
        assert leftovers(folder, {"trace.json"}) == set()


OLDER = {"svg": b'<?xml version="1.0"?>\n<!-- replcheck trace picture -->\n<svg/>\n',
         "html": b'<!DOCTYPE html>\n<html><head><meta name="generator" content="replcheck trace page"></head></html>\n',
         "json": b'{"graph": {"generator": "replcheck trace graph"}}\n', "dot": b"/* replcheck trace graph */\ndigraph {}\n"}
"""An older output of each format, as replcheck marks what it writes (`checker.output_kinds`)."""


@hostile(80)
@given(data=st.data())
def test_trace_render_writes_a_whole_picture_or_nothing(found, data):
    """A render writes a whole picture or nothing, and replaces an older file only where replcheck wrote
    it as the same format (issue 44)."""
    content = data.draw(hostile_file(found), label="file")
    fmt = data.draw(st.sampled_from(["svg", "html", "json", "dot"]), label="format")
    picture = data.draw(st.sampled_from(["lanes", "graph"]), label="picture")
    whose = data.draw(st.sampled_from([None, "replcheck's", "the user's"]), label="output before")
    before = {None: None, "the user's": b"an older picture", "replcheck's": OLDER[fmt]}[whose]
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder, "trace.json"), Path(folder, f"out.{fmt}")
        path.write_bytes(content)
        if before is not None:
            out.write_bytes(before)
        result = invoke(["trace", "render", str(path), "--format", fmt, "--picture", picture, "-o", str(out)])
        assert_documented_answer(result, {0, 2})
        assert (result.exit_code == 0) == (loads(load_trace, path) and whose != "the user's")
        if result.exit_code == 0:
            assert out.stat().st_size > 0 and out.read_bytes() != before
        else:
            assert (out.read_bytes() if out.exists() else None) == before
        assert leftovers(folder, {"trace.json", out.name}) == set()


# --- scenario files ---------------------------------------------------------------------------

@hostile(150)
@given(content=hostile_file(scenario_texts()))
def test_replay_answers_a_mutated_scenario_file_as_documented(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "scenario.json")
        path.write_bytes(content)
        result = invoke(["replay", str(path)])
        assert_documented_answer(result, {0, 1, 2})
        assert (result.exit_code != 2) == loads(load_scenario, path)
        assert leftovers(folder, {"scenario.json"}) == set()


@hostile(80)
@given(data=st.data())
def test_replay_answers_hostile_step_words_as_documented(data):
    text = data.draw(st.sampled_from(sorted(scenario_texts().values())), label="scenario")
    doc = json.loads(text)
    words = st.one_of(
        st.sampled_from(["", " ", "r1", "e0", "r0", "r-1", "e-1", "r99", "e99", "r٣", "r²", "r" + "9" * 5000, "x",
                         "Crash", "BecomeLeader", "1", "-1", "r1e0", "\t", "\u00a0"]),
        st.text(max_size=6))
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        i = data.draw(st.integers(0, len(doc["steps"])), label="at")
        step = " ".join(data.draw(st.lists(words, min_size=0, max_size=4), label="words"))
        doc["steps"][i:i + data.draw(st.integers(0, 1), label="replace")] = [step]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "scenario.json")
        path.write_text(json.dumps(doc))
        result = invoke(["replay", str(path)])
        assert_documented_answer(result, {0, 1, 2})
        assert (result.exit_code != 2) == loads(load_scenario, path)


# --- command lines ----------------------------------------------------------------------------

BAD_INTS = ["0", "-1", "-99999999999999999999", "9" * 30, "9" * 5000, "", " ", "x", "1.5", "1,2", "²", "1e3", "0x1"]
GOOD_PLACES = ["dir", "new/nested", "tracés ☃"]
BAD_PLACES = ["", " ", "/dev/null", "file", "file/below"]


def mostly(valid: list, bad: list):
    """One of `valid` five times in six, else one of `bad`: many command lines then get past
    click to the checks behind it, and most hold one hostile value or two."""
    return st.one_of(*[st.sampled_from(valid)] * 5, st.sampled_from(bad))


def place(kind: str, folder: Path) -> str:
    """A path of the given kind, inside `folder` where it names a place (`dir` exists, `file` is
    a regular file, `new/nested` does not exist yet); the empty, blank and /dev/null ones as they are."""
    return kind if kind in ("", " ", "/dev/null") else str(folder / kind)


def parameter(name: str):
    """The declared parameter `name` (of whichever model has it)."""
    return next(p for kind in MODELS.values() for p in kind.params if p.name == name)


@st.composite
def parameter_options(draw, model: str, small: list[str], lists: list[str] = ()) -> list[str]:
    """An option for every parameter of `model` (fetch's for an unknown model): a whole number
    from `small` (for a sweep also one of `lists`), a choice or a flag; then, one time in two,
    one of them (or a parameter of another model) hostile."""
    kind = MODELS.get(model, MODELS["fetch"])
    options = {}
    for p in kind.params:
        if p.kind == "flag":
            options[p.name] = draw(st.sampled_from(["on", "off", "both"] if lists else [None, "on", "off"]))
        elif p.kind == "choice":
            options[p.name] = draw(st.sampled_from([*p.choices, ",".join(p.choices)] if lists else list(p.choices)))
        else:
            options[p.name] = draw(st.sampled_from(small + list(lists)))
    if draw(st.booleans()):
        name = draw(st.sampled_from(sorted({p.name for k in MODELS.values() for p in k.params})))
        hostile = {"flag": ["", "yes", "on,,off"] if lists else ["no"], "choice": ["", "2", "ALL", "sync,"],
                   "int": BAD_INTS}[parameter(name).kind]
        options[name] = draw(st.sampled_from(hostile))
    out = []
    for name, value in options.items():
        if parameter(name).kind == "flag" and not lists:
            out += [] if value is None else [f"--{name}"] if value == "on" else [f"--no-{name}"]
        else:
            out += [f"--{name}", value]
    return out


@st.composite
def common_options(draw, folder: Path) -> list[str]:
    """Up to three of the options every search command takes, now and then hostile (the Spark
    options are checked even though the local engine ignores them), or an unknown option or
    argument."""
    values = {
        "--invariant": mostly(INVARIANT_NAMES, ["", "nope", "strong-isr,weak-isr", "ÉTÉ"]),
        "--trace-dir": mostly(GOOD_PLACES, BAD_PLACES).map(lambda kind: place(kind, folder)),
        "--master": mostly(["local[*]", "local[2]"], ["", "local[0]", "bogus://x", "spark://", "local[-1]"]),
        "--partitions": mostly(["1", "8"], ["0", "-1", "4097", "x", ""]),
        "--work-dir": mostly(GOOD_PLACES, BAD_PLACES).map(lambda kind: place(kind, folder)),
        "--engine": mostly(["local"], ["", "LOCAL", "sparkle", "spark "]),  # never spark: the last --engine counts
    }
    flags = ["--json", "--symmetry", "--no-symmetry", "--unknown", "extra"]
    out = []
    for name in draw(st.lists(st.sampled_from(sorted(values) * 2 + flags), max_size=3)):
        out += [name, draw(values[name])] if name in values else [name]
    return out


@st.composite
def check_command(draw, folder: Path) -> list[str]:
    """A `check` command line: local engine, a depth of at most 2 (or a bad one), any model,
    variant and parameters up to 3, now and then something hostile."""
    model = draw(mostly(["spec", "fetch", "two-phase"], ["", "raft", "SPEC", "spec,fetch"]))
    args = ["check", "--engine", "local", "--max-depth", draw(mostly(["0", "1", "2"], ["-1", "", "x", "2.0"])),
            "--model", model]
    variant = draw(st.one_of(st.none(), mostly(VARIANT_NAMES, ["", "kip999", "hw,kip101", "hw ", "ℌ𝔴"])))
    args += ["--variant", variant] if variant is not None else []
    args += draw(parameter_options(model, ["1", "2", "3"]))
    args += draw(st.sampled_from([[], ["--continue"]]))
    return args + draw(common_options(folder))


@st.composite
def compare_command(draw, folder: Path) -> list[str]:
    """A `compare` command line: local engine, every parameter at 1 (a search takes milliseconds)
    unless hostile, variant lists with spaces, empty, repeated and unknown names, sometimes
    --markdown or --render."""
    model = draw(mostly(["spec", "fetch"], ["two-phase", "", "raft"]))
    args = ["compare", "--engine", "local", "--model", model]
    variants = draw(st.one_of(st.none(), mostly(["hw", "hw,kip101", " kip320 , hw ", "hw,,hw"],
                                                [",", "", " , ", "kip999", "hw,kip999", "ℌ"])))
    args += ["--variants", variants] if variants is not None else []
    args += draw(parameter_options(model, ["1"]))
    args += draw(st.sampled_from([[], [], [], ["--markdown"], ["--render", "svg"], ["--render", "pdf"]]))
    return args + draw(common_options(folder))


@st.composite
def sweep_command(draw, folder: Path) -> list[str]:
    """A `sweep` command line: local engine, every parameter at 1 (or a list that only repeats 1)
    unless hostile, choices and flags swept over all their values, sometimes --render."""
    model = draw(mostly(["fetch", "spec"], ["two-phase", "", "raft"]))
    args = ["sweep", "--engine", "local", "--model", model]
    args += draw(parameter_options(model, ["1"], lists=["1,1", " 1 , ", "1,,1"]))
    args += draw(st.sampled_from([[], [], [], ["--markdown"], ["--render", "html"]]))
    return args + draw(common_options(folder))


def folder_with_places() -> tempfile.TemporaryDirectory:
    """A temporary folder holding a directory `dir` and a regular file `file`."""
    holder = tempfile.TemporaryDirectory()
    Path(holder.name, "dir").mkdir()
    Path(holder.name, "file").write_text("not a directory")
    return holder


def no_partial_files(folder: Path) -> None:
    """No temporary file (`.NAME.XXXX.tmp`) anywhere under `folder`, and every trace file in it
    loads back."""
    for root, _, names in os.walk(folder):
        for name in names:
            assert not name.endswith(".tmp"), (root, name)
            if name.endswith(".json"):
                load_trace(Path(root, name))


@hostile(80)
@given(data=st.data())
def test_check_compare_and_sweep_answer_hostile_command_lines_as_documented(data):
    command = data.draw(st.sampled_from([check_command, compare_command, sweep_command]), label="command")
    with folder_with_places() as folder:
        args = data.draw(command(Path(folder)), label="args")
        assert args[1:3] == ["--engine", "local"]
        result = invoke(args)
        assert_documented_answer(result, {0, 1, 2} if args[0] == "check" else {0, 2}, notices=True)
        assert Path(folder, "file").read_text() == "not a directory"
        no_partial_files(Path(folder))


@hostile(80)
@given(data=st.data())
def test_trace_commands_answer_hostile_paths_as_documented(found, data):
    with folder_with_places() as folder:
        Path(folder, "trace.json").write_text(found["spec-hw-strong-isr.json"])
        os.mkfifo(Path(folder, "fifo"))
        Path(folder, "link").symlink_to(Path(folder, "file"))
        kinds = GOOD_PLACES + BAD_PLACES + ["trace.json", "fifo", "link", "missing.json", "dir/"]
        source = place(data.draw(mostly(["trace.json"], kinds), label="source"), Path(folder))
        fmt = data.draw(mostly(["svg", "json", "dot"], ["pdf", "", "SVG"]), label="format")
        out = place(data.draw(mostly(["out.svg", "dir/out.svg"], kinds), label="output"), Path(folder))
        command = data.draw(st.sampled_from([["trace", "show", source], ["trace", "show", "--explain", source],
                                             ["replay", source], ["trace", "render", source, "--format", fmt],
                                             ["trace", "render", source, "--format", fmt, "-o", out],
                                             ["trace", "audit", source]]))
        result = invoke(command)
        assert_documented_answer(result, {0, 1, 2} if command[0] == "replay" or command[1] == "audit" else {0, 2})
        assert Path(folder, "trace.json").read_text() == found["spec-hw-strong-isr.json"]
        assert not any(name.endswith(".tmp") for _, _, names in os.walk(folder) for name in names)


# --- what the properties found, kept as plain tests ---------------------------------------------

def with_change(text: str, change) -> str:
    """The JSON document `text` after `change(doc)`."""
    doc = json.loads(text)
    change(doc)
    return json.dumps(doc)


@pytest.mark.parametrize("file, change, command, reason", [
    # fetch decoded a replica id as 1 << id: 2**64 was a MemoryError, 2**33 a gigabyte
    ("fetch-hw-committed-survives.json", lambda d: d["initial"]["controller"].update(isr=[2**64]), "trace",
     "the initial state holds a number out of range (beyond ±65,536)"),
    ("fetch-hw-committed-survives.json", lambda d: d["steps"][3]["state"]["brokers"][0].update(isr=[2**33]), "trace",
     "the state after step 4 holds a number out of range"),
    # a bounds key `ghost` clashed with build_model's own argument: a TypeError, a traceback for replay
    ("S5", lambda d: d["bounds"].update(ghost=True), "replay", "bounds name 'ghost', which is no parameter of model"),
    ("spec-hw-strong-isr.json", lambda d: d["bounds"].update(ghost=True), "trace", "bounds name 'ghost', which is no"),
    # a bounds key with a newline printed a two-line error
    ("spec-hw-strong-isr.json", lambda d: d["bounds"].update({"a\nb": 1}), "trace", "bounds name 'a\\nb'"),
    ("spec-hw-strong-isr.json", lambda d: d["steps"][0]["action"].__setitem__(0, "Elect\nLeader"), "trace",
     "step 1 (Elect\\nLeader) is not a successor"),
    ("spec-hw-strong-isr.json", lambda d: d.update(variant=["hw"]), "trace", "the variant must be a name or null"),
    # a step without words, or with a superscript digit, gave Python's own words
    ("S5", lambda d: d["steps"].__setitem__(0, " "), "replay", "step ' ' names no action"),
    ("S5", lambda d: d["steps"].__setitem__(0, "Crash r²"), "replay", "cannot read argument 'r²'"),
    ("S5", lambda d: d["steps"].__setitem__(0, "Crash r" + "9" * 5000), "replay", "cannot read argument 'r999"),
], ids=["huge-replica-id", "gigabyte-replica-id", "scenario-ghost-bound", "trace-ghost-bound", "newline-bound",
        "newline-action", "list-variant", "blank-step", "superscript-digit", "5000-digit-replica"])
def test_what_the_properties_found_is_one_line(found, tmp_path, file, change, command, reason):
    source = next(p for p in SCENARIOS if p.name.startswith(file)).read_text() if command == "replay" else found[file]
    path = tmp_path / "f.json"
    path.write_text(with_change(source, change))
    result = invoke(["replay", str(path)] if command == "replay" else ["trace", "show", str(path)])
    assert_one_error_line(result)
    assert reason in result.stderr


def set_action(step: int, action: list):
    """A change that makes step `step` (1-based) of a trace take `action`, its state kept."""
    return lambda d: d["steps"][step - 1].update(action=action)


def end_in_the_initial_state(steps: int):
    """A change that cuts a trace after `steps` steps and puts the initial state after the last."""
    def change(d):
        del d["steps"][steps:]
        d["steps"][-1]["state"] = d["initial"]
    return change


HW_TRACE = "fetch-hw-strong-isr.json"
"""A fetch hw counterexample of `found` (with ghost variables): 12 steps, the fourth a producer's write."""


@pytest.mark.parametrize("file, change, reason", [
    # corrupt traces that `trace audit` answered with a traceback and exit 1 (issue 65, item 6)
    (BEFORE_A_FIX, lambda d: d.update(ghost=None), "field 'ghost' is missing or of the wrong type"),
    (BEFORE_A_FIX, lambda d: d.update(ghost=1.5), "field 'ghost' is missing or of the wrong type"),
    (HW_TRACE, lambda d: d["steps"][0]["action"].__setitem__(1, 2**63), "step 1 ('BecomeFollower') is none it could"),
    (HW_TRACE, lambda d: d["steps"][0]["action"].__setitem__(1, 10**30), "step 1 ('BecomeFollower') is none it could"),
    (HW_TRACE, set_action(12, ["LeaderExpandIsr"]), "step 12 ('LeaderExpandIsr') is none it could take"),
    (KRAFT_TRACE, set_action(8, ["HandleVoteResponse"]), "step 8 ('HandleVoteResponse') is none it could take"),
    (HW_TRACE, set_action(1, ["Frobnicate", 1]), "step 1 ('Frobnicate') is none it could take"),
    (KRAFT_TRACE, set_action(1, ["Frobnicate", 1]), "step 1 ('Frobnicate') is none it could take"),
    (HW_TRACE, end_in_the_initial_state(4), "step 4 is not a step it takes: its 'ProducerWrite' leads to another"),
    (BEFORE_A_FIX, lambda d: d["bounds"].update(retries=True), "the initial state is no state of model fetch"),
    # traces of no steps that it judged as Kafka (exit 0)
    (HW_TRACE, lambda d: d.update(steps=[]), "the last state does not violate strong-isr"),
    (KRAFT_TRACE, lambda d: d.update(steps=[]), "the last state does not violate"),
    # beside them: a trace with ghost variables under a model without them
    (BEFORE_A_FIX, lambda d: d.update(ghost=False), "a state with ghost variables needs a model built with ghost"),
], ids=["ghost-null", "ghost-1.5", "argument-2**63", "argument-10**30", "fetch-action-without-arguments",
        "kraft-action-without-arguments", "fetch-unknown-action", "kraft-unknown-action", "last-state-the-initial",
        "retries-bound-true", "fetch-no-steps", "kraft-no-steps", "ghost-false"])
def test_trace_audit_refuses_a_corrupt_trace_in_one_line_as_trace_show_does(found, tmp_path, file, change, reason):
    path = tmp_path / "t.json"
    path.write_text(with_change(file.read_text() if isinstance(file, Path) else found[file], change))
    assert_one_error_line(invoke(["trace", "show", str(path)]))
    result = invoke(["trace", "audit", str(path)])
    assert_one_error_line(result)
    assert reason in result.stderr


@pytest.mark.parametrize("args", [
    ["check", "--engine", "local", "--max-depth", "0", "--trace-dir", "{folder}/file/new\nline"],
    ["trace", "render", "{trace}", "--format", "json", "-o", "{folder}/file/new\nline.json"],
], ids=["trace-dir", "render-output"])
def test_a_path_with_a_newline_is_still_one_error_line(found, tmp_path, args):
    (tmp_path / "file").write_text("not a directory")
    (tmp_path / "t.json").write_text(found["spec-hw-strong-isr.json"])
    assert_one_error_line(invoke([a.format(folder=tmp_path, trace=tmp_path / "t.json") for a in args]))


def test_an_escape_sequence_in_a_scenario_never_reaches_the_terminal(tmp_path):
    doc = json.loads(S1.read_text())
    doc["name"] += "\x1b[2J"
    doc["steps"][0] = {"step": doc["steps"][0] if isinstance(doc["steps"][0], str) else doc["steps"][0]["step"],
                       "note": "line one\nline two \x1b]0;title\x07"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    result = invoke(["replay", str(path)])
    assert_documented_answer(result, {0})
    assert "\\x1b[2J" in result.stdout and "line two \\x1b]0;title\\x07" in result.stdout


# --- limits -----------------------------------------------------------------------------------

def test_a_trace_file_of_too_many_steps_is_refused_naming_the_limit(found, tmp_path):
    doc = json.loads(found["spec-hw-strong-isr.json"])
    doc["steps"] = doc["steps"][:1] * (store.MAX_STEPS + 1)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    for command in (["trace", "show", str(path)], ["trace", "render", str(path), "--format", "json"],
                    ["trace", "audit", str(path)]):
        result = invoke(command)
        assert_one_error_line(result)
        assert f"{store.MAX_STEPS + 1:,} steps, more than the {store.MAX_STEPS:,}" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.json"]


def test_a_trace_file_at_the_step_limit_is_read(found, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(found["fetch-hw-committed-survives.json"])
    steps = len(json.loads(path.read_text())["steps"])
    for command in ("show", "audit"):
        monkeypatch.setattr(store, "MAX_STEPS", steps)
        # read and judged: KAFKA-1211's trace is one Kafka 0.10 takes, so the audit exits 0 too
        assert invoke(["trace", command, str(path)]).exit_code == 0
        monkeypatch.setattr(store, "MAX_STEPS", steps - 1)
        assert_one_error_line(invoke(["trace", command, str(path)]))


def test_a_scenario_of_too_many_steps_is_refused_naming_the_limit(tmp_path):
    doc = json.loads(S1.read_text())
    doc["steps"] = ["FollowerFetch r2"] * (store.MAX_STEPS + 1)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    result = invoke(["replay", str(path)])
    assert_one_error_line(result)
    assert f"{store.MAX_STEPS + 1:,} steps, more than the {store.MAX_STEPS:,}" in result.stderr


def long_trace(rounds: int) -> tuple[Trace, object]:
    """A real fetch hw trace, scenario S1 (23 steps) with `rounds` more idle fetch rounds (fetch,
    serve, apply: 3 steps each) before its crash."""
    scenario = load_scenario(S1)
    actions = [action for action, _ in scenario.steps]
    idle = [parse_step(s) for s in ("FollowerFetch r2", "LeaderServeFetch r1 r2", "FollowerApplyResponse r2")]
    actions = actions[:9] + idle * rounds + actions[9:]
    model = scenario.model
    states = walk(model, actions)
    return Trace("fetch", model.variant, dict(model.parameters()), "committed-survives", states[0],
                 tuple(Step(a, s) for a, s in zip(actions, states[1:]))), model


@pytest.fixture(scope="module")
def too_long_to_draw(tmp_path_factory) -> Path:
    """A real trace file with a step or two more than a picture may draw."""
    trace, model = long_trace(math.ceil((render_module.MAX_PICTURE_STEPS + 1 - len(long_trace(0)[0])) / 3))
    assert len(trace) > render_module.MAX_PICTURE_STEPS
    path = tmp_path_factory.mktemp("long") / "long.json"
    save_trace(trace, model, path)
    return path


@pytest.mark.parametrize("fmt, picture", [("svg", "lanes"), ("png", "lanes"), ("html", "lanes"), ("svg", "graph"),
                                          ("png", "graph")])
def test_a_trace_too_long_to_draw_is_refused_naming_the_limit(too_long_to_draw, tmp_path, fmt, picture):
    out = tmp_path / f"out.{fmt}"
    result = invoke(["trace", "render", str(too_long_to_draw), "--format", fmt, "--picture", picture, "-o", str(out)])
    assert_one_error_line(result)
    assert f"at most {render_module.MAX_PICTURE_STEPS} steps" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["dot", "graphml", "json"])
def test_a_trace_too_long_to_draw_still_renders_as_a_graph(too_long_to_draw, tmp_path, fmt):
    out = tmp_path / f"out.{fmt}"
    result = invoke(["trace", "render", str(too_long_to_draw), "--format", fmt, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


def test_a_trace_at_the_picture_limit_is_drawn(found, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(found["fetch-hw-committed-survives.json"])
    steps = len(json.loads(path.read_text())["steps"])
    monkeypatch.setattr(render_module, "MAX_PICTURE_STEPS", steps)
    assert invoke(["trace", "render", str(path), "--format", "svg", "-o", str(tmp_path / "a.svg")]).exit_code == 0
    monkeypatch.setattr(render_module, "MAX_PICTURE_STEPS", steps - 1)
    assert_one_error_line(invoke(["trace", "render", str(path), "--format", "svg", "-o", str(tmp_path / "b.svg")]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg", "t.json"]


@pytest.mark.parametrize("picture", ["lanes", "graph"])
def test_a_png_of_too_many_pixels_is_refused_naming_the_limit(found, tmp_path, monkeypatch, picture):
    path = tmp_path / "t.json"
    path.write_text(found["spec-hw-strong-isr.json"])
    monkeypatch.setattr(figure_file, "MAX_PNG_PIXELS", 10_000)
    monkeypatch.setenv("PATH", "")  # the graph picture through matplotlib, not Graphviz (which scales its own)
    out = tmp_path / "t.png"
    result = invoke(["trace", "render", str(path), "--format", "png", "--picture", picture, "-o", str(out)])
    assert_one_error_line(result)
    assert "pixels, more than the 10,000 a png may have" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
