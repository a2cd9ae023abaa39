"""What coverage costs: the same searches at this revision and at one from before coverage.

Coverage (`checker.coverage`) counts every action kind's enabled, fired and new steps on every
search, and the named guards when a run asks for them (`--coverage`), so its cost is the
difference between this revision and one without it, with and without `--coverage`. For each
revision (the baseline checked out in a temporary git worktree) and each case, this runs
`replcheck check --json` in a fresh process, on the local engine and on Spark, after a warm-up
run that compiles the revision's kernels, and reads the search's own seconds from the result,
`--repeat` times each, the runs alternating (baseline, this revision, this revision with
`--coverage`), and keeps each one's median. It prints (JSON on stdout, a table on stderr) per
case and engine the states, the median search seconds and states/s, and the costs in percent.

    python -m benchmarks.coverage --baseline eaf9c47          # the 10 M-state run, fetch at RF 3 (15 min)
    python -m benchmarks.coverage --baseline eaf9c47 --quick  # two small cases (a minute)

Run it on a quiet machine: the two revisions' searches alternate, so drift hits both alike.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import click

from .common import ROOT, emit, revision_tree

CASES = {
    "spec kip320 3/2/2/3": ["--model", "spec", "--variant", "kip320", "--replicas", "3", "--max-epoch", "3",
                            "--no-symmetry"],
    "fetch kip966 LRS bounds": ["--model", "fetch", "--variant", "kip966", "--replicas", "3",
                                "--min-insync-replicas", "2", "--flush", "async", "--log-size", "2",
                                "--max-records", "2", "--max-crashes", "1", "--max-epoch", "3",
                                "--invariant", "committed-survives"],
}
"""The 10 M-state run of the spec model (the engines benchmark's), and the fetch model at
replication factor 3 at the Last Replica Standing bounds (4.5 M orbits)."""
QUICK = {
    "spec kip320 3/2/2/2": ["--model", "spec", "--variant", "kip320", "--replicas", "3", "--no-symmetry"],
    "fetch kip320 RF2": ["--model", "fetch", "--variant", "kip320", "--replicas", "2"],
}
ENGINES = {"local": ["--engine", "local"], "spark": ["--engine", "spark", "--master", "local[2]"]}


def search_seconds(tree: Path, args: list[str]) -> tuple[int, float]:
    """(distinct states, search seconds) of `replcheck check ARGS --json` run from `tree`."""
    out = subprocess.run([sys.executable, "-c", "from cli import main; main()", "check", *args, "--json"],
                         cwd=tree, capture_output=True, text=True, env=_env(tree))
    if out.returncode not in (0, 1):
        raise click.ClickException(f"{tree}: check {' '.join(args)} failed: {out.stderr.strip()[-500:]}")
    doc = json.loads(out.stdout)
    return doc["distinct_states"], doc["seconds"]


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree)}


@click.command()
@click.option("--baseline", required=True, help="a git revision from before coverage (e.g. eaf9c47)")
@click.option("--quick", is_flag=True, help="two small cases instead of the 10 M-state run")
@click.option("--engine", "engines", multiple=True, type=click.Choice(list(ENGINES)), default=tuple(ENGINES),
              show_default=True)
@click.option("--repeat", default=3, show_default=True, help="runs of each case per revision (the median counts)")
@click.option("--only", default=None, metavar="TEXT", help="only the cases whose name contains TEXT")
def main(baseline, quick, engines, repeat, only):
    """Run every case on both revisions and report the cost of coverage."""
    cases = {name: args for name, args in (QUICK if quick else CASES).items() if only is None or only in name}
    rows = []
    with revision_tree(baseline) as old:
        for tree in (old, ROOT):  # compile each revision's kernels before any timed run
            for args in QUICK.values():
                search_seconds(tree, [*args, "--engine", "local", "--max-depth", "2"])
        for name, args in cases.items():
            for engine in engines:
                trio = ((old, []), (ROOT, []), (ROOT, ["--coverage"]))
                runs = [[search_seconds(tree, [*args, *ENGINES[engine], *extra]) for tree, extra in trio]
                        for _ in range(repeat)]
                counts = {states for triple in runs for states, _ in triple}
                assert len(counts) == 1, f"{name}: the runs disagree ({sorted(counts)} states)"
                states = counts.pop()
                before, after, counted = (statistics.median(triple[i][1] for triple in runs) for i in (0, 1, 2))
                rows.append({"case": name, "engine": engine, "distinct_states": states,
                             "baseline_seconds": before, "seconds": after, "coverage_seconds": counted,
                             "baseline_states_per_s": round(states / before), "states_per_s": round(states / after),
                             "cost_percent": round(100 * (after / before - 1), 1),
                             "coverage_cost_percent": round(100 * (counted / before - 1), 1)})
    emit("coverage", rows)


if __name__ == "__main__":
    main()
