"""Interrupting a `replcheck` process in a test whatever the machine's speed: the process starts
with Ctrl-C and SIGTERM held back until cli.py's first statements are ready for them, and a test
waits for a sign from it (a progress line, a file), never for a number of seconds, before it
sends one.

Why start with the signals blocked: a signal that lands before cli.py's first line runs lands in
Python's own start-up (`site` and the editable install's import finder take 0.1 s on a quiet
2-core machine, seconds on a busy one), where no code of replcheck's can catch it, and Python
dies of it with a traceback, as any program would of a Ctrl-C before it began. Blocked, such a
signal stays pending; cli.py's first statements install the handler that records it and unblock
it, so it is delivered there. A test can then send one at any moment from the start, and the
outcome it checks (one line, exit 130 or 143) is the same whatever stage the run is at.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
HELD = {signal.SIGINT, signal.SIGTERM}
PATIENCE = 600.0
"""Seconds a test waits for a sign before it gives up: a guard against a run that hangs, long
enough for the slowest machine, never a guess at how long a step takes."""


def started(*args: str, **popen) -> subprocess.Popen:
    """`python -m cli ARGS` in a new process (text pipes for stdout and stderr unless `popen`
    says otherwise), with SIGINT and SIGTERM blocked until cli.py unblocks them (module
    docstring). The mask is set in this thread only while the process is created."""
    popen = {"cwd": ROOT, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True,
             "preexec_fn": _as_from_a_shell, **popen}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        return subprocess.Popen([sys.executable, "-m", "cli", *args], **popen)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _as_from_a_shell() -> None:
    """In the new process before it runs Python: Ctrl-C and SIGTERM do what they do for a
    command typed at a shell. A process inherits an ignored signal; cli.py takes Ctrl-C
    whatever it inherited (tests/test_interrupting_a_first_run.py checks that), but an ignored
    SIGTERM stays ignored until a command begins, so a test worker's own disposition, whatever
    set it, must not decide what the run does with one."""
    for signum in HELD:
        signal.signal(signum, signal.SIG_DFL)


def wait_for(sign: Callable[[], bool], proc: subprocess.Popen, what: str) -> None:
    """Return once `sign()` is true; fail if `proc` ends first, or after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while not sign():
        assert proc.poll() is None, f"the run ended before {what}: {(proc.communicate()[1] or '')[-2000:]}"
        if time.monotonic() >= deadline:
            proc.kill()  # a failed test leaves no search running behind it
            raise AssertionError(f"no sign of {what} in {PATIENCE:.0f} s")
        time.sleep(0.05)


def progress_lines(path: Path) -> Callable[[], bool]:
    """A sign for `wait_for`: the `--progress` log `path` holds a whole line (a search has
    finished a level and is going on)."""
    return lambda: path.exists() and b"\n" in path.read_bytes()


def until(condition: Callable[[], bool], what: str) -> None:
    """Return once `condition()` is true (a run's processes gone, say); fail after PATIENCE
    seconds."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen in {PATIENCE:.0f} s"
        time.sleep(0.1)


class Terminal:
    """A pseudo-terminal for a process's stderr, so that it shows the progress line it shows a
    person (rich draws it only on a terminal): `stderr` to pass to `started`, `text()` what
    arrived so far, `lines()` all of it once the process has ended, control sequences left out."""

    def __init__(self):
        self.reader, self.stderr = pty.openpty()
        self.received = b""

    def text(self) -> str:
        """What the process wrote so far (without waiting for more)."""
        while select.select([self.reader], [], [], 0)[0]:
            try:
                chunk = os.read(self.reader, 65536)
            except OSError:  # the process ended and closed its end
                break
            if not chunk:
                break
            self.received += chunk
        return self.received.decode(errors="replace")

    def ended(self, proc: subprocess.Popen) -> tuple[str, list[str]]:
        """(stdout, `lines()`) once `proc` has ended, reading the terminal meanwhile as a person's
        terminal does: a process whose progress line fills an unread pseudo-terminal blocks on
        its next write and never ends (a busy machine, slow to end a run, fills it first). Fails
        after PATIENCE seconds."""
        deadline = time.monotonic() + PATIENCE
        while True:
            self.text()
            try:
                out, _ = proc.communicate(timeout=0.1)
                return out, self.lines()
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    proc.kill()  # a failed test leaves no search running behind it
                    raise AssertionError(f"the run did not end in {PATIENCE:.0f} s")

    def lines(self) -> list[str]:
        """Every line the process wrote (call after it ended), without the terminal's control
        sequences and the progress line's redrawing."""
        os.close(self.stderr)
        text = self.text()
        os.close(self.reader)
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
        return [line.split("\r")[-1] for line in text.replace("\r\n", "\n").split("\n") if line.split("\r")[-1].strip()]
