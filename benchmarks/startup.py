"""Start-up: how long `replcheck` takes before it does any work, and the small run it dominates.

    python -m benchmarks.startup [--runs 10]
    python -m benchmarks.startup --cold [--runs 3]

Every figure is the wall time of fresh processes (`python -m cli`, as the console script runs
it) on a warm kernel cache, which one unmeasured run fills first; each is given as the minimum
and the median of `--runs` runs:

- help: `replcheck --help`;
- first state: from just before the process starts to the time its progress file
  (`--progress`) stamps level 0, the initial states generated on the loaded kernel;
- search: the search's own seconds, from the same progress file's last level;
- end to end: `replcheck check --engine local --no-symmetry --invariant leader-in-isr-or-none`
  (spec kip320 3/2/2/2, the defaults) with its tables going to a pipe; and TLC's time on the
  same case divided by it.

The runs write Python's bytecode caches as an installed Python does (PYTHONDONTWRITEBYTECODE,
which some sandboxes set, would have every run compile replcheck's modules from source again).

With `--tlc CLASSES --tlc-spec DIR`, TLC is timed on the same machine, back to back: a TLC run
(`tlc2.TLC`, one worker, breadth-first, `-deadlock`, on the public kafka-specification's
`Kip320` module in DIR at the same bounds, found in CLASSES: tla2tools.jar or a directory of
TLC's compiled classes) after each of the first `--tlc-runs` rounds of replcheck's runs, on the
first supported Java runtime found (as for Spark); the ratio is then to TLC's median time that
day, and without it to `TLC_SECONDS`.

With `--cold`, every run starts on an empty kernel cache, as on a new machine:

- first state, cold: for each model of `COLD_MODELS`, from starting a short `check` (its first
  levels) to the first generated state, which the run searches on the uncompiled kernel while it
  compiles in a second process (`checker.background_compile`); and that compile, as the
  compiling process recorded it (`checker.kernel.compile_seconds`), waited for before the next
  run;
- the README's main job: its first command line, run from a fresh clone of HEAD in a fresh
  virtual environment (install included).

The medians of the compiles are written to checker/kernel/compile_seconds.json, from which the
compile notice says how long a compile will take.

Prints JSON on stdout and a table on stderr, and records the figures under "startup" (or
"startup_cold") in benchmarks/results/latest.json, from which `python -m benchmarks --readme`
writes them into docs/performance.md.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from checker.atomic_file import write_atomically

from .common import COMPILE_FIGURES, RESULTS, RESULTS_FILE, ROOT, machine

CHECK = ("check", "--engine", "local", "--no-symmetry", "--invariant", "leader-in-isr-or-none")
"""The small run: spec kip320 3/2/2/2 (the defaults), every state, one invariant."""
TLC_SECONDS = 66.0
"""TLC's wall time on the same run (one worker, this machine type), as the issue measured it:
the end-to-end target of 1.0 s is 66 times faster."""
TARGETS = {"help": 0.15, "first_state": 0.3, "end_to_end": 1.0}
"""The issue's targets, in seconds."""


COLD_MODELS = {"spec": (), "fetch": (), "kraft": ()}
"""The models whose cold start is measured, each with the default bounds."""
COLD_TARGETS = {"first_state": 15.0, "readme_main_job": 60.0}
"""The issue's targets for a cold start, in seconds."""


TLC_CONFIG = """CONSTANTS
  Replicas = {r1, r2, r3}
  LogSize = 2
  MaxRecords = 2
  MaxLeaderEpoch = 2
INIT Init
NEXT Next
"""
"""TLC's model of the small run: spec kip320 3/2/2/2 (replicas as model values), no invariant."""
TLC_STATES = 737_794
"""The distinct states TLC reports on it, as replcheck counts them."""


def replcheck(*args: str, env: dict | None = None, codes=(0,)) -> subprocess.CompletedProcess:
    """Run `replcheck ARGS` in a fresh process from the repository root; its output is captured.
    An exit code outside `codes` is an error. Bytecode caches are written (module docstring)."""
    env = {**(os.environ if env is None else env)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, capture_output=True, text=True, env=env)
    if run.returncode not in codes:
        raise RuntimeError(f"replcheck {' '.join(args)} exited {run.returncode}: {run.stderr.strip()}")
    return run


def wall(*args: str) -> float:
    """Seconds from starting `replcheck ARGS` to its exit."""
    started = time.perf_counter()
    replcheck(*args)
    return time.perf_counter() - started


