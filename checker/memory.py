"""How much memory a run holds right now: this process and its children (Spark's JVM and its
Python workers on the embedded master), read from /proc where there is one."""

from __future__ import annotations

import os
import resource
from pathlib import Path


def _rss_and_parent(pid: str) -> tuple[int, int]:
    """(resident bytes, parent pid) of a process, from /proc/<pid>/stat (fields 4 and 24)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE"), int(fields[1])


def resident_bytes() -> int:
    """Resident memory of this process and all its descendants now; where /proc is missing,
    this process's peak so far."""
    if not Path("/proc/self/stat").exists():
        scale = 1 if os.uname().sysname == "Darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                table[int(entry)] = _rss_and_parent(entry)
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
    children: dict[int, list[int]] = {}
    for pid, (_, parent) in table.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0, [os.getpid()]
    while stack:
        pid = stack.pop()
        total += table.get(pid, (0, 0))[0]
        stack.extend(children.get(pid, ()))
    return total
