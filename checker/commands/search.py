"""Running a search for a command: the engine, the progress line, the kernels loaded first, and
how a failure or an interruption of the search is reported.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import click

from checker.checkpoint.identity import CheckpointError
from checker.jobs.engines import engine_session
from checker.interrupts import Terminated
from checker.spark.java import EngineUnavailable
from checker.background_compile import kernels_ready
from checker.progress import level_progress
from .errors import Interrupted, UserError, interruption_json


@contextmanager
def search(engine: str, master: str | None, partitions: int | None, work_dir: str | None, memory_budget: int | None,
           label: str, models=(), symmetry: bool = False, checked=(), saver=None, as_json: bool = False,
           progress_file: Path | None = None):
    """Yield (explore, on_level): the engine's explore function (with `symmetry` and the
    checkpoint `saver` applied) and a progress callback. The models' compiled kernels are
    loaded first (compiled on this machine's first run, with a notice). An engine that cannot start, or a damaged
    checkpoint, is a one-line UserError; Ctrl-C is Interrupted (exit 130), saying how far the
    search got, which `checked` properties (invariants and witnesses) it had found violated or
    reached, and where its checkpoint is
    (also as a JSON object on stdout with `as_json`). Each level is appended to `progress_file`
    as a JSON line, if one is given. A checkpoint directory the run created and could not save
    its first checkpoint in (a full disk) is removed (`Saver.abandon`)."""
    reached = []

    def recorded(on_level):
        def on_level_recorded(stats, frontier):
            reached[:] = [stats]
            on_level(stats, frontier)
        return on_level_recorded

    here = engine == "local" or (master is None and partitions is None and saver is None and memory_budget is None)
    try:
        with kernels_ready(models, here=here), \
                engine_session(engine, master=master, partitions=partitions, work_dir=work_dir,
                               memory_budget=memory_budget) as explore, \
                level_progress(f"{label} ({engine})", progress_file,
                               saver.resumed.levels if saver is not None and saver.resumed else ()) as on_level:
            yield partial(explore, symmetry=symmetry, saver=saver), recorded(on_level)
    except EngineUnavailable as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        if exc.filename is None or progress_file is None or Path(exc.filename) != progress_file:
            raise
        raise UserError(f"cannot write progress file {progress_file}: {exc.strerror}") from None
    except CheckpointError as exc:
        saver.abandon()
        raise UserError(f"checkpoint {saver.directory}: {exc}") from None
    except KeyboardInterrupt as exc:
        terminated, last = isinstance(exc, Terminated), reached[0] if reached else None
        kept = (saver.directory, saver.committed) if saver is not None and saver.committed is not None else None
        if as_json:
            click.echo(json.dumps(interruption_json(terminated, last, checked, kept), indent=2))
        raise Interrupted(terminated, last, checked, kept) from None

