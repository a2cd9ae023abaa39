"""Ending an embedded master's Python workers at once, on Ctrl-C or SIGTERM.

On an embedded master (`local[N]`) every Python worker is a descendant of the driver's JVM:
PySpark's daemon, and the workers it forks, one per running task. A cancelled Spark job does
not stop a task that is busy in a level (or in a whole ablation search): Spark kills its worker
only later, with SIGKILL or the daemon's SIGHUP, so the task's own clean-up never runs, and
until then it may still write level files. Ending the workers here first, and waiting until
they are gone, lets the run stop within a second and remove its tasks' scratch directories
knowing that nothing writes to them any more. On a cluster master the workers are the
executors' children, on other machines, and none is found here. Linux only (found through
/proc); elsewhere Spark's own cancellation is all there is.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

PROC = Path("/proc")
GONE_WAIT = 1.0
"""Seconds to wait at most for killed workers to be gone (a killed process ends within
milliseconds, once the system call it is in returns)."""


def end_python_workers(gateway) -> None:
    """Kill every process that the driver JVM of `gateway` (PySpark's JavaGateway, or None)
    started, and wait until they are gone (a zombie is gone: it runs nothing and holds no file),
    at most `GONE_WAIT` seconds."""
    jvm = getattr(gateway, "proc", None)
    if jvm is None or not PROC.is_dir():
        return
    found = _descendants(jvm.pid)
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + GONE_WAIT
    while any(_running(pid) for pid in found) and time.monotonic() < deadline:
        time.sleep(0.01)


def _descendants(root: int) -> list[int]:
    """The processes below `root` in the process tree, at this moment."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    pending, found = [root], []
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def _running(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, parent, ...), None when the
    process is gone."""
    try:
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
