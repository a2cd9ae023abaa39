"""How much memory a run holds right now: this process and its children (Spark's JVM and its
Python workers on the embedded master), read from /proc where there is one."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path


def _rss_and_parent(pid: str) -> tuple[int, int]:
    """(resident bytes, parent pid) of a process, from /proc/<pid>/stat (fields 4 and 24)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE"), int(fields[1])


RESCAN = 1.0
"""Seconds between two full scans of /proc for this process's descendants; in between, only
the processes the last scan found are read, a file each."""
_tree: dict = {"pids": (), "at": None, "pid": None}


def resident_bytes() -> int:
    """Resident memory of this process and all its descendants now (a process started since the
    last full scan, at most `RESCAN` seconds ago, counts from the next); where /proc is missing,
    this process's peak so far."""
    if not Path("/proc/self/stat").exists():
        scale = 1 if os.uname().sysname == "Darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    now = time.monotonic()
    if _tree["at"] is None or now - _tree["at"] >= RESCAN or _tree["pid"] != os.getpid():
        _tree.update(pids=_descendants(), at=now, pid=os.getpid())
    total = 0
    for pid in _tree["pids"]:
        try:
            total += _rss_and_parent(str(pid))[0]
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
    return total


def _descendants() -> list[int]:
    """This process and every process below it, from one scan of /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                table[int(entry)] = _rss_and_parent(entry)[1]
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
    children: dict[int, list[int]] = {}
    for pid, parent in table.items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], [os.getpid()]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def memory_is_short(meminfo: Path = Path("/proc/meminfo")) -> bool:
    """Whether less than half of this machine's memory is available to new allocations (Linux's
    MemAvailable against MemTotal, from `meminfo`); True where that cannot be read."""
    try:
        fields = dict(line.split(":", 1) for line in meminfo.read_text().splitlines())
        return 2 * int(fields["MemAvailable"].split()[0]) < int(fields["MemTotal"].split()[0])
    except (OSError, KeyError, ValueError):
        return True
