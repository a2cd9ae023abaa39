"""Checkpoint and resume: a search stopped at any level, or killed at any moment, continues on
either engine, at any partition count, to exactly the result of an uninterrupted run."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from checker.checkpoint.identity import CheckpointError, RunIdentity
from checker.checkpoint.saver import Saver
from checker.checkpoint.snapshot import MANIFEST, sealed
from checker.local import explore
from checker.symmetry_choice import choose_symmetry
from conftest import run_cli
from interrupting import PATIENCE, started, wait_for
from invariants.registry import select
from model.registry import build_model
from test_spark_engine import _java_or_skip, same_results, sc  # noqa: F401 (sc is a fixture)

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    # spec, HW truncation, two replicas: 10,131 states over 19 levels; three invariants violated
    "spec": ("spec", "hw", {"replicas": 2}, ()),
    # fetch, HW truncation, one record, with symmetry and a step property: 20,526 orbits over 32 levels
    "fetch": ("fetch", "hw", {"max_records": 1}, ("committed-survives", "hw-monotonic", "leader-hw-monotonic",
                                                  "strong-isr")),
    # kraft, the TLA+ specification's steps with one restart: its own NoIllegalState fails, and the HW goes back
    "kraft": ("kraft", "tla", {"max_elections": 1, "max_restarts": 1}, ()),
    # kraft, Kafka 3.8's steps, one controller: a record acknowledged before its flush is lost in a crash
    "kraft-kafka": ("kraft", "kip595", {"replicas": 1, "max_elections": 2, "max_restarts": 1}, ()),
}


def _case(name):
    model_name, variant, bounds, names = CASES[name]
    invariants = select(model_name, names)
    model = build_model(model_name, variant, ghost=any(i.needs_ghost for i in invariants), **bounds)
    symmetry, _ = choose_symmetry([model], invariants, None)
    return model, invariants, symmetry


def _saver(directory, model, invariants, symmetry, max_depth=None, every=0.0):
    return Saver(directory, RunIdentity.of(model, invariants, symmetry), every, stop_at_first=False,
                 max_depth=max_depth)


def _search(engine, sc_, model, invariants, symmetry, saver=None, max_depth=None, partitions=None):
    if engine == "local":
        return explore(model, invariants, stop_at_first=False, max_depth=max_depth, symmetry=symmetry, saver=saver)
    from checker.spark.engine import explore_spark

    return explore_spark(sc_, model, invariants, partitions=partitions, stop_at_first=False, max_depth=max_depth,
                         symmetry=symmetry, saver=saver)


@pytest.mark.parametrize("case, writer, reader", [("spec", "local", "local"), ("fetch", "spark", "local"),
                                                  ("kraft", "local", "spark"), ("kraft-kafka", "local", "local")])
def test_a_search_stopped_at_any_level_resumes_to_the_uninterrupted_result(sc, tmp_path, case, writer, reader):
    """A run stopped at depth k (here by --max-depth) and resumed, on the other engine and at
    another partition count (local to Spark: see the SIGKILL tests), ends with the counts, per-level figures, verdicts and shortest
    traces of a run that never stopped."""
    model, invariants, symmetry = _case(case)
    whole = explore(model, invariants, stop_at_first=False, symmetry=symmetry)
    assert whole.violations  # the traces are part of what must agree
    # every stopping point on the fast local engine; an early one when Spark writes (a Spark
    # level with its journal costs a second or two, and the frontier it hands over is what counts)
    for depth in (0, whole.depth // 2, whole.depth) if writer == "local" else (5,):
        directory = tmp_path / f"{writer}-{depth}"
        first = _search(writer, sc, model, invariants, symmetry, _saver(directory, model, invariants, symmetry,
                                                                          depth), depth, partitions=3)
        assert first.depth == depth
        resumed = _search(reader, sc, model, invariants, symmetry,
                          _saver(directory, model, invariants, symmetry), partitions=2)
        same_results(resumed, whole)


def test_a_finished_checkpoint_reports_the_same_result_again(tmp_path):
    model, invariants, symmetry = _case("spec")
    whole = explore(model, invariants, stop_at_first=False, symmetry=symmetry,
                    saver=_saver(tmp_path, model, invariants, symmetry))
    again = explore(model, invariants, stop_at_first=False, symmetry=symmetry,
                    saver=_saver(tmp_path, model, invariants, symmetry))
    same_results(again, whole)
    assert not (tmp_path / "frontier").exists() or not any((tmp_path / "frontier").iterdir())  # nothing left to expand


# ---- killed at random moments, through the CLI ----

RUN = ["--model", "spec", "--variant", "kip101", "--max-records", "1", "--continue", "--json"]
"""192,952 states over 21 levels: a second or two of search locally, about ten on Spark."""


def _without_timings(doc: dict) -> dict:
    doc = {k: v for k, v in doc.items() if k not in ("seconds", "engine", "engine_options", "states_per_second")}
    doc["levels"] = [{k: v for k, v in level.items() if k not in ("seconds", "task_seconds")}
                     for level in doc["levels"]]
    return doc


@pytest.fixture(scope="module")
def uninterrupted():
    result = run_cli("check", "--engine", "local", *RUN)
    assert result.exit_code == 1, result.output
    return _without_timings(json.loads(result.stdout))


def _engine_args(engine: str, partitions: int) -> list[str]:
    if engine == "local":
        return ["--engine", "local"]
    return ["--engine", "spark", "--master", "local[2]", "--partitions", str(partitions)]


@pytest.mark.parametrize("writer, reader, seed", [("local", "spark", 1), ("local", "local", 2), ("spark", "local", 3)])
def test_a_run_killed_at_a_random_moment_resumes_to_the_uninterrupted_result(tmp_path, uninterrupted, writer, reader,
                                                                               seed):
    """SIGKILL gives the run no chance to save anything: what it left on disk must be a
    complete checkpoint (the last one), and resuming it must give the uninterrupted result."""
    if "spark" in (writer, reader):
        _java_or_skip()
    directory, scratch = tmp_path / "checkpoint", tmp_path / "tmp"
    scratch.mkdir()  # a killed run cannot remove its temporary directories: keep them out of the machine's
    proc = subprocess.Popen([sys.executable, "-m", "cli", "check", *RUN, *_engine_args(writer, 3),
                             "--checkpoint-dir", str(directory), "--checkpoint-every", "0"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=os.environ | {"TMPDIR": str(scratch)})
    wait_for((directory / MANIFEST).exists, proc, "the checkpoint's manifest")
    time.sleep(random.Random(seed).uniform(0.0, 1.5 if writer == "local" else 5.0))  # a moment, whatever it holds
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=PATIENCE)
    resumed = subprocess.run([sys.executable, "-m", "cli", "resume", str(directory), *_engine_args(reader, 2), "--json"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 1, resumed.stderr
    assert _without_timings(json.loads(resumed.stdout)) == uninterrupted


def test_ctrl_c_saves_a_final_checkpoint_and_says_how_to_resume(tmp_path, uninterrupted):
    directory = tmp_path / "checkpoint"
    proc = started("check", *RUN, "--engine", "local", "--checkpoint-dir", str(directory), "--checkpoint-every", "3600")
    # level 9 is journalled while level 8 is expanded, after the search took level 8 as its checkpoint
    wait_for((directory / "levels" / f"{9:08d}").exists, proc, "level 9 in the journal")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, err
    line = err.strip().splitlines()[-1]
    assert f"saved in {directory}: continue with `replcheck resume {directory}`" in line, line
    stopped = json.loads(out)
    assert stopped["interrupted"] == "SIGINT" and stopped["checkpoint"]["directory"] == str(directory)
    assert stopped["checkpoint"]["depth"] == stopped["depth"] >= 8  # an hour between checkpoints: this is the final one
    resumed = run_cli("resume", str(directory), "--engine", "local", "--json")
    assert _without_timings(json.loads(resumed.stdout)) == uninterrupted


# ---- refusals ----

@pytest.fixture
def saved(tmp_path):
    """A checkpoint of spec hw at depth 6."""
    result = run_cli("check", "--engine", "local", "--model", "spec", "--variant", "hw", "--replicas", "2",
                     "--max-depth", "6", "--continue", "--checkpoint-dir", str(tmp_path / "c"))
    assert result.exit_code == 1, result.output
    return tmp_path / "c"


@pytest.mark.parametrize("change, difference", [
    (["--variant", "kip101"], "variant hw there, kip101 here"),
    (["--variant", "hw", "--replicas", "3"], "--replicas 2 there, 3 here"),
    (["--variant", "hw", "--invariant", "weak-isr"],
     "invariants leader-in-isr-or-none, weak-isr, strong-isr there, weak-isr here"),
    (["--variant", "hw", "--no-symmetry"], "symmetry on there, off here"),
    (["--model", "fetch"], "model spec there, fetch here"),
])
def test_a_checkpoint_of_another_run_is_refused_naming_the_difference(saved, change, difference):
    saved_run = [(option, value) for option, value in (("--model", "spec"), ("--replicas", "2")) if option not in change]
    args = ["check", "--engine", "local", *(word for pair in saved_run for word in pair), *change,
            "--checkpoint-dir", str(saved)]
    result = run_cli(*args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and f"({difference})" in result.stderr, result.stderr


def _forge(directory: Path, edit) -> None:
    """Change the manifest with `edit` (a function of its document) and seal it again, as a
    forger would, so that the checks behind its SHA-256 see the change."""
    manifest = json.loads((directory / MANIFEST).read_text())
    edit(manifest)
    (directory / MANIFEST).write_text(json.dumps(sealed(manifest)))


def _forge_part(directory: Path, depth: int, arrays: dict) -> None:
    """Write level `depth`'s part file anew with `arrays`, its SHA-256 in the manifest with it."""
    part = directory / "levels" / f"{depth:08d}" / "part-00000.npz"
    np.savez(part.open("wb"), **arrays)
    digest = hashlib.sha256(part.read_bytes()).hexdigest()
    _forge(directory, lambda manifest: manifest["level_digests"][depth].update({part.name: digest}))


