"""Choosing an engine: `local` (one process) or `spark` (PySpark, any master).

Each engine runs a model's compiled kernel when it has one (`checker.kernel`), and otherwise
the plain Python search over readable states.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial

from .local import explore

ENGINES = ("spark", "local")


@contextmanager
def engine_session(engine: str, *, master: str = "local[*]", partitions: int | None = None,
                   work_dir: str | None = None):
    """Yield an `explore(model, invariants, stop_at_first=..., max_depth=..., on_level=...,
    symmetry=...)` function running on the named engine; one Spark context serves every call
    in the block. Spark options (`master`, `partitions`, `work_dir` for the tasks' scratch files) are ignored by `local`. Raises checker.java.EngineUnavailable
    when Spark cannot start."""
    if engine == "local":
        yield explore
        return
    from .spark import explore_spark
    from .spark_context import spark_context

    with spark_context(master, partitions) as sc:
        yield partial(explore_spark, sc, partitions=partitions, work_dir=work_dir)
