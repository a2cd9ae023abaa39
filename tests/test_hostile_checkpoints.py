"""Hostile checkpoints (issue #28): real checkpoint directories, damaged by hypothesis, get the
CLI's documented answer from `replcheck resume` and `replcheck check --checkpoint-dir`, and a
damaged checkpoint is never taken for a good one: a run that goes on from it gives exactly the
result of a run that never stopped, or is refused in one line.

The contract is `hostile.py`'s. Every search runs on the local engine with small bounds; Spark
is never started. Some damage is also "sealed": the manifest's digests are brought up to date
with it, as a forger would, and then only the documented answer is asked for.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import struct
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.checkpoint.snapshot import MANIFEST, sealed
from hostile import assert_documented_answer, at, hostile, invoke, no_spark, places  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_spark")

LOCAL = ["--engine", "local", "--json"]
SPEC = ["--model", "spec", "--variant", "hw", "--replicas", "2"]
FETCH = ["--model", "fetch", "--variant", "hw", "--max-records", "1", "--log-size", "1", "--max-epoch", "1"]


class Saved(NamedTuple):
    """A checkpoint directory, the options of the run that wrote it, the --max-depth a resumed
    run goes on to (None: the end), and what an uninterrupted run to there reports."""

    directory: Path
    options: list[str]
    until: int | None
    expected: dict

    def __repr__(self) -> str:
        """Its name only, in hypothesis' reports."""
        return self.directory.name


def without_timings(doc: dict) -> dict:
    """A --json result without the figures that vary from run to run."""
    doc = {k: v for k, v in doc.items() if k not in ("seconds", "states_per_second")}
    doc["levels"] = [{k: v for k, v in level.items() if k not in ("seconds", "task_seconds")}
                     for level in doc["levels"]]
    return doc


def depth_option(depth: int | None) -> list[str]:
    """--max-depth DEPTH, or nothing."""
    return [] if depth is None else ["--max-depth", str(depth)]


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> list[Saved]:
    """Checkpoints of spec (stopped at depth 6, finished, stopped at its first violation) and of
    fetch with symmetry and a step property (stopped at depth 4)."""
    folder = tmp_path_factory.mktemp("saved")
    found = []
    for name, options, stop, until in [("spec-stopped", [*SPEC, "--continue"], 6, 12),
                                       ("spec-finished", [*SPEC, "--continue"], None, None),
                                       ("spec-first", SPEC, None, None),
                                       ("fetch-stopped", [*FETCH, "--continue"], 4, 10)]:
        directory = folder / name
        result = invoke(["check", *LOCAL, *options, *depth_option(stop), "--checkpoint-dir", str(directory)])
        assert result.exit_code == 1 and (directory / MANIFEST).is_file(), result.output
        whole = invoke(["check", *LOCAL, *options, *depth_option(until)])
        assert whole.exit_code == 1, whole.output
        found.append(Saved(directory, options, until, without_timings(json.loads(whole.stdout))))
    return found


# --- damage -----------------------------------------------------------------------------------

DEEP = "\x00deep\x00"
"""Stands for a list nested thousands deep (json.dumps cannot write one: it is spliced in)."""