def test_a_checkpoint_of_other_model_sources_is_refused(saved):
    _forge(saved, lambda manifest: manifest["identity"].update(source="0123456789abcdef"))
    result = run_cli("resume", str(saved), "--engine", "local")
    assert result.exit_code == 2
    assert "the model source changed since (digest 0123456789abcdef there" in result.stderr


def test_the_same_run_continues_its_checkpoint(saved):
    result = run_cli("check", "--engine", "local", "--model", "spec", "--variant", "hw", "--replicas", "2",
                     "--continue", "--checkpoint-dir", str(saved), "--json")
    assert "resuming the checkpoint" in result.stderr and "depth 6" in result.stderr
    fresh = run_cli("check", "--engine", "local", "--model", "spec", "--variant", "hw", "--replicas", "2",
                    "--continue", "--json")
    assert _without_timings(json.loads(result.stdout)) == _without_timings(json.loads(fresh.stdout))


def _damage_manifest(directory: Path):
    (directory / MANIFEST).write_text('{"format": "replcheck-checkpoint/3", "depth": "six"')


def _foreign_manifest(directory: Path):
    (directory / MANIFEST).write_text('{"format": "something-else", "depth": 6}')


def _edit_manifest(directory: Path):
    manifest = json.loads((directory / MANIFEST).read_text())
    manifest["exhausted"] = True
    (directory / MANIFEST).write_text(json.dumps(manifest))


