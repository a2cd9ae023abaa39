"""`python -m benchmarks.readme_times`: run the documents' long examples, cold and warm.

An example that takes more than a minute is marked `<!-- example: long -->` (see
`benchmarks.readme_examples`) and left out of the test suite. This runs each one twice, in a
fresh process each time: cold, with an empty kernel cache (so the time includes compiling the
model's kernel, as on a new machine), then warm, with the cache that run filled. Both runs must
print what the document shows. The times go to `benchmarks/results/readme-times.json`, as JSON on
stdout and a table on stderr; `--readme` also rewrites the "Measured times" table of
docs/performance.md, which the documents' test compares with that file. `--only TEXT` runs the examples whose command contains
TEXT (the others keep their last record).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
from datetime import date
from pathlib import Path

from checker.atomic_file import write_atomically

from . import readme_examples as ex
from .common import PERFORMANCE, PERFORMANCE_PAGE, RESULTS_FILE, emit

RESULTS = Path(__file__).resolve().parent / "results" / "readme-times.json"
START, END = "<!-- readme-times:start -->", "<!-- readme-times:end -->"


def measure(example: ex.Example) -> list[dict]:
    """Run one long example cold then warm; one record per command. Raises AssertionError when
    a run does not print what the document shows."""
    records = []
    with tempfile.TemporaryDirectory(prefix="replcheck-readme-") as scratch:
        cache = Path(scratch) / "cache"
        env = dict(os.environ, REPLCHECK_CACHE_DIR=str(cache))
        seconds = {}
        for phase in ("cold", "warm"):
            workdir = Path(scratch) / phase
            workdir.mkdir()
            ran = ex.run(example, workdir, env)
            problems = ex.failures(ran)
            if problems:
                raise AssertionError(f"{example.name} ({phase}):\n" + "\n".join(problems))
            seconds[phase] = [one.seconds for one in ran]
        for i, command in enumerate(example.commands):
            records.append({"document": example.document, "command": command.text,
                            "cold_seconds": round(seconds["cold"][i], 1), "warm_seconds": round(seconds["warm"][i], 1)})
    return records


def times_section(recorded: dict) -> str:
    """The "Measured times" table of docs/performance.md, made from a results file."""
    lines = [START, f"Measured by `python -m benchmarks.readme_times` on {recorded['machine']} ({recorded['date']}): "
             "cold is a new machine (an empty kernel cache, so the model's kernel is compiled first), warm every "
             "run after it.", "", "| where | command | cold | warm |", "|---|---|---:|---:|"]
    for run in recorded["runs"]:
        lines.append(f"| {run['document']} | `{run['command']}` | {_duration(run['cold_seconds'])} | "
                     f"{_duration(run['warm_seconds'])} |")
    return "\n".join(lines + [END])


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def rewrite_table(recorded: dict) -> None:
    """Replace the table between its markers in docs/performance.md with one made from `recorded`."""
    text = PERFORMANCE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    write_atomically(PERFORMANCE, head + times_section(recorded) + tail, PERFORMANCE_PAGE)


def main(argv: list[str] | None = None) -> None:
    """Measure the long examples and record them (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.readme_times")
    parser.add_argument("--only", default=None, help="run only the examples whose command contains this text")
    parser.add_argument("--readme", action="store_true", help="also rewrite the measured-times table of docs/performance.md")
    args = parser.parse_args(argv)
    long_ones = [e for path in ex.documents() for e in ex.examples(path) if e.kind == "long"]
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": []}
    kept = {run["command"]: run for run in previous["runs"]}
    for example in long_ones:
        if args.only is None or any(args.only in c.text for c in example.commands):
            for record in measure(example):
                kept[record["command"]] = record
    order = [c.text for e in long_ones for c in e.commands]
    recorded = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                           f"Python {platform.python_version()}",
                "date": date.today().isoformat(), "runs": [kept[c] for c in order if c in kept]}
    write_atomically(RESULTS, json.dumps(recorded, indent=2) + "\n", RESULTS_FILE)
    emit("readme_times", recorded["runs"] or [{"runs": 0}])
    if args.readme:
        rewrite_table(recorded)


if __name__ == "__main__":
    main()