def tlc_model(spec: Path, scratch: Path) -> Path:
    """A directory under `scratch` holding the specification's modules (from `spec`) and the
    small run's model (`TLC_CONFIG`), for TLC to run in."""
    model = scratch / "tlc"
    model.mkdir(exist_ok=True)
    for module in spec.glob("*.tla"):
        (model / module.name).write_bytes(module.read_bytes())
    (model / "Kip320.cfg").write_text(TLC_CONFIG)
    return model


def tlc_seconds(java: Path, classes: Path, model: Path) -> float:
    """Seconds TLC (`classes`, run by `java`) takes, JVM start included, to explore the small
    run's states in `model` (`tlc_model`) on one worker; an error unless it finds the same
    `TLC_STATES`."""
    started = time.perf_counter()
    run = subprocess.run([str(java), "-XX:+UseParallelGC", "-cp", str(classes), "tlc2.TLC", "-workers", "1",
                          "-deadlock", "-metadir", str(model / "states"), "-config", "Kip320.cfg", "Kip320"],
                         cwd=model, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    found = re.search(r"states generated, ([\d,]+) distinct states found, 0 states left", run.stdout)
    if run.returncode != 0 or not found or int(found.group(1).replace(",", "")) != TLC_STATES:
        raise RuntimeError(f"TLC exited {run.returncode} without finding {TLC_STATES:,} states: "
                           f"{' '.join((run.stdout + run.stderr).split())[-400:]}")
    return seconds


def first_state(scratch: Path) -> tuple[float, float]:
    """(seconds from starting the small run to its first generated state, its search seconds),
    read off its progress file."""
    progress = scratch / "progress.jsonl"
    progress.unlink(missing_ok=True)
    started = time.time()  # the progress file stamps levels with the wall clock, to the millisecond
    replcheck(*CHECK, "--progress", str(progress))
    levels = [json.loads(line) for line in progress.read_text().splitlines()]
    assert levels[0]["depth"] == 0
    return levels[0]["time"] - started, levels[-1]["seconds"]


def cold_first_state(model: str, scratch: Path) -> tuple[float, float]:
    """(seconds from starting a short `check` of `model` on an empty kernel cache to its first
    generated state, seconds its compile took as the compiling process recorded it). The run
    searches at once on the uncompiled kernel and is over before the compile, which goes on in
    the background: it is waited for, so that it does not slow the next measurement."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    progress = scratch / f"{model}-progress.jsonl"
    progress.unlink(missing_ok=True)
    started = time.time()
    run = replcheck("check", "--engine", "local", "--model", model, *COLD_MODELS[model], "--max-depth", "2",
                    "--progress", str(progress), env={**os.environ, "REPLCHECK_CACHE_DIR": str(cache)},
                    codes=(0, 1))  # 1: an invariant is violated within the levels searched
    first = json.loads(progress.read_text().splitlines()[0])
    compiling = re.search(r"\(process (\d+)\)", run.stderr)
    if compiling:
        wait_for_exit(int(compiling.group(1)))
    compiled = json.loads((cache / "compile-seconds.json").read_text())
    return first["time"] - started, sum(compiled.values())


def wait_for_exit(pid: int, timeout: float | None = None) -> bool:
    """Wait for process `pid`, not a child of this one, to end (a zombie has ended), for at most
    `timeout` seconds (None: as long as it takes); whether it ended."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while deadline is None or time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.2)
    return False


def readme_main_job(scratch: Path) -> tuple[float, str]:
    """(seconds, the command) the README's main job takes from a fresh clone of HEAD in a fresh
    virtual environment on an empty kernel cache, install included."""
    lines = (ROOT / "README.md").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Install and run the main job"))
    command = next(line.strip() for line in lines[at + 1:] if line.startswith("    "))
    clone, venv = scratch / "clone", scratch / "venv"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv),
           "REPLCHECK_CACHE_DIR": str(scratch / "readme-cache")}
    started = time.perf_counter()
    subprocess.run(["bash", "-c", command], cwd=clone, env=env, check=True, capture_output=True)
    return time.perf_counter() - started, command


def measure_cold(runs: int) -> dict:
    """The cold figures (module docstring), `runs` fresh caches each; the median compiles are
    written to checker/kernel/compile_seconds.json."""
    first, compiles = {m: [] for m in COLD_MODELS}, {m: [] for m in COLD_MODELS}
    with tempfile.TemporaryDirectory(prefix="replcheck-cold-") as scratch:
        for model in COLD_MODELS:
            for _ in range(runs):
                seconds, compiled = cold_first_state(model, Path(scratch))
                first[model].append(seconds)
                compiles[model].append(compiled)
        job, command = readme_main_job(Path(scratch))
    from checker.commands.common import model_and_properties

    kernels = {model: model_and_properties(model, None, [], {})[0].kernel.module for model in COLD_MODELS}
    estimates = {kernels[m]: round(statistics.median(compiles[m]), 1) for m in COLD_MODELS}
    from checker.kernel.compile_seconds import MEASURED

    write_atomically(MEASURED, json.dumps(estimates, indent=1, sort_keys=True) + "\n", COMPILE_FIGURES)
    return {"runs": runs, "first_state": {m: spread(v) for m, v in first.items()},
            "compile": {m: spread(v) for m, v in compiles.items()},
            "readme_main_job": {"seconds": round(job, 1), "command": command},
            "targets": COLD_TARGETS, "machine": machine(), "date": time.strftime("%Y-%m-%d")}