def _wrong_depth(directory: Path):
    _forge(directory, lambda manifest: manifest.update(depth=9))


def _no_frontier(directory: Path):
    _forge(directory, lambda manifest: manifest.update(frontier=False, frontier_digests={}))


def _truncate_a_level(directory: Path):
    part = directory / "levels" / f"{3:08d}" / "part-00000.npz"
    part.write_bytes(part.read_bytes()[:100])


def _drop_a_level(directory: Path):
    (directory / "levels" / f"{4:08d}" / "part-00000.npz").unlink()


def _edit_a_level(directory: Path):
    part = directory / "levels" / f"{2:08d}" / "part-00000.npz"
    with np.load(part) as npz:
        arrays = dict(npz)
    arrays["codes"][0] += 1
    np.savez(part.open("wb"), **arrays)


def _foreign_level(directory: Path):
    _forge_part(directory, 2, {"fps": np.arange(3)})


def _scramble_parents(directory: Path):
    with np.load(directory / "levels" / f"{5:08d}" / "part-00000.npz") as npz:
        arrays = dict(npz)
    _forge_part(directory, 5, {**arrays, "parents": arrays["parents"] + 1})


def _drop_the_frontier(directory: Path):
    for part in (directory / "frontier").rglob("*.npz"):
        part.unlink()


