"""One rule for every file replcheck writes (issue 44, `checker.output_kinds`): an output never
replaces a file unless replcheck wrote it as the same kind of output, and a place it cannot
write is refused before the search, in one line, exit 2, with nothing of the user's changed and
nothing left behind; a re-run over a command's own earlier output still works.

One table drives every output option against every kind of user file: a saved trace, a
manifest, another run's checkpoint.json, a checkpoint's part file, the run's own trace, a
directory, a place on a read-only disk and one on a full disk.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hostile import MANIFEST, assert_documented_answer, assert_one_error_line, invoke, no_spark  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_spark")

SMALL = ["--model", "spec", "--variant", "hw", "--replicas", "2", "--max-records", "1", "--engine", "local"]
"""A run that finds weak-isr violated (exit 1) in a fraction of a second."""
OWN_TRACE = "spec-hw-weak-isr.json"
"""The trace a `check SMALL --invariant weak-isr --trace-dir D` saves in D."""
CHECK = ["check", *SMALL, "--invariant", "weak-isr"]

OPTIONS = {
    # name: (the command line, {out} the output option's value, {traces} the run's trace directory; file or directory)
    "check --junit": ([*CHECK, "--trace-dir", "{traces}", "--junit", "{out}"], "file"),
    "check --coverage-html": ([*CHECK, "--trace-dir", "{traces}", "--coverage-html", "{out}"], "file"),
    "check --progress": ([*CHECK, "--trace-dir", "{traces}", "--progress", "{out}"], "file"),
    "check --trace-dir": ([*CHECK, "--trace-dir", "{out}"], "directory"),
    "check --checkpoint-dir": ([*CHECK, "--trace-dir", "{traces}", "--checkpoint-dir", "{out}"], "directory"),
    "simulate --junit": (["simulate", *SMALL, "--walks", "5", "--trace-dir", "{traces}", "--junit", "{out}"], "file"),
    "compare --junit": (["compare", *SMALL[:2], *SMALL[4:], "--variants", "hw", "--trace-dir", "{traces}",
                         "--junit", "{out}"], "file"),
    "verify --junit": (["verify", "{sources}/small.toml", "--junit", "{out}"], "file"),
    "trace render -o svg": (["trace", "render", "{traces}/" + OWN_TRACE, "--format", "svg", "-o", "{out}"], "file"),
    "trace render -o html": (["trace", "render", "{traces}/" + OWN_TRACE, "--format", "html", "-o", "{out}"], "file"),
}

USER_FILES = ["saved trace", "manifest", "checkpoint.json", "part file", "own trace", "directory", "read-only",
              "full disk"]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and directory under `folder` (relative path -> bytes, None for a directory)."""
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """What users keep: a saved trace of another run, a manifest, another run's checkpoint."""
    folder = tmp_path_factory.mktemp("sources")
    (folder / "small.toml").write_text(MANIFEST)
    result = invoke(["check", *SMALL[:6], "--max-records", "2", "--engine", "local", "--invariant", "weak-isr",
                     "--trace-dir", str(folder)])
    assert result.exit_code == 1, result.output
    (folder / OWN_TRACE).rename(folder / "trace.json")
    result = invoke(["check", "--model", "spec", "--replicas", "2", "--max-records", "1", "--engine", "local",
                     "--checkpoint-dir", str(folder / "ckpt")])
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="module")
def own_trace(tmp_path_factory) -> bytes:
    """The trace the table's `check` saves, from an earlier run of it."""
    folder = tmp_path_factory.mktemp("own")
    assert invoke([*CHECK, "--trace-dir", str(folder)]).exit_code == 1
    return (folder / OWN_TRACE).read_bytes()


