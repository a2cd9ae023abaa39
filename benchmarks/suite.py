"""The benchmark suite: `python -m benchmarks [--only TEXT] [--readme]`.

Each case runs in a fresh process (`benchmarks.case`), so its wall time includes Python start-up,
imports and loading the compiled kernel, and its peak RSS is its own. The first case of each
model also runs on an empty kernel cache, which measures the one-time compile. Results go to
benchmarks/results/latest.json (merged with earlier results of cases not run this time) and to
a table; `--readme` rewrites the performance page (docs/performance.md) from that file. `--baseline REVISION`
runs each case first at that revision (a temporary git worktree), then at this one, and reports
the speedup of the search.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import click
from rich.console import Console
from rich.table import Table

from checker.atomic_file import write_atomically

from .common import PERFORMANCE, PERFORMANCE_PAGE, RESULTS, RESULTS_FILE, ROOT, machine, revision_tree

START, END = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"


class Case(NamedTuple):
    """One exploration to benchmark, and TLC's time for it where the reference figures give one."""

    model: str
    variant: str
    bounds: str
    symmetry: bool
    engine: str = "local"
    all_invariants: bool = False
    tlc_seconds: float | None = None
    invariants: tuple[str, ...] = ()
    """The invariants checked, by name, where not `all_invariants` or none."""

    @property
    def name(self) -> str:
        return (f"{self.model} {self.variant} {self.bounds or 'default'} {self.engine} "
                f"symmetry {'on' if self.symmetry else 'off'}")


SPEC_3222 = "replicas=3,log-size=2,max-records=2,max-epoch=2"
SPEC_3223 = "replicas=3,log-size=2,max-records=2,max-epoch=3"
FETCH_RF3 = "replicas=3"
FETCH_MAJORITY = "replicas=3,log-size=1,max-epoch=3,max-crashes=0,quorum=majority"
"""Raft's Figure 8 bounds: two writes to one offset, four epochs, no crash (556,090 orbits)."""
FETCH_IDEMPOTENT = "replicas=3,log-size=3,max-crashes=1,retries=on,max-in-flight=2,idempotence=on"
"""The retrying, idempotent producer with two requests in flight, at replication factor 3."""
KRAFT_CFG = "replicas=3,max-records=1,max-elections=2,max-restarts=0"
"""The KRaft TLA+ specification's KRaft.cfg as published: three voters, one value, two elections."""
KRAFT_INVARIANTS = ("leader-has-acked-values", "no-log-divergence", "one-leader-per-epoch", "no-illegal-state")
"""The four invariants KRaft.cfg checks."""
KRAFT_VOTERS = "replicas=3,max-records=1,max-elections=1,max-restarts=1,max-disk-losses=0,spares=1,max-voter-changes=1"
"""Kafka 3.9's own steps (kip853) with dynamic voters: three controllers, one a spare, one voter
change, one election and one restart (2.6 million orbits)."""
TLC = {("kip320", SPEC_3222, False): 64.0, ("kip320", SPEC_3222, True): 21.0, ("hw", SPEC_3222, False): 128.0}
"""TLC's wall time, one worker, on this machine type (the project's reference figures)."""

SPARK_CORES = 2
"""The cores a Spark case runs on (`benchmarks.case` runs Spark on local[2])."""
VARIANTS = ("hw", "kip101", "kip279", "kip320")
CASES = [
    *[Case("spec", v, SPEC_3222, s, tlc_seconds=TLC.get((v, SPEC_3222, s))) for v in VARIANTS for s in (False, True)],
    *[Case("spec", "kip320", SPEC_3223, s) for s in (False, True)],
    *[Case("spec", "kip320", b, s, "spark") for b, s in ((SPEC_3222, False), (SPEC_3222, True), (SPEC_3223, False))],
    *[Case("fetch", v, FETCH_RF3, True, all_invariants=True) for v in VARIANTS],
    Case("fetch", "kip320", FETCH_RF3, False, all_invariants=True),
    Case("fetch", "kip320", FETCH_RF3, True, "spark", all_invariants=True),
    Case("fetch", "kip320", FETCH_RF3, False, "spark", all_invariants=True),
    Case("fetch", "kip320", FETCH_MAJORITY, True, all_invariants=True),
    Case("fetch", "kip320", FETCH_IDEMPOTENT, True, all_invariants=True),
    *[Case("kraft", "tla", KRAFT_CFG, True, engine, invariants=KRAFT_INVARIANTS) for engine in ("local", "spark")],
    *[Case("kraft", "kip853", KRAFT_VOTERS, True, engine, invariants=("leader-has-acked-values",))
      for engine in ("local", "spark")],
]