@pytest.mark.parametrize("damage, words", [
    (_damage_manifest, "is damaged"),
    (_foreign_manifest, "it is not a replcheck checkpoint"),
    (_edit_manifest, "its manifest is damaged (its SHA-256 does not match its content)"),
    (_wrong_depth, "its levels do not match its depth"),
    (_no_frontier, "it has no frontier to continue from"),
    (_truncate_a_level, "part-00000.npz is damaged"),
    (_drop_a_level, "level 4 has 0 of its 1 part files"),
    (_edit_a_level, "levels/00000002/part-00000.npz is damaged (its SHA-256 is not the one its manifest records)"),
    (_foreign_level, "part-00000.npz is damaged (no parents array"),
    (_scramble_parents, "its journal names a parent it does not hold"),
    (_drop_the_frontier, "the frontier of depth 6 is missing"),
])
def test_a_damaged_checkpoint_is_a_one_line_error(saved, damage, words):
    damaged_resume_fails(saved, damage, words, "local")


def test_a_damaged_checkpoint_is_a_one_line_error_on_spark_too(saved):
    _java_or_skip()
    damaged_resume_fails(saved, _scramble_parents, "its journal names a parent it does not hold", "spark")


def damaged_resume_fails(saved, damage, words, engine):
    """`resume` of the damaged checkpoint fails in one line, and leaves nothing in the temporary
    directory (on Spark, its log directory: the error is the checkpoint's, not Spark's)."""
    damage(saved)
    engine_args = ["--engine", "local"] if engine == "local" else ["--engine", "spark", "--master", "local[1]"]
    scratch = saved.parent / "tmp"
    scratch.mkdir()
    # in a process of its own: this module's Spark context would be in the way of another
    result = subprocess.run([sys.executable, "-m", "cli", "resume", str(saved), *engine_args], cwd=ROOT,
                            capture_output=True, text=True, timeout=300, env=os.environ | {"TMPDIR": str(scratch)})
    assert result.returncode == 2, result.stderr
    assert not any(scratch.iterdir()), sorted(map(str, scratch.rglob("*")))
    *notice, error = result.stderr.splitlines()  # the notice comes once the manifest has been read
    resuming = re.compile(rf"resuming the checkpoint in {re.escape(str(saved))}: depth 6, 299 distinct states, "
                          r"[0-9.]+ s of search so far")
    assert notice == [] or (len(notice) == 1 and resuming.fullmatch(notice[0])), notice
    assert error.startswith(f"Error: checkpoint {saved}: ") and words in error, error


@pytest.mark.parametrize("make, words", [
    (lambda p: None, "holds no checkpoint"),
    (lambda p: p.mkdir(), "holds no checkpoint"),
    (lambda p: p.write_text("x"), "is not a directory"),
])
def test_resume_refuses_what_is_not_a_checkpoint(tmp_path, make, words):
    target = tmp_path / "target"
    make(target)
    result = run_cli("resume", str(target), "--engine", "local")
    assert result.exit_code == 2 and words in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: ") and "Traceback" not in result.stderr


def test_checkpoints_need_a_compiled_kernel(tmp_path):
    model = build_model("two-phase")
    with pytest.raises(CheckpointError, match="compiled kernel"):
        explore(model, select("two-phase", ()), saver=_saver(tmp_path, model, select("two-phase", ()), False))
    result = run_cli("check", "--engine", "local", "--model", "two-phase", "--checkpoint-dir", str(tmp_path / "c"))
    assert result.exit_code == 2 and not (tmp_path / "c").exists()
    assert result.stderr == ("Error: --checkpoint-dir needs a model with a compiled kernel (spec, fetch, kraft), "
                             "and two-phase has none\n")


def test_files_written_after_the_last_checkpoint_are_dropped_on_resume(saved):
    stray = saved / "levels" / f"{7:08d}"
    stray.mkdir()
    (stray / "part-00000.npz").write_bytes(b"half")
    (saved / "frontier" / f"{7:08d}").mkdir()
    model, invariants, symmetry = build_model("spec", "hw", replicas=2), select("spec", ()), True
    Saver(saved, RunIdentity.of(model, invariants, symmetry), 60, stop_at_first=False, max_depth=None)
    assert not stray.exists() and not (saved / "frontier" / f"{7:08d}").exists()
    assert os.listdir(saved / "frontier") == [f"{6:08d}"]


def test_a_checkpoint_of_an_older_format_says_another_version_wrote_it(saved):
    manifest = json.loads((saved / MANIFEST).read_text())
    manifest["format"] = "replcheck-checkpoint/1"
    (saved / MANIFEST).write_text(json.dumps(manifest))
    result = run_cli("resume", str(saved), "--engine", "local")
    assert result.exit_code == 2
    assert "another replcheck version wrote it (format replcheck-checkpoint/1; this one reads " in result.stderr
