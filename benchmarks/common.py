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


def emit(name: str, rows: list[dict]) -> None:
    """Print the rows as JSON on stdout and as a rich table on stderr."""
    print(json.dumps({"benchmark": name, "runs": rows}, indent=2))
    table = Table(title=name, title_justify="left")
    for key in rows[0]:
        table.add_column(key, justify="right" if isinstance(rows[0][key], (int, float)) else "left")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else f"{v:,.2f}" if isinstance(v, float) else str(v)
                        for v in row.values()))
    Console(file=sys.stderr).print(table)
