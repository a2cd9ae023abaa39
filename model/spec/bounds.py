"""The `spec` model's bounds: how many replicas, how long a log, how many writes and elections."""

from __future__ import annotations

from typing import NamedTuple

from ..params import Param

PARAMS = (
    Param("replicas", 3, 1, 7, "number of replicas of the partition"),
    Param("log-size", 2, 1, 8, "the most records one replica's log can hold"),
    Param("max-records", 2, 1, 15, "how many producer writes can happen in one behaviour"),
    Param("max-epoch", 2, 1, 14, "highest leader epoch: the controller hands out epochs 0..max-epoch"),
)


class SpecBounds(NamedTuple):
    """Bounds of one `spec` exploration (see `PARAMS` for their meaning and ranges)."""

    replicas: int
    log_size: int
    max_records: int
    max_epoch: int