def json_values():
    """Any JSON value: numbers thousands of digits long, NaN and infinities, nesting."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12),
                        st.sampled_from([10**4000, -10**4000, 2**63, 2**64, -1, 0, DEEP, "\x1b[31m" * 30,
                                         "9" * 5000]))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                        max_leaves=6)


def mutate_document(draw, doc):
    """`doc` with a value replaced by any JSON value, a key or item deleted, a key renamed, or a
    whole number nudged, negated or made huge."""
    how = draw(st.sampled_from(["replace", "delete", "rename", "number"]))
    numbers = [p for p in places(doc) if p and type(at(doc, p)) is int]
    folders = [p for p in places(doc) if isinstance(at(doc, p), dict) and at(doc, p)]
    if how == "rename" and folders:
        folder = at(doc, draw(st.sampled_from(folders)))
        folder[draw(st.text(max_size=8))] = folder.pop(draw(st.sampled_from(sorted(folder))))
        return doc
    if how == "number" and numbers:
        path = draw(st.sampled_from(numbers))
        old = at(doc, path)
        at(doc, path[:-1])[path[-1]] = draw(st.sampled_from([old + 1, old - 1, -old - 1, 10**4000, 2**63, -2**64]))
        return doc
    path = draw(st.sampled_from(places(doc)))
    if not path:
        return draw(json_values())
    if how == "delete":
        del at(doc, path[:-1])[path[-1]]
    else:
        at(doc, path[:-1])[path[-1]] = draw(json_values())
    return doc


def write_document(path: Path, doc) -> None:
    """Write `doc` as JSON, DEEP spliced in as a list nested 3,000 deep."""
    text = json.dumps(doc, indent=1)
    path.write_text(text.replace(json.dumps(DEEP), "[" * 3000 + "]" * 3000))


def reseal(directory: Path, part: Path) -> None:
    """Make the manifest name `part` as it now is, its own digest brought up to date too."""
    doc = json.loads((directory / MANIFEST).read_text())
    kind, depth = part.parts[-3], int(part.parts[-2])
    digests = doc["level_digests"][depth] if kind == "levels" else doc["frontier_digests"]
    digests[part.name] = hashlib.sha256(part.read_bytes()).hexdigest()
    (directory / MANIFEST).write_text(json.dumps(sealed(doc)))


def part_files(directory: Path) -> list[Path]:
    """The regular files under levels/ and frontier/."""
    return sorted(p for kind in ("levels", "frontier") for p in (directory / kind).rglob("*") if p.is_file())


def rewrite_arrays(draw, part: Path) -> bool:
    """The part file written again with one array of another type, shape, length or value,
    dropped, or one more array; whether only its values changed."""
    with np.load(part) as npz:
        arrays = dict(npz)
    name = draw(st.sampled_from(sorted(arrays)))
    a = arrays[name]
    how = draw(st.sampled_from(["dtype", "2-d", "0-d", "cut", "longer", "value", "drop", "extra"]))
    if how == "dtype":
        arrays[name] = a.astype(draw(st.sampled_from([np.int8, np.int32, np.uint16, np.uint64, np.float64, "U3"])))
    elif how == "2-d":
        arrays[name] = a.reshape(len(a), -1)[:, :1] if a.ndim == 2 else a.reshape(-1, 1)
    elif how == "0-d":
        arrays[name] = np.asarray(a.flat[0] if a.size else 0, a.dtype)
    elif how == "cut":
        arrays[name] = a[:draw(st.integers(0, max(len(a) - 1, 0)))]
    elif how == "longer":
        arrays[name] = np.concatenate([a, a[:1]])
    elif how == "value" and a.size:
        a = a.copy()
        a.flat[draw(st.integers(0, a.size - 1))] ^= draw(st.sampled_from([1, 64]))
        arrays[name] = a
    elif how == "drop":
        del arrays[name]
    else:
        arrays["extra"] = np.arange(3)
    with part.open("wb") as out:
        np.savez(out, **arrays)
    return how == "value"


def replace_by_other(draw, path: Path, directory: Path) -> None:
    """`path` (a part or the manifest) replaced by a directory, a FIFO, or a symlink to another
    part, to /dev/zero, to nowhere, or to itself."""
    how = draw(st.sampled_from(["directory", "fifo", "symlink", "/dev/zero", "dangling", "loop"]))
    path.unlink()
    if how == "directory":
        path.mkdir()
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "symlink":
        path.symlink_to(draw(st.sampled_from(part_files(directory))))
    else:
        path.symlink_to({"/dev/zero": "/dev/zero", "dangling": directory / "nowhere", "loop": path}[how])


def damage(draw, directory: Path) -> bool:
    """Damage the checkpoint in `directory` one way; whether the damage was sealed (the
    manifest's digests brought up to date with it, see `reseal`)."""
    manifest = directory / MANIFEST
    parts = part_files(directory)
    what = draw(st.sampled_from(["manifest json", "manifest json", "manifest bytes", "manifest kind", "part bytes",
                                 "part arrays", "part arrays", "part kind", "part files", "folders"]))
    seal = False
    if what == "manifest json":
        doc = json.loads(manifest.read_text())
        for _ in range(draw(st.integers(1, 2))):
            doc = mutate_document(draw, doc)
        seal = isinstance(doc, dict) and draw(st.booleans())
        write_document(manifest, sealed(doc) if seal else doc)
    elif what == "manifest bytes":
        data = manifest.read_bytes()
        where = draw(st.integers(0, len(data)))
        insert = draw(st.sampled_from([b"", b"\xff", b"\xed\xa0\x80", b"\x00", b"}", b"[" * 50_000, b"9" * 5000]))
        manifest.write_bytes(data[:where] + insert + data[where + draw(st.integers(0, 4)):])
    elif what == "manifest kind":
        replace_by_other(draw, manifest, directory)
    elif what == "part bytes":
        part = draw(st.sampled_from(parts))
        data = bytearray(part.read_bytes())
        where = draw(st.integers(0, len(data) - 1))
        how = draw(st.sampled_from(["truncate", "flip", "other part"]))
        if how == "truncate":
            del data[where:]
        elif how == "flip":
            data[where] ^= draw(st.integers(1, 255))
        else:
            data = draw(st.sampled_from(parts)).read_bytes()
        part.write_bytes(data)
    elif what == "part arrays":
        part = draw(st.sampled_from(parts))
        # values only are not sealed: forged action codes reach the kernel's trace walk, beyond
        # what a checkpoint can check without the states themselves
        seal = not rewrite_arrays(draw, part) and draw(st.booleans())
        if seal:
            reseal(directory, part)
    elif what == "part kind":
        replace_by_other(draw, draw(st.sampled_from(parts)), directory)
    elif what == "part files":
        part = draw(st.sampled_from(parts))
        if draw(st.booleans()):
            part.unlink()
        else:
            shutil.copy(draw(st.sampled_from(parts)), part.with_name("part-00001.npz"))
    else:
        folders = sorted(p for kind in ("levels", "frontier") if (directory / kind).is_dir()
                         for p in (directory / kind).iterdir())
        folder = draw(st.sampled_from(folders))
        how = draw(st.sampled_from(["delete", "rename", "stray deeper level"]))
        if how == "delete":
            shutil.rmtree(folder)
        elif how == "rename":
            target = folder.with_name(draw(st.sampled_from(["00000099", "00000003", "00000000", "7", "٣", "x"])))
            if target != folder and target.exists():  # the two swapped
                folder.rename(directory / "swap")
                target.rename(folder)
                folder = directory / "swap"
            folder.rename(target)
        else:  # a level written after the checkpoint by a run that was killed: dropped on resume
            stray = directory / "levels" / f"{len(list((directory / 'levels').iterdir())) + 2:08d}"
            stray.mkdir()
            shutil.copy(parts[0], stray / "part-00000.npz")
    return seal


class NoAnswer(BaseException):
    """A command took too long (a BaseException, so that no handler in it takes it for an error
    of its own and answers in one line)."""


@contextmanager
def answer_within(seconds: float):
    """NoAnswer in the block once `seconds` have passed (a FIFO read must not hang the test)."""
    def expire(*_):
        raise NoAnswer(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def temporary_files(directory: Path) -> list[str]:
    """Temporary files left under `directory` (half-written parts or manifests)."""
    return [name for _, _, names in os.walk(directory) for name in names if name.endswith(".tmp")]


@hostile(80)
@given(data=st.data())
def test_a_damaged_checkpoint_resumes_to_the_uninterrupted_result_or_is_refused(saved, data):
    case = data.draw(st.sampled_from(saved), label="checkpoint")
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder, "checkpoint")
        shutil.copytree(case.directory, directory, symlinks=True)
        forged = damage(data.draw, directory)
        if data.draw(st.booleans(), label="check --checkpoint-dir"):
            args = ["check", *LOCAL, *case.options, *depth_option(case.until), "--checkpoint-dir", str(directory)]
        else:
            args = ["resume", str(directory), *LOCAL, *depth_option(case.until)]
        with answer_within(60):
            result = invoke(args)
        assert_documented_answer(result, {0, 1, 2}, notices=True)
        if result.exit_code == 2:
            error = result.stderr.splitlines()[-1]
            assert error.startswith((f"Error: checkpoint {directory}: ", f"Error: {directory} holds no checkpoint")), error
            assert len(error) < 2 * len(str(directory)) + 1000, error  # fetch's 14 invariants may be named
        elif not forged:
            assert without_timings(json.loads(result.stdout)) == case.expected
        assert temporary_files(directory) == []


# --- what the property test found, one test each ------------------------------------------------

@pytest.fixture
def stopped(saved, tmp_path) -> Path:
    """A copy of the spec checkpoint stopped at depth 6."""
    shutil.copytree(saved[0].directory, tmp_path / "checkpoint")
    return tmp_path / "checkpoint"


def resume(directory: Path):
    """`replcheck resume` of a copy of the spec checkpoint, on to depth 12 as `saved` expects."""
    with answer_within(60):
        return invoke(["resume", str(directory), *LOCAL, "--max-depth", "12"])


def assert_refused(result, words: str) -> None:
    """Exit 2, with one short error line (after the notice that a checkpoint is resumed) that
    holds `words`."""
    assert_documented_answer(result, {2}, notices=True)
    error = result.stderr.splitlines()[-1]
    assert words in error and len(error) < 300, error


def edit_manifest(directory: Path, edit, seal: bool = False) -> None:
    """Change the manifest with `edit` (a function of its document); with `seal`, as a forger
    would, its SHA-256 too."""
    doc = json.loads((directory / MANIFEST).read_text())
    edit(doc)
    (directory / MANIFEST).write_text(json.dumps(sealed(doc) if seal else doc))


def level_part(directory: Path, depth: int, kind: str = "levels") -> Path:
    """The part file of level `depth` (of its frontier with `kind` "frontier")."""
    return directory / kind / f"{depth:08d}" / "part-00000.npz"


def edit_arrays(part: Path, edit) -> None:
    """Write `part` again with its arrays changed by `edit` (a function of the dict of them)."""
    with np.load(part) as npz:
        arrays = dict(npz)
    edit(arrays)
    with part.open("wb") as out:
        np.savez(out, **arrays)


@pytest.mark.parametrize("edit", [
    lambda doc: doc["identity"]["parameters"].update(log_size=3),  # resumed as another model: 7,057 states
    lambda doc: doc.update(exhausted=True),  # reported complete at depth 6, no invariant violated
    lambda doc: doc["levels"][2].update(generated=0),
], ids=["bounds", "exhausted", "counter"])
def test_an_edited_manifest_is_refused_not_continued(stopped, edit):
    edit_manifest(stopped, edit)
    assert_refused(resume(stopped), "its manifest is damaged (its SHA-256 does not match its content)")


@pytest.mark.parametrize("edit, words", [
    (lambda doc: doc["coverage"]["fired"][0].__setitem__(0, 10**4000), "its field 'coverage'"),  # OverflowError
    (lambda doc: doc["coverage"]["new"].pop(), "its field 'coverage'"),  # a kind's row missing
    (lambda doc: doc["levels"][2].update(new_states="x"), "its field 'levels'"),  # ValueError in a message
    (lambda doc: doc["levels"][6].update(seconds_total="x"), "its field 'levels'"),  # ValueError in the notice
    (lambda doc: doc["found"].update({"weak-isr": "12345"}), "names a state its journal does not hold"),
    (lambda doc: doc["identity"].update(model="\x1b[31m" * 20), "its run description is damaged"),
    (lambda doc: doc["identity"].pop("variant"), "its run description is damaged"),  # KeyError (None may be one)
    (lambda doc: doc.pop("max_depth"), "its field 'max_depth' is missing"),  # KeyError
], ids=["huge counter", "missing row", "count of text", "seconds of text", "unknown state", "escape sequence", "no variant",
        "no max_depth"])
def test_a_forged_manifest_is_a_one_line_error(stopped, edit, words):
    edit_manifest(stopped, edit, seal=True)
    assert_refused(resume(stopped), words)


@pytest.mark.parametrize("part, edit", [
    (("frontier", 6), lambda a: a["rows"].__setitem__((0, 0), a["rows"][0, 0] ^ 1)),  # 3,647 states, not 3,588
    (("levels", 3), lambda a: a["codes"].__setitem__(slice(None), a["codes"] ^ 1)),  # RuntimeError on a trace
], ids=["frontier row", "action codes"])
def test_a_part_file_with_other_values_is_refused(stopped, part, edit):
    kind, depth = part
    edit_arrays(level_part(stopped, depth, kind), edit)
    assert_refused(resume(stopped), f"{kind}/{depth:08d}/part-00000.npz is damaged (its SHA-256 is not the one")


def test_a_resealed_journal_of_other_action_codes_is_a_one_line_error(stopped):
    """A forger who rewrites the journal's action codes and records their SHA-256: the path they
    spell is not the model's, which the trace walk finds (it raised a RuntimeError)."""
    part = level_part(stopped, 3, "levels")
    edit_arrays(part, lambda a: a["codes"].__setitem__(slice(None), a["codes"] ^ 1))
    reseal(stopped, part)
    assert_refused(resume(stopped), "its journal records a path the model cannot take")


def crafted_header(part: Path) -> None:
    """An .npz archive whose array header is an escape sequence 900 times over (numpy quoted
    all 7,000 characters of it in its error)."""
    header = b"'" + b"\x1b[31m" * 900 + b"'"
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    with zipfile.ZipFile(part, "w") as archive:
        archive.writestr("fps.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header)


@pytest.mark.parametrize("forge, words", [
    (lambda p: edit_arrays(p, lambda a: a.update({k: v.reshape(-1, 1) for k, v in a.items()})),
     "no fps array of the right type"),  # numba's TypingError
    (lambda p: edit_arrays(p, lambda a: a.update({k: v[0] for k, v in a.items()})),
     "no fps array of the right type"),  # TypeError: len() of unsized object
    (lambda p: np.save(p.open("wb"), np.arange(3)), "it is not an .npz archive"),  # TypeError
    (crafted_header, 'is damaged ("Header is not a dictionary: '),
], ids=["2-d", "0-d", "npy", "header"])
def test_a_forged_part_file_is_a_one_line_error(stopped, forge, words):
    part = level_part(stopped, 0)
    forge(part)
    reseal(stopped, part)
    assert_refused(resume(stopped), words)


def test_a_part_file_that_is_a_fifo_is_refused_at_once(stopped):
    """It was opened for reading, which waits for a writer: resume hung."""
    level_part(stopped, 3).unlink()
    os.mkfifo(level_part(stopped, 3))
    assert_refused(resume(stopped), "levels/00000003/part-00000.npz is not a regular file")


@pytest.mark.parametrize("stray", [
    lambda levels: (levels / "9").mkdir(),  # FileNotFoundError: levels/00000009 was removed
    lambda levels: (levels / "00000009").write_text("x"),  # NotADirectoryError
    lambda levels: (levels / "00000009").symlink_to(levels / "00000001"),  # OSError from rmtree
], ids=["short name", "file", "symlink"])
def test_what_stands_under_a_deeper_level_name_is_dropped_on_resume(stopped, saved, stray):
    stray(stopped / "levels")
    result = resume(stopped)
    assert_documented_answer(result, {1}, notices=True)
    assert without_timings(json.loads(result.stdout)) == saved[0].expected
    assert level_part(stopped, 1).is_file()  # a link is removed, never what it points to


def test_a_checkpoint_directory_that_cannot_hold_levels_is_a_one_line_error(tmp_path):
    """NotADirectoryError when the first level was written."""
    (tmp_path / "levels").write_text("x")
    result = invoke(["check", *LOCAL, *SPEC, "--checkpoint-dir", str(tmp_path)])
    assert_refused(result, "cannot write levels/00000000/part-00000.npz: Not a directory")
