"""Ctrl-C, SIGTERM and `kill -9` on a machine's first run, while a model's kernel compiles: in a
second process beside an uncompiled search (`checker.background_compile`), or in the run's own
process (numba, through llvmlite's callbacks, where Python cannot raise an interruption). The
run ends at once with its one line, and the compile, its helpers included, goes with it; a
Ctrl-C counts whatever the process inherited (a shell script's background job starts with
SIGINT ignored).

Each test uses a cache of its own, empty, so that the compile is under way when the signal goes;
the compile is stopped within seconds, so these tests cost a process start each."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time

import pytest

from checker import interrupts
from interrupting import PATIENCE, ROOT, progress_lines, started, until, wait_for
from spark_processes import tagged_processes, tagged_run

ERROR = "Error: interrupted by the user"


def _cold(tmp_path, *args: str, **popen) -> tuple[subprocess.Popen, str, object]:
    """`replcheck ARGS` on an empty kernel cache of its own, tagged (`tagged_run`), its stderr in
    a file: (process, tag, a function that returns what it wrote on stderr so far)."""
    err = tmp_path / "stderr"
    with open(err, "w") as stderr:
        proc, tag = tagged_run(*args, env_extra={"REPLCHECK_CACHE_DIR": str(tmp_path / "cache"),
                                                 "TMPDIR": str(_own(tmp_path / "tmp"))},
                               stderr=stderr, **popen)
    return proc, tag, err.read_text


def _own(path):
    path.mkdir()
    return path


def _compiled_parts(tmp_path) -> list[str]:
    """The parts of a kernel the run's cache holds compiled (`checker.kernel.warm.part`)."""
    return [p.name for p in (tmp_path / "cache").glob("kernels-*/compiled/*")]


def _gone(tag: str) -> None:
    """Wait until no process of the run tagged `tag` is left: the compile and its helpers too."""
    until(lambda: not tagged_processes(tag), "the run's processes going")


