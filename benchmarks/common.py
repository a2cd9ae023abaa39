"""Shared parts of the benchmarks: one JSON object on stdout and a table on stderr, and an
earlier revision checked out to time side by side with this one."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import re

from rich.console import Console
from rich.table import Table

from checker.output_kinds import Kind

RESULTS_FILE = Kind("a benchmark results file", re.compile(rb"\s*\{"), b'"machine"')
"""benchmarks/results/*.json, which each benchmark rewrites with its own figures added."""
COMPILE_FIGURES = Kind("the compile figures", re.compile(rb"\s*\{"), b'"model.')
"""checker/kernel/compile_seconds.json, which `benchmarks.startup --cold` rewrites."""
PERFORMANCE_PAGE = Kind("the performance page", re.compile(rb"# Performance\n"))
"""docs/performance.md, whose tables `--readme` rewrites between their markers."""


def peak_rss_bytes() -> int:
    """This process's peak resident set size so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _cell(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3f}"


def emit(name: str, rows: list[dict]) -> None:
    """Print the runs as JSON on stdout and as a table on stderr (one row per figure, one
    column per run; list-valued figures appear in the JSON only)."""
    print(json.dumps({"benchmark": name, "runs": rows}, indent=2))
    table = Table(title=name, title_justify="left")
    table.add_column("figure")
    for i in range(len(rows)):
        table.add_column(f"run {i + 1}", justify="right")
    for key, value in rows[0].items():
        if not isinstance(value, list):
            table.add_row(key, *(_cell(row[key]) for row in rows))
    Console(file=sys.stderr, width=120).print(table)


ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "latest.json"
"""Where `python -m benchmarks` keeps its latest figures."""
PERFORMANCE = ROOT / "docs" / "performance.md"
"""The page whose tables the benchmarks rewrite (`--readme`): measured speed, memory and times."""


@contextlib.contextmanager
def revision_tree(revision: str) -> Iterator[Path]:
    """A checkout of `revision` in a temporary git worktree (removed afterwards), for timing
    an earlier revision side by side with this one."""
    with tempfile.TemporaryDirectory(prefix="replcheck-baseline-") as scratch:
        tree = Path(scratch) / "tree"
        made = subprocess.run(["git", "worktree", "add", "--detach", str(tree), revision], cwd=ROOT,
                              capture_output=True, text=True)
        if made.returncode:
            raise SystemExit(f"error: cannot check out {revision}: {made.stderr.strip()}")
        try:
            yield tree
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)


def machine() -> str:
    """The CPU, its core count and memory, in words."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        memory = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    except OSError:
        memory = 0
    return f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}"
