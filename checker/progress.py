"""Live progress of long explorations: a line on the terminal, and JSON lines for dashboards.

After each BFS level the line shows the depth, distinct states, frontier, rate and memory, and
the projected end of the search (`checker.forecast`): total states, time left, peak memory.
It draws on stderr and only when stderr is a terminal, so `--json` output and logs stay clean.
With a progress file, each level is also appended to it as one JSON object per line.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from .compile_notice import compiling, stderr_console, waiting_line
from .file_roles import refuse_to_replace
from .output_kinds import PROGRESS_LOG, replace_error
from .forecast import forecast
from .interrupts import interruptions_deferred
from .memory import resident_bytes
from .result import LevelStats


def prepare_kernels(models, walks: bool = False) -> None:
    """Load the compiled kernel of each model that has one before its run: what a search calls,
    or with `walks` what a simulation calls (`checker.kernel.warm`). On this machine's first
    run the whole kernel is compiled instead, announced by `checker.compile_notice`. Loading
    takes a fraction of a second and holds Ctrl-C back until it is done. A run that finds
    another process compiling the same kernel says so, waits for it, and loads what it compiled."""
    seen = set()
    for model in models:
        kernel = getattr(model, "kernel", None)
        if kernel is None or kernel.module in seen:
            continue
        seen.add(kernel.module)
        from .kernel.compile_seconds import estimate, record, saying
        from .kernel.warm import SEARCH, WALK, compile_once, is_compiled, load, part

        entry, state = WALK if walks else SEARCH, model.initial_states()[0]
        if not is_compiled(kernel, entry):
            subject = f"the {model.name} model's kernel" + (" for random walks" if walks else "") + (
                " with guard counting" if kernel.count_guards else "")
            name = part(kernel, entry)
            expected = estimate(name, kernel.module)
            with compiling(subject, saying(*expected) if expected else None):
                started = time.perf_counter()
                if compile_once(kernel, state, entry, on_wait=lambda: stderr_console().print(
                        waiting_line(subject), highlight=False, soft_wrap=True)):
                    record(name, time.perf_counter() - started)
                    continue
        with interruptions_deferred():  # loading swallows a Ctrl-C raised inside llvmlite's callbacks
            load(kernel, state, entry)


def level_record(stats: LevelStats, frontier: int, rss: int, ahead) -> dict:
    """One level as the progress file writes it (`ahead`: its Forecast, or None)."""
    return {"event": "level", "depth": stats.depth, "distinct_states": stats.distinct_total, "frontier": frontier,
            "generated": stats.generated, "seconds": round(stats.seconds_total, 3),
            "states_per_second": round(stats.distinct_total / stats.seconds_total) if stats.seconds_total > 0 else None,
            "rss_bytes": rss, "violated": list(stats.violated), "reached": list(stats.reached),
            "forecast": ahead.to_json() if ahead else None, "time": round(time.time(), 3)}


def level_line(label: str, stats: LevelStats, frontier: int, rss: int, ahead) -> str:
    """The terminal's progress line for a level."""
    rate = stats.distinct_total / stats.seconds_total if stats.seconds_total > 0 else 0.0
    line = (f"{label}  depth {stats.depth}  {stats.distinct_total:,} states  frontier {frontier:,}  "
            f"{rate:,.0f} states/s  {rss / 2**30:.1f} GiB")
    if ahead is not None:
        line += f"  | projected: {ahead.total_states:,} states, {_duration(ahead.remaining_seconds)} left"
        if ahead.peak_bytes is not None:
            line += f", peak {ahead.peak_bytes / 2**30:.1f} GiB"
    return line


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@contextmanager
def level_progress(label: str, progress_file: Path | None = None, history: Sequence[LevelStats] = ()):
    """Yield an `on_level(stats, frontier)` callback that updates the progress line and appends
    each level to `progress_file` (JSON lines; created, or extended where it is a progress log
    replcheck wrote: `checker.output_kinds`). `history`: levels a resumed search had already
    explored, so the projection starts from all of them. A line that cannot be written whole (a
    full disk) is taken back, and a file this run created and could not write to is removed."""
    console = stderr_console()
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=console, transient=True, disable=not console.is_terminal)
    levels, samples = list(history), [None] * len(history)  # resident bytes after each level, where measured
    sink, created = (_open_log(progress_file) if progress_file else (None, False))
    try:
        with progress:
            task = progress.add_task(label)

            def on_level(stats: LevelStats, frontier: int) -> None:
                while levels and levels[-1].depth >= stats.depth:  # a resumed search restates its last level;
                    levels.pop()                                   # compare and sweep start new searches
                    samples.pop()
                rss = resident_bytes()
                levels.append(stats)
                samples.append(rss)
                ahead = forecast(levels, [s for s in samples if s is not None])
                progress.update(task, description=level_line(label, stats, frontier, rss, ahead))
                if sink is not None:
                    _append_line(sink, json.dumps(level_record(stats, frontier, rss, ahead)) + "\n", progress_file)

            yield on_level
    finally:
        if sink is not None:
            empty = os.fstat(sink).st_size == 0
            os.close(sink)
            if created and empty:
                os.unlink(progress_file)


def _open_log(path: Path) -> tuple[int, bool]:
    """(a descriptor appending to the progress log `path`, whether it was created now); OSError
    where `path` is a file the command read or anything but a progress log replcheck wrote."""
    refuse_to_replace(path)
    refused = replace_error(path, PROGRESS_LOG)
    if refused is not None:
        raise refused
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o666), True
    except FileExistsError:
        return os.open(path, os.O_WRONLY | os.O_APPEND), False


def _append_line(sink: int, line: str, path: Path) -> None:
    """Append `line` to the log `sink` (the file `path`) whole, or not at all: what a failed
    write (a full disk) left of it is cut off again, and the OSError names `path`."""
    data, start = line.encode(), os.fstat(sink).st_size
    try:
        while data:
            data = data[os.write(sink, data):]
    except OSError as exc:
        os.ftruncate(sink, start)
        raise OSError(exc.errno, exc.strerror, str(path)) from None


@contextmanager
def walk_progress(label: str):
    """Yield an `on_batch(tally)` callback that keeps a progress line for a simulation: walks,
    states visited, and the properties found so far (on a terminal only)."""
    console = stderr_console()
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=console, transient=True, disable=not console.is_terminal)
    with progress:
        task = progress.add_task(label)

        def on_batch(tally) -> None:
            found = f", found {', '.join(tally.found)}" if tally.found else ""
            progress.update(task, description=f"{label}: {tally.walks:,} walks, {tally.states:,} states{found}")

        yield on_batch