def _ignore_ctrl_c() -> None:
    """In the new process before Python starts: SIGINT ignored, as a shell script's `cmd &` has it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def test_ctrl_c_during_the_background_compile_ends_the_run_and_the_compile(tmp_path):
    """The issue's case (a), on a process that began with Ctrl-C ignored, as the tester's did:
    a run that searches uncompiled while its kernel compiles beside it ends on Ctrl-C with its
    one line, and the compile ends with it, its helpers too, leaving nothing compiled."""
    progress = tmp_path / "progress.jsonl"
    proc, tag, stderr = _cold(tmp_path, "check", "--engine", "local", "--model", "fetch", "--progress",
                              str(progress), preexec_fn=_ignore_ctrl_c)
    wait_for(progress_lines(progress), proc, "the uncompiled search's first level")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=PATIENCE)
    lines = stderr().splitlines()
    assert proc.returncode == 130, lines
    assert lines[0].startswith("compiling the fetch model's kernel for this machine in a second process"), lines
    assert len(lines) == 2 and lines[1].startswith(ERROR), lines
    _gone(tag)
    assert _compiled_parts(tmp_path) == [] and not any((tmp_path / "tmp").iterdir())


def test_kill_9_of_the_run_s_process_group_takes_the_background_compile_along(tmp_path):
    """The issue's item 5: the compile runs in a process group of its own (out of the terminal's
    Ctrl-C), so `kill -9` of the run's group does not reach it; it reads the run's lifeline and
    ends, with its helpers, as soon as the run is gone, instead of compiling on for a minute."""
    progress = tmp_path / "progress.jsonl"
    proc, tag, _ = _cold(tmp_path, "check", "--engine", "local", "--model", "fetch", "--progress", str(progress),
                         start_new_session=True)
    wait_for(progress_lines(progress), proc, "the uncompiled search's first level")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=PATIENCE)
    _gone(tag)
    assert _compiled_parts(tmp_path) == []


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_ctrl_c_during_a_compile_in_the_run_s_own_process_ends_it_at_once(tmp_path, engine):
    """The issue's case (b): `ablate` compiles its kernel in its own process before it searches
    (on either engine), where a Ctrl-C often lands in one of llvmlite's callbacks, which swallow
    it; the run still ends at once, with one line and no traceback, and nothing of it is left."""
    proc, tag, stderr = _cold(tmp_path, "ablate", "--engine", engine, "--model", "fetch", "--replicas", "3",
                              "--invariant", "committed-survives")
    wait_for(lambda: "compiling the fetch model's kernel for this machine" in stderr(), proc, "the compile's notice")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=PATIENCE)
    lines = stderr().splitlines()
    assert proc.returncode == 130, lines
    assert len(lines) == 2 and lines[1] == f"{ERROR}; no result or trace was written", lines
    _gone(tag)


def test_ctrl_c_stops_a_run_that_began_with_it_ignored(tmp_path):
    """A background job of a shell script starts with SIGINT ignored, and Python keeps it so; a
    search is still stopped by a Ctrl-C sent to it, as by SIGTERM."""
    from checker.progress import prepare_kernels
    from model.registry import build_model

    prepare_kernels([build_model("fetch", "kip320", replicas=3)])  # compiled beforehand: the run below searches
    progress = tmp_path / "progress.jsonl"
    proc = started("check", "--engine", "local", "--model", "fetch", "--replicas", "3", "--continue",
                   "--progress", str(progress), preexec_fn=_ignore_ctrl_c)
    wait_for(progress_lines(progress), proc, "the search's first level")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130 and err.strip().splitlines()[-1].startswith(ERROR), err


def test_a_ctrl_c_swallowed_by_a_ctypes_callback_is_sent_again_and_interrupts_after_it(monkeypatch):
    """What llvmlite does to a Ctrl-C while numba compiles, made with libc's qsort: the signal's
    KeyboardInterrupt is raised inside a ctypes callback, which prints it and goes on. Under
    `quiet_swallowed` nothing is printed, and the signal comes again once the callback has
    returned, where it interrupts the code that called into C."""
    monkeypatch.setattr(interrupts, "_RECEIVED", [])
    monkeypatch.setattr("sys.unraisablehook", interrupts.quiet_swallowed)
    monkeypatch.setattr("sys.stderr", open(os.devnull, "w"))  # the test's output shows what was printed: nothing
    previous = signal.signal(signal.SIGINT, interrupts.ctrl_c)
    compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    calls = []

    @compare
    def ctrl_c_inside(a, b):
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(1000))  # Python code runs: the handler raises here, inside the callback
        return 0

    values = (ctypes.c_int * 8)(*range(8))
    try:
        with pytest.raises(KeyboardInterrupt):
            ctypes.CDLL(None).qsort(values, len(values), ctypes.sizeof(ctypes.c_int), ctrl_c_inside)
            assert len(calls) > 1  # the sort went on past the swallowed interruption
            deadline = time.monotonic() + PATIENCE
            while time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert interrupts._RECEIVED.count(signal.SIGINT) >= 2


def test_an_error_after_a_received_signal_is_taken_as_its_interruption(monkeypatch):
    """A swallowed Ctrl-C may leave the library that swallowed it to fail later in its own words
    (numba: "no compiled object yet"); once a signal has come, such an error is its doing."""
    monkeypatch.setattr(interrupts, "_RECEIVED", [])
    assert interrupts.interruption_behind(RuntimeError("no compiled object yet")) is None
    interrupts._RECEIVED.append(signal.SIGINT)
    assert type(interrupts.interruption_behind(RuntimeError("no compiled object yet"))) is KeyboardInterrupt
    interrupts._RECEIVED.append(signal.SIGTERM)
    assert isinstance(interrupts.interruption_behind(RuntimeError()), interrupts.Terminated)


def test_after_a_signal_the_clean_up_errors_of_what_it_left_half_made_are_not_printed(monkeypatch, capsys):
    """An interrupted llvmlite object's `__del__` fails as the process ends; Python would print
    that traceback under the run's one line. Before any signal, such a report is printed."""
    class HalfMade:
        def __del__(self):
            raise AttributeError("'PipelineTuningOptions' object has no attribute '_as_parameter_'")

    monkeypatch.setattr(interrupts, "_RECEIVED", [])
    monkeypatch.setattr("sys.unraisablehook", interrupts.quiet_swallowed)
    HalfMade()
    assert "_as_parameter_" in capsys.readouterr().err
    interrupts._RECEIVED.append(signal.SIGINT)
    HalfMade()
    assert capsys.readouterr().err == ""


def test_a_helper_s_import_of_the_command_line_leaves_its_signals_alone():
    """multiprocessing's spawned helpers (`checker.kernel.side_compile`) import cli.py again, as
    `__mp_main__`. A signal that lands meanwhile (the run's Ctrl-C reaches its whole process
    group; the helper's end is a SIGTERM) must do what it does to the helper, not be held, and
    print a second "Error:" line under the run's."""
    code = ("import os, runpy, signal; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}); "
            "os.kill(os.getpid(), signal.SIGTERM); runpy.run_module('cli', run_name='__mp_main__'); "
            "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM}); print('went on')")
    helper = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE)
    assert (helper.returncode, helper.stdout, helper.stderr) == (-signal.SIGTERM, "", "")
