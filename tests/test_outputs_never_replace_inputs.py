"""No output replaces an input (issue #28): every option that writes a file (--junit, --progress,
--trace-dir, -o) is refused, exit 2 with one line, when it names a file the same command reads
or a place inside the checkpoint directory it keeps, however it is spelled (the same path, `./`,
`dir/..`, absolute, a symlink, a hard link); and two outputs may not name one file.

Every command here reads a real file: a manifest, a trace, a checkpoint of a real run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.file_roles import command_files, refuse_to_replace, remember_read
from hostile import MANIFEST, assert_documented_answer, assert_one_error_line, hostile, invoke, no_spark  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_spark")


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """A folder with the files the commands read: a manifest, a trace, a finished checkpoint."""
    folder = tmp_path_factory.mktemp("sources")
    (folder / "small.toml").write_text(MANIFEST)
    traces = folder / "found"
    result = invoke(["check", "--model", "spec", "--variant", "hw", "--engine", "local", "--trace-dir", str(traces)])
    assert result.exit_code == 1, result.output
    (traces / "spec-hw-weak-isr.json").rename(folder / "trace.json")
    shutil.rmtree(traces)
    result = invoke(["check", "--model", "spec", "--replicas", "2", "--max-records", "1", "--engine", "local",
                     "--checkpoint-dir", str(folder / "ckpt")])
    assert result.exit_code == 0, result.output
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def spelling(how: str, target: Path, work: Path) -> str:
    """A path to `target` (in `work`) spelled `how`: as it is, with ./ or dir/.. in it, absolute,
    through a symlink or a hard link made in `work`, or a new file beside it (no clash)."""
    if how == "symlink":
        os.symlink(target, work / "link")
        return "link"
    if how == "hardlink":
        os.link(target, work / "hard")
        return "hard"
    return {"same": target.name, "dot": f"./{target.name}", "dotdot": f"sub/../{target.name}",
            "absolute": str(target), "other": "other.out"}[how]


SPELLINGS = ["same", "dot", "dotdot", "absolute", "symlink", "hardlink", "other"]

COMMANDS = {
    # name: (the command line, with {input} the file read and {out} the output's spelling; the input's name)
    "verify --junit": (["verify", "{input}", "--junit", "{out}"], "small.toml"),
    "trace render -o": (["trace", "render", "{input}", "--format", "json", "-o", "{out}"], "trace.json"),
    "trace render -o html": (["trace", "render", "{input}", "--format", "html", "-o", "{out}"], "trace.json"),
}


@hostile(40)
@given(command=st.sampled_from(sorted(COMMANDS)), how=st.sampled_from(SPELLINGS))
def test_an_output_that_names_the_input_is_refused_however_spelled(sources, tmp_path_factory, command, how):
    work = tmp_path_factory.mktemp("work")
    (work / "sub").mkdir()
    args, name = COMMANDS[command]
    shutil.copy(sources / name, work / name)
    before = snapshot(work)
    out = spelling(how, work / name, work)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        result = invoke([a.format(input=name, out=out) for a in args])
    finally:
        os.chdir(cwd)
    assert_documented_answer(result, {0, 2})
    assert (work / name).read_bytes() == before[name]
    if how == "other":
        assert result.exit_code == 0, result.output
    else:
        assert_one_error_line(result)
        assert "reads" in result.stderr or "not a regular file" in result.stderr, result.stderr
    assert not [p for p in work.rglob("*.tmp")]


def test_verify_junit_on_its_own_manifest_is_refused_and_the_manifest_kept(tmp_path):
    manifest = tmp_path / "small.toml"
    manifest.write_text(MANIFEST)
    result = invoke(["verify", str(manifest), "--junit", str(manifest)])
    assert_one_error_line(result)
    assert f"--junit {manifest} is MANIFEST {manifest}, which this command reads" in result.stderr
    assert manifest.read_text() == MANIFEST


@pytest.mark.parametrize("output", ["--progress", "--junit", "--trace-dir"])
@pytest.mark.parametrize("where", ["checkpoint.json", ".", "levels/x", "../ckpt/y"])
def test_no_output_goes_inside_the_checkpoint_directory(sources, tmp_path, output, where):
    ckpt = tmp_path / "ckpt"
    shutil.copytree(sources / "ckpt", ckpt)
    before = snapshot(ckpt)
    for command in (["check", "--model", "spec", "--replicas", "2", "--max-records", "1", "--engine", "local",
                     "--checkpoint-dir", str(ckpt)], ["resume", str(ckpt), "--engine", "local"]):
        if output == "--junit" and command[0] == "resume":
            continue  # resume writes no report
        result = invoke([*command, output, str(ckpt / where)])
        assert_documented_answer(result, {2})
        reasons = ("the checkpoint directory this command keeps", "is a file", "is a directory")  # click's own first
        assert any(reason in result.stderr for reason in reasons), result.stderr
        assert snapshot(ckpt) == before


def test_two_outputs_may_not_name_one_file(tmp_path):
    result = invoke(["check", "--model", "two-phase", "--engine", "local", "--junit", str(tmp_path / "a"),
                     "--progress", str(tmp_path / "./a")])
    assert_one_error_line(result)
    assert "name the same place" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_render_beside_its_trace_never_replaces_it(sources, tmp_path):
    """The default output of `trace render` is named after the trace: a trace saved as x.html
    would be its own default HTML page."""
    trace = tmp_path / "x.html"
    shutil.copy(sources / "trace.json", trace)
    result = invoke(["trace", "render", str(trace), "--format", "html"])
    assert_one_error_line(result)
    assert trace.read_bytes() == (sources / "trace.json").read_bytes()


def test_nothing_a_command_read_is_replaced_by_what_it_writes(tmp_path):
    """The net behind the option check: inside a command, a file read is never written over,
    by its path or through a hard link; outside one nothing is remembered."""
    from checker.atomic_file import write_atomically
    from checker.output_kinds import JUNIT
    from traces.store import read_text_file

    kept = "<?xml version='1.0' encoding='utf-8'?>\n<testsuites name=\"replcheck\" />\n"  # a report replcheck wrote
    read, link = tmp_path / "read.txt", tmp_path / "link.txt"
    read.write_text(kept)
    os.link(read, link)
    with command_files():
        read_text_file(read, "manifest")
        for target in (read, link, tmp_path / "." / "read.txt"):
            with pytest.raises(OSError, match="this command reads"):
                write_atomically(target, "lost", JUNIT)
        write_atomically(tmp_path / "new.txt", "fine", JUNIT)
    assert read.read_text() == kept
    write_atomically(link, "outside a command", JUNIT)
    remember_read(read)  # outside a command: not remembered
    refuse_to_replace(read)


def test_a_progress_log_never_appends_to_a_file_the_command_read(tmp_path, monkeypatch):
    from checker.progress import level_progress

    read = tmp_path / "read.txt"
    read.write_text("kept")
    with command_files():
        remember_read(read)
        with pytest.raises(OSError, match="this command reads"):
            with level_progress("label", read):
                pass
    assert read.read_text() == "kept"


def test_an_unrelated_trace_dir_and_report_work_together(tmp_path):
    """No false alarm: a report inside the trace directory is a normal layout."""
    (tmp_path / "out").mkdir()
    result = invoke(["check", "--model", "spec", "--variant", "hw", "--engine", "local",
                     "--trace-dir", str(tmp_path / "out"), "--junit", str(tmp_path / "out" / "report.xml")])
    assert result.exit_code == 1, result.output
    assert (tmp_path / "out" / "report.xml").exists()
    assert json.loads((tmp_path / "out" / "spec-hw-weak-isr.json").read_text())["invariant"] == "weak-isr"