def run_case(case: Case, cache_dir: str | None = None, tree: Path = ROOT, compile_only: bool = False) -> dict:
    """Run one case in a fresh process, with the code of `tree` (a checkout of this repository);
    with `compile_only`, or with `cache_dir` (an empty kernel cache), only compile its kernel
    (there)."""
    command = [sys.executable, "-m", "benchmarks.case", "--model", case.model, "--variant", case.variant,
               "--bounds", case.bounds, "--engine", case.engine]
    command += ["--symmetry"] * case.symmetry + ["--all-invariants"] * case.all_invariants
    command += [arg for name in case.invariants for arg in ("--invariant", name)]
    command += ["--compile-only"] * (compile_only or bool(cache_dir))
    env = dict(os.environ, PYTHONPATH=str(tree), **({"REPLCHECK_CACHE_DIR": cache_dir} if cache_dir else {}))
    started = time.perf_counter()
    out = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if out.returncode != 0:
        raise click.ClickException(f"{case.name} failed: {out.stderr.strip().splitlines()[-1:]}")
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    if compile_only or cache_dir:
        return figures
    figures["wall_seconds"] = round(wall, 2)
    if case.tlc_seconds:
        figures["tlc_seconds"] = case.tlc_seconds
        figures["x_tlc_wall"] = round(case.tlc_seconds / wall, 1)
        figures["x_tlc_search"] = round(case.tlc_seconds / figures["search_seconds"], 1)
    return figures


def run_suite(cases: list[Case], baseline: tuple[str, Path] | None = None) -> dict:
    """Run the cases; the first of each model also on a cold cache. With a `baseline` (a
    revision and its checkout), each case runs there first, and its figures get the baseline's
    search seconds and the speedup. Returns name -> figures."""
    results, cold_done = {}, set()
    for case in cases:
        Console(stderr=True).print(f"[dim]running {case.name}[/]")
        for tree in ([baseline[1]] if baseline else []) + [ROOT]:  # a timed run must not include the compile
            run_case(case, tree=tree, compile_only=True)
        before = run_case(case, tree=baseline[1]) if baseline else None
        figures = run_case(case)
        figures["states_per_core_second"] = round(figures["distinct_states"] / figures["search_seconds"]
                                                  / (SPARK_CORES if case.engine == "spark" else 1))
        if before:
            if before["distinct_states"] != figures["distinct_states"]:
                raise click.ClickException(f"{case.name}: {baseline[0]} found {before['distinct_states']:,} states, "
                                           f"this revision {figures['distinct_states']:,}")
            figures["baseline"] = {"revision": baseline[0], "search_seconds": before["search_seconds"]}
            figures["speedup"] = round(before["search_seconds"] / figures["search_seconds"], 2)
        if case.model not in cold_done:
            with tempfile.TemporaryDirectory(prefix="replcheck-cold-") as cold:
                figures["kernel_seconds_cold"] = run_case(case, cold)["kernel_seconds"]
            cold_done.add(case.model)
        results[case.name] = {**case._asdict(), **figures}
    return results


def with_ratios(results: dict) -> dict:
    """Each Spark case's search time over the local engine's on the same case (when both ran)."""
    for name, figures in results.items():
        local = results.get(name.replace(" spark ", " local "))
        if figures["engine"] == "spark" and local:
            figures["ratio_spark_local"] = round(figures["search_seconds"] / local["search_seconds"], 2)
    return results


def table(results: dict) -> Table:
    """The results as a rich table."""
    out = Table(title="replcheck benchmarks", title_justify="left")
    columns = ["distinct_states", "generated_states", "kernel_seconds_cold", "kernel_seconds", "search_seconds",
               "wall_seconds", "generated_per_second", "peak_rss_bytes_per_state", "tree_peak_rss_bytes_per_state",
               "states_per_core_second", "speedup", "ratio_spark_local", "x_tlc_wall", "x_tlc_search"]
    out.add_column("case")
    for column in columns:
        out.add_column(column.replace("_", " "), justify="right")
    for name, figures in results.items():
        out.add_row(name, *(_cell(figures.get(c)) for c in columns))
    return out


def _cell(value) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}" if isinstance(value, float) else str(value)


def label(figures: dict) -> str:
    """A short name for a case in docs/performance.md: 'spec kip320 3/2/2/2 local, symmetry', 'fetch kip320
    RF=3 quorum=majority local, symmetry', 'kraft tla 3/1/2/0 spark, symmetry, 4 invariants'."""
    pairs = [item.split("=") for item in figures["bounds"].split(",") if item]
    bounds = "/".join(v for _, v in pairs) if figures["model"] in ("spec", "kraft") else \
        " ".join(f"RF={v}" if k == "replicas" else f"{k}={v}" for k, v in pairs)
    named = figures.get("invariants") or ()
    extra = ", every invariant" if figures.get("all_invariants") else \
        f", {len(named)} invariant{'s' * (len(named) != 1)}" if named else ""
    return (f"{figures['model']} {figures['variant']} {bounds} {figures['engine']}"
            f"{', symmetry' if figures['symmetry'] else ''}{extra}")


