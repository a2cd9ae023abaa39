"""A live progress line for long explorations (level, distinct states, frontier, states/s).

It draws on stderr and only when stderr is a terminal, so `--json` output and logs stay clean.
"""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from .interrupts import interruptions_deferred
from .result import LevelStats


def prepare_kernels(models) -> None:
    """Compile (or load) the compiled kernel of each model that has one before its search, with
    a notice on stderr when this machine compiles it for the first time (tens of seconds).
    Loading a cached kernel takes a fraction of a second and holds Ctrl-C back until it is done."""
    seen = set()
    for model in models:
        kernel = getattr(model, "kernel", None)
        if kernel is None or kernel.module in seen:
            continue
        seen.add(kernel.module)
        from .kernel.warm import is_compiled, warm_up

        console = Console(stderr=True)
        if is_compiled(kernel):
            with interruptions_deferred():  # loading swallows a Ctrl-C raised inside llvmlite's callbacks
                warm_up(kernel, model.initial_states()[0])
            continue
        message = (f"compiling the {model.name} model's kernel (once per machine and replcheck version, "
                   "up to a minute)")
        if not console.is_terminal:
            console.print(message, highlight=False)
        with console.status(message):
            warm_up(kernel, model.initial_states()[0])


@contextmanager
def level_progress(label: str):
    """Yield an `on_level(stats, frontier)` callback that updates a progress line."""
    console = Console(stderr=True)
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=console, transient=True, disable=not console.is_terminal)
    with progress:
        task = progress.add_task(label)

        def on_level(stats: LevelStats, frontier: int) -> None:
            rate = stats.distinct_total / stats.seconds_total if stats.seconds_total > 0 else 0.0
            progress.update(task, description=(f"{label}  level {stats.depth}  distinct {stats.distinct_total:,}  "
                                               f"frontier {frontier:,}  {rate:,.0f} states/s"))

        yield on_level