def cold_table(figures: dict) -> Table:
    """The cold figures as a rich table."""
    out = Table(title=f"replcheck cold start ({figures['runs']} empty caches each)", title_justify="left")
    for column in ("", "first state min (s)", "median (s)", "compile beside it (median s)", "target (s)"):
        out.add_column(column, justify="left" if not column else "right")
    for model, first in figures["first_state"].items():
        out.add_row(model, f"{first['min']:.1f}", f"{first['median']:.1f}",
                    f"{figures['compile'][model]['median']:.1f}", f"{figures['targets']['first_state']:.0f}")
    out.add_row("README main job (fresh clone, install included)", "", f"{figures['readme_main_job']['seconds']:.1f}",
                "", f"{figures['targets']['readme_main_job']:.0f}")
    return out


def cold_markdown(figures: dict) -> str:
    """The cold figures as docs/performance.md shows them."""
    rows = [f"| {model} | {first['min']:.1f} | {first['median']:.1f} | {figures['compile'][model]['median']:.1f} "
            f"| {figures['targets']['first_state']:.0f} |" for model, first in figures["first_state"].items()]
    rows.append(f"| README main job, fresh clone and virtual environment, install included | | "
                f"{figures['readme_main_job']['seconds']:.1f} | | {figures['targets']['readme_main_job']:.0f} |")
    text = (f"Cold start, measured by `python -m benchmarks.startup --cold` ({figures['date']}, {figures['machine']}, "
            f"{figures['runs']} empty kernel caches each): from starting `replcheck check --engine local --model "
            f"MODEL --max-depth 2` (default bounds) to its first generated state, found on the uncompiled kernel "
            f"while the model's kernel compiles in a second process, and how long that compile took; and the "
            f"README's main job (`{figures['readme_main_job']['command']}`) from a fresh clone.")
    return "\n".join([*textwrap.wrap(text, 100, break_on_hyphens=False), "",
                      "| model | first state min (s) | median (s) | compile beside it, median (s) | target (s) |",
                      "|---|---:|---:|---:|---:|", *rows]) + "\n"


def spread(samples: list[float]) -> dict:
    """The minimum and the median of `samples`, in seconds."""
    return {"min": round(min(samples), 3), "median": round(statistics.median(samples), 3)}


def measure(runs: int, tlc: tuple[Path, Path] | None = None, tlc_runs: int = 3) -> dict:
    """Every figure (module docstring) over `runs` runs each, after one run that fills the cache;
    with `tlc` (TLC's classes, the specification's directory) TLC's time too, `tlc_runs` times
    between the first rounds."""
    replcheck(*CHECK)
    samples = {"help": [], "first_state": [], "search": [], "end_to_end": []}
    tlc_samples = []
    with tempfile.TemporaryDirectory(prefix="replcheck-startup-") as scratch:
        if tlc is not None:
            from checker.spark.java import find_java_home

            java, classes, model = find_java_home() / "bin" / "java", tlc[0], tlc_model(tlc[1], Path(scratch))
        for round_ in range(runs):
            samples["help"].append(wall("--help"))
            first, search = first_state(Path(scratch))
            samples["first_state"].append(first)
            samples["search"].append(search)
            samples["end_to_end"].append(wall(*CHECK))
            if tlc is not None and round_ < tlc_runs:
                tlc_samples.append(tlc_seconds(java, classes, model))
    figures = {name: spread(values) for name, values in samples.items()}
    end = figures["end_to_end"]
    measured = statistics.median(tlc_samples) if tlc_samples else None
    reference = round(measured, 1) if measured else TLC_SECONDS
    return {"runs": runs, "command": "replcheck " + " ".join(CHECK), **figures, "tlc_seconds": reference,
            "tlc": {"measured": bool(tlc_samples), "runs": len(tlc_samples), **(spread(tlc_samples) if tlc_samples else {})},
            "x_tlc_end_to_end": {"min": round(reference / end["min"], 1),
                                 "median": round(reference / end["median"], 1)},
            "targets": TARGETS, "machine": machine(), "date": time.strftime("%Y-%m-%d")}