def mounted(folder: Path, size: str) -> bool:
    """Mount a tmpfs of `size` at `folder` (root only); False where this machine does not allow it."""
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def disks(tmp_path):
    """(a read-only disk, a full disk), each a small tmpfs; skipped where mounting is not allowed."""
    read_only, full = tmp_path / "ro", tmp_path / "full"
    if os.geteuid() != 0 or not mounted(read_only, "64k"):
        pytest.skip("a read-only and a full disk need a tmpfs mount (root, and a machine that allows it)")
    try:
        if not mounted(full, "64k"):
            pytest.skip("this machine allows one tmpfs mount, not two")
        (read_only / "kept.txt").write_text("the user's")
        subprocess.run(["mount", "-o", "remount,ro", str(read_only)], check=True)
        with open(full / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        yield read_only, full
    finally:
        for disk in (read_only, full):
            subprocess.run(["umount", str(disk)], capture_output=True)


def target(user_file: str, work: Path, sources: Path, traces: Path, own: bytes, disks) -> Path:
    """The path an output option is given: the user's file of this kind, placed in `work` (or on
    the read-only or full disk, or the run's own trace in its trace directory `traces`)."""
    if user_file == "saved trace":
        return Path(shutil.copy(sources / "trace.json", work / "trace.json"))
    if user_file == "manifest":
        return Path(shutil.copy(sources / "small.toml", work / "small.toml"))
    if user_file == "checkpoint.json":
        shutil.copytree(sources / "ckpt", work / "ckpt")
        return work / "ckpt" / "checkpoint.json"
    if user_file == "part file":
        shutil.copytree(sources / "ckpt", work / "ckpt")
        return work / "ckpt" / "levels" / "00000000" / "part-00000.npz"
    if user_file == "own trace":
        (traces / OWN_TRACE).write_bytes(own)
        return traces / OWN_TRACE
    if user_file == "directory":
        (work / "mine").mkdir()
        (work / "mine" / "notes.txt").write_text("the user's")
        return work / "mine"
    read_only, full = disks
    return (read_only if user_file == "read-only" else full) / "out"


@pytest.mark.parametrize("user_file", USER_FILES)
@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_no_output_replaces_a_users_file(sources, own_trace, tmp_path, request, option, user_file):
    args, shape = OPTIONS[option]
    if user_file == "directory" and option == "check --trace-dir":
        pytest.skip("a trace directory is a directory the user's files may share")
    if user_file == "own trace" and option.startswith("trace render"):
        pytest.skip("trace render saves no trace (its input is test_a_render_beside_its_trace_never_replaces_it's)")
    disks = request.getfixturevalue("disks") if user_file in ("read-only", "full disk") else None
    work, traces = tmp_path / "work", tmp_path / "traces"
    work.mkdir()
    traces.mkdir()
    (traces / OWN_TRACE).write_bytes(own_trace)  # what trace render reads
    out = target(user_file, work, sources, traces, own_trace, disks)
    before = snapshot(tmp_path)
    result = invoke([a.format(out=out, traces=traces, sources=sources) for a in args])
    assert_one_error_line(result)
    assert str(out) in result.stderr
    assert snapshot(tmp_path) == before, f"{option} changed the user's files: {result.stderr}"


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_a_rerun_over_its_own_earlier_output_works(sources, tmp_path, option):
    args, shape = OPTIONS[option]
    traces = tmp_path / "traces"
    traces.mkdir()
    if option.startswith("trace render"):
        shutil.copy(sources / "trace.json", traces / OWN_TRACE)  # what it reads
    out = tmp_path / ("out" if shape == "directory" else "out.file")
    line = [a.format(out=out, traces=traces, sources=sources) for a in args]
    first = invoke(line)
    assert_documented_answer(first, {0, 1})
    assert out.exists()
    again = invoke(line)
    assert again.exit_code == first.exit_code, again.output


def test_a_trace_of_another_run_in_the_trace_directory_is_refused_before_the_search(sources, tmp_path):
    shutil.copy(sources / "trace.json", tmp_path / OWN_TRACE)  # --max-records 2
    result = invoke([*CHECK, "--trace-dir", str(tmp_path)])
    assert_one_error_line(result)
    assert f"{tmp_path / OWN_TRACE}, which is a saved trace of another run (--max-records 2 there, 1 here)" \
        in result.stderr
    assert (tmp_path / OWN_TRACE).read_bytes() == (sources / "trace.json").read_bytes()


@pytest.mark.parametrize("edit", [
    lambda doc: doc["steps"][0].update(description="the user's own words"),
    lambda doc: doc.pop("sha256"),  # unsealed: an older replcheck's, or edited
])
def test_a_saved_trace_edited_since_it_was_written_is_kept(tmp_path, edit):
    """A re-run replaces its own saved trace, but not once the user has changed it: the trace
    carries the SHA-256 of what replcheck wrote, and one that no longer matches it is the user's."""
    assert invoke([*CHECK, "--trace-dir", str(tmp_path)]).exit_code == 1
    trace = tmp_path / OWN_TRACE
    doc = json.loads(trace.read_text())
    edit(doc)
    trace.write_text(json.dumps(doc))
    before = snapshot(tmp_path)
    result = invoke([*CHECK, "--trace-dir", str(tmp_path)])
    assert_one_error_line(result)
    assert f"{trace}, which is a saved trace " in result.stderr and "it is left as it is" in result.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("option, where", [("--trace-dir", "."), ("--trace-dir", "levels/traces"),
                                           ("--junit", "report.xml"), ("--coverage-html", "coverage.html")])
def test_no_output_goes_into_a_checkpoint_directory(sources, tmp_path, option, where):
    """`resume` refuses a checkpoint directory that holds anything but its checkpoint, so an output
    may not go into one, at any depth, even one this command does not keep."""
    ckpt = tmp_path / "ckpt"
    shutil.copytree(sources / "ckpt", ckpt)
    before = snapshot(tmp_path)
    result = invoke([*CHECK, option, str(ckpt / where)])
    assert_one_error_line(result)
    assert f"{ckpt}, a checkpoint directory" in result.stderr or "is a checkpoint directory" in result.stderr
    assert snapshot(tmp_path) == before


def test_an_output_naming_the_trace_this_run_saves_is_refused_before_the_search(tmp_path):
    """`check --coverage-html` given the very trace file the same run saves replaced the trace."""
    result = invoke([*CHECK, "--trace-dir", str(tmp_path), "--coverage-html", str(tmp_path / OWN_TRACE)])
    assert_one_error_line(result)
    assert "is a file this run writes into --trace-dir (a saved trace)" in result.stderr
    assert list(tmp_path.iterdir()) == []


def fail_with_a_full_disk(monkeypatch) -> None:
    """Make every atomic write and every progress line meet a full disk (ENOSPC) at its end."""
    import checker.atomic_file
    import checker.progress

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(checker.atomic_file.os, "fsync", full)
    monkeypatch.setattr(checker.progress.os, "write", full)


@pytest.mark.parametrize("output", ["--junit", "--coverage-html", "--progress", "--checkpoint-dir"])
def test_a_disk_that_fills_while_writing_leaves_nothing_behind(tmp_path, monkeypatch, output):
    out = tmp_path / "out"
    fail_with_a_full_disk(monkeypatch)
    result = invoke(["check", *SMALL, output, str(out)])
    assert_documented_answer(result, {2})
    assert "No space left on device" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_kept_before_the_disk_filled_stays(sources, tmp_path, monkeypatch):
    ckpt = tmp_path / "ckpt"
    shutil.copytree(sources / "ckpt", ckpt)
    before = snapshot(ckpt)
    fail_with_a_full_disk(monkeypatch)
    result = invoke(["check", "--model", "spec", "--replicas", "2", "--max-records", "1", "--engine", "local",
                     "--checkpoint-dir", str(ckpt), "--junit", str(tmp_path / "report.xml")])
    assert_documented_answer(result, {2}, notices=True)
    assert snapshot(ckpt) == before and sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]


def test_each_kind_is_recognised_by_its_content_not_its_name(tmp_path):
    """What replcheck writes carries its mark; the same bytes under any name are recognised, and
    a file that only looks like one by its name is not."""
    from checker.output_kinds import KNOWN, RENDERED, describe

    traces = tmp_path / "t"
    assert invoke([*CHECK, "--trace-dir", str(traces)]).exit_code == 1
    trace = traces / OWN_TRACE
    for fmt, kind in RENDERED.items():
        out = tmp_path / f"picture.{fmt}"
        assert invoke(["trace", "render", str(trace), "--format", fmt, "-o", str(out)]).exit_code == 0
        head = out.read_bytes()[:65536]
        assert describe(head, True) == kind.noun
        assert [k.noun for k in KNOWN if k.wrote(head)] == [kind.noun]
    assert describe(trace.read_bytes(), True) == "a saved trace"
    assert describe(b'<?xml version="1.0"?>\n<testsuites name="pytest">', True) == "a file"
    assert describe(b"<!DOCTYPE html><html></html>", True) == "a file"
