"""Shared output for the benchmarks: one JSON object on stdout, a table on stderr."""

from __future__ import annotations

import json
import resource
import sys

from rich.console import Console
from rich.table import Table


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