def table(figures: dict) -> Table:
    """The figures as a rich table: one row per measurement."""
    out = Table(title=f"replcheck start-up ({figures['runs']} runs each, warm cache)", title_justify="left")
    for column in ("", "min (s)", "median (s)", "target (s)"):
        out.add_column(column, justify="left" if not column else "right")
    for name in ("help", "first_state", "search", "end_to_end"):
        target = figures["targets"].get(name)
        out.add_row(name.replace("_", " "), f"{figures[name]['min']:.3f}", f"{figures[name]['median']:.3f}",
                    f"{target:.2f}" if target else "-")
    x = figures["x_tlc_end_to_end"]
    out.add_row(f"x TLC ({figures['tlc_seconds']:.0f} s) end to end", f"{x['min']}", f"{x['median']}",
                f"{figures['tlc_seconds'] / figures['targets']['end_to_end']:.0f}")
    return out


def markdown(figures: dict) -> str:
    """The start-up figures as docs/performance.md shows them."""
    rows = []
    for name in ("help", "first_state", "search", "end_to_end"):
        target = figures["targets"].get(name)
        rows.append(f"| {name.replace('_', ' ')} | {figures[name]['min']:.2f} | {figures[name]['median']:.2f} "
                    f"| {f'{target:.2f}' if target else '-'} |")
    x, tlc = figures["x_tlc_end_to_end"], figures.get("tlc", {})
    command = f"`python -m benchmarks.startup{' --tlc CLASSES --tlc-spec DIR' if tlc.get('measured') else ''}`"
    against = (f"TLC, run {tlc['runs']} times between them on this machine (one worker, JVM start included; "
               f"`--tlc`), took {figures['tlc_seconds']:.1f} s (median; best {tlc['min']:.1f} s)"
               if tlc.get("measured") else f"TLC took {figures['tlc_seconds']:.0f} s on this machine type")
    text = (f"Start-up, measured by {command} ({figures['date']}, {figures['runs']} fresh processes each, warm "
            f"kernel cache): `replcheck --help`; from starting `{figures['command']}` (spec kip320 3/2/2/2) to its "
            f"first generated state; its search; and the whole run. {against}: the whole run is {x['min']}x / "
            f"{x['median']}x faster (our best / median run).")
    return "\n".join([*textwrap.wrap(text, 100, break_on_hyphens=False), "",
                      "| | min (s) | median (s) | target (s) |", "|---|---:|---:|---:|", *rows]) + "\n"


@click.command()
@click.option("--runs", type=click.IntRange(1, 1000), default=None, help="runs of each measurement [10; 3 cold]")
@click.option("--cold", is_flag=True, help="start every run on an empty kernel cache, as on a new machine")
@click.option("--tlc", "tlc_classes", type=click.Path(exists=True, path_type=Path), default=None,
              help="time TLC back to back: tla2tools.jar or a directory of TLC's compiled classes")
@click.option("--tlc-spec", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="the kafka-specification checkout (its .tla modules) for --tlc")
@click.option("--tlc-runs", type=click.IntRange(1, 100), default=3, show_default=True, help="TLC runs with --tlc")
def main(runs, cold, tlc_classes, tlc_spec, tlc_runs):
    """Measure replcheck's start-up and record it with the suite's results."""
    if (tlc_classes is None) != (tlc_spec is None):
        raise click.UsageError("--tlc and --tlc-spec go together")
    tlc = (tlc_classes.resolve(), tlc_spec.resolve()) if tlc_classes else None
    if tlc and not (tlc_classes.suffix == ".jar" or (tlc_classes / "tlc2" / "TLC.class").exists()):
        raise click.BadParameter(f"{tlc_classes} is neither a jar nor a directory holding tlc2/TLC.class",
                                 param_hint="--tlc")
    if tlc and not (tlc_spec / "Kip320.tla").exists():
        raise click.BadParameter(f"{tlc_spec} has no Kip320.tla (the kafka-specification modules)",
                                 param_hint="--tlc-spec")
    try:
        figures = measure_cold(runs or 3) if cold else measure(runs or 10, tlc, tlc_runs)
    except RuntimeError as error:  # a run that failed, TLC's included: one line, not a traceback
        raise click.ClickException(str(error)) from None
    document = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"results": {}}
    document["startup_cold" if cold else "startup"] = figures
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(RESULTS, json.dumps(document, indent=2) + "\n", RESULTS_FILE)
    Console(stderr=True, width=120).print(cold_table(figures) if cold else table(figures))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
