"""Choosing an engine: `local` (one Python process) or `spark` (PySpark, any master)."""

from __future__ import annotations

from typing import Callable, Sequence

from .invariant import Invariant
from .local import explore
from .model import Model
from .result import CheckResult, LevelStats

ENGINES = ("spark", "local")


def run_engine(
    engine: str,
    model: Model,
    invariants: Sequence[Invariant],
    *,
    stop_at_first: bool = True,
    max_depth: int | None = None,
    on_level: Callable[[LevelStats, int], None] | None = None,
    master: str = "local[*]",
    partitions: int | None = None,
    work_dir: str | None = None,
) -> CheckResult:
    """Explore `model` on the named engine. Spark options (`master`, `partitions`, `work_dir`
    for reliable checkpoints on storage every executor reaches) are ignored by `local`.
    Raises checker.java.EngineUnavailable when Spark cannot start."""
    if engine == "local":
        return explore(model, invariants, stop_at_first=stop_at_first, max_depth=max_depth, on_level=on_level)
    from .spark import explore_spark
    from .spark_context import spark_context

    with spark_context(master, partitions, checkpoint_dir=work_dir) as sc:
        return explore_spark(sc, model, invariants, partitions=partitions, stop_at_first=stop_at_first,
                             max_depth=max_depth, on_level=on_level, reliable_checkpoints=work_dir is not None)