def projected(figures: dict) -> str:
    """The projection's error at a third of the levels, as 'states / time left / peak memory'."""
    ahead = figures.get("forecast_at_one_third")
    if not ahead:
        return "-"
    return " / ".join("-" if ahead.get(k) is None else f"{ahead[k]:.2f}"
                      for k in ("states_ratio", "seconds_left_ratio", "peak_memory_ratio"))


def markdown(document: dict) -> str:
    """The benchmark section of docs/performance.md, from a results document (with `python -m
    benchmarks.startup`'s figures below the table, where it has them)."""
    lines = [f"Measured by `python -m benchmarks` on {document['machine']} ({document['date']}). Each",
             "run is a fresh process exploring the whole state space (spec: R/L/M/E bounds, no invariant;",
             "fetch: the defaults but for the settings shown, every invariant that applies, with ghost state;",
             "kraft: voters/values/elections/restarts[/lost disks/spares/voter changes], for tla the four",
             "invariants of the TLA+ specification's KRaft.cfg, for kip853 leader-has-acked-values);",
             "compile is the kernel's one-time compile on an empty cache, then its load from the cache; wall",
             "includes Python start-up.",
             "Peak RSS is that of every process the run started (for Spark: the driver, its JVM and the",
             "Python workers), sampled every 50 ms. `spark/local` divides Spark's search time by the local",
             "engine's on the same case. `x TLC` divides TLC's time on the",
             "same bounds and symmetry setting (one worker, this machine type) by ours, where known.",
             "`projected at 1/3` is the progress line's projection after a third of the levels, divided by",
             "what happened: total states / search time left / peak memory (1.00 is exact).", "",
             "| case | distinct states | generated | compile cold / warm (s) | search (s) | wall (s) | generated/s "
             "| peak RSS B/state | spark/local | x TLC wall / search | projected at 1/3 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, f in document["results"].items():
        tlc = f"{f['x_tlc_wall']} / {f['x_tlc_search']}" if f.get("x_tlc_wall") else "-"
        cold = f"{f['kernel_seconds_cold']:.1f} / " if f.get("kernel_seconds_cold") else ""
        lines.append(f"| {label(f)} | {f['distinct_states']:,} | {f['generated_states']:,} | {cold}{f['kernel_seconds']:.2f} "
                     f"| {f['search_seconds']:.2f} | {f['wall_seconds']:.2f} | {f['generated_per_second']:,} "
                     f"| {f.get('tree_peak_rss_bytes_per_state', f['peak_rss_bytes_per_state']):,.0f} "
                     f"| {f.get('ratio_spark_local', '-')} | {tlc} | {projected(f)} |")
    if "startup" in document:
        from .startup import markdown as startup_markdown

        lines += ["", startup_markdown(document["startup"]).rstrip("\n")]
    if "startup_cold" in document:
        from .startup import cold_markdown

        lines += ["", cold_markdown(document["startup_cold"]).rstrip("\n")]
    return "\n".join(lines) + "\n"


@click.command()
@click.option("--only", default=None, help="run only the cases whose name contains this text")
@click.option("--readme", is_flag=True, help="rewrite the benchmark section of docs/performance.md from the results file")
@click.option("--baseline", default=None, metavar="REVISION",
              help="also run each case at this git revision first, and report the speedup")
def main(only, readme, baseline):
    """Run the benchmark suite (or a part of it) and record the results."""
    document = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"results": {}}
    cases = [c for c in CASES if only is None or only in c.name]
    if cases and not (readme and only is None and document["results"]):
        with revision_tree(baseline) if baseline else contextlib.nullcontext() as tree:
            document["results"].update(run_suite(cases, (baseline, tree) if baseline else None))
        document["machine"], document["date"] = machine(), time.strftime("%Y-%m-%d")
        order = [c.name for c in CASES]
        document["results"] = with_ratios(dict(sorted(document["results"].items(),
                                                      key=lambda kv: order.index(kv[0]) if kv[0] in order
                                                      else len(order))))
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(RESULTS, json.dumps(document, indent=2) + "\n", RESULTS_FILE)
    Console(stderr=True, width=200).print(table(document["results"]))
    print(json.dumps(document, indent=2))
    if readme:
        text = PERFORMANCE.read_text()
        if START not in text or END not in text:
            raise click.ClickException(f"{PERFORMANCE.name} has no {START} ... {END} section")
        head, rest = text.split(START, 1)
        write_atomically(PERFORMANCE, head + START + "\n" + markdown(document) + END + rest.split(END, 1)[1],
                         PERFORMANCE_PAGE)
