"""Where a long search is heading: total states, time left and peak memory, projected from how
the BFS frontier has been growing.

A breadth-first frontier grows, peaks and dies away. The ratio between successive frontier
sizes falls as the search runs into its bounds, and over a few levels its logarithm falls
roughly linearly with depth. So the last `WINDOW` ratios are fitted by a line, the frontier is
projected level by level with it until it dies out, and the projected levels are summed.
Time left is the projected states still to expand at the last level's seconds per expanded
state; peak memory adds the projected states at the recent bytes per new state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .result import LevelStats

WINDOW = 4
"""Frontier growth ratios fitted: enough to smooth one odd level, few enough to follow the bend."""
MIN_LEVELS = 4
"""No projection before this many levels: the first ones say little about the shape."""
LIMIT = 1e15
"""A projection past this many states is not one: the frontier still grows too fast to tell."""
HORIZON = 1_000
"""Levels projected at most: a frontier that has not died out by then shrinks too slowly to
tell where it ends (ratios that cancel out, such as 9, 8, 9, 9, 9, fit a shrink of 1e-17 a
level, which would take forever to reach one state)."""


@dataclass(frozen=True)
class Forecast:
    """A projection of the search's end: distinct states in all, the depth at which the frontier
    dies out, seconds of search left, and peak resident memory (None when no memory samples
    were given)."""

    total_states: int
    final_depth: int
    remaining_seconds: float
    peak_bytes: int | None

    def to_json(self) -> dict:
        """JSON-ready fields."""
        return {"total_states": self.total_states, "final_depth": self.final_depth,
                "remaining_seconds": round(self.remaining_seconds, 1), "peak_bytes": self.peak_bytes}


def _fit(levels: Sequence[LevelStats]) -> tuple[float, float] | None:
    """(intercept, slope) of log frontier ratio against depth over the last WINDOW levels."""
    points = [(b.depth, math.log(b.new_states / a.new_states))
              for a, b in zip(levels[-WINDOW - 1:-1], levels[-WINDOW:]) if a.new_states and b.new_states]
    if len(points) < 2:
        return None
    depths, logs = np.array(points).T
    slope, intercept = np.polyfit(depths, logs, 1)
    if slope >= 0:  # not slowing: only a frontier that already shrinks at a steady rate has an end in view
        mean = float(np.mean(logs))
        return (mean, 0.0) if mean < 0 else None
    return float(intercept), float(slope)


def forecast(levels: Sequence[LevelStats], rss: Sequence[int] | None = None) -> Forecast | None:
    """The projected end of a search whose levels so far are `levels` (with the resident bytes
    after each in `rss`, when known), or None while the frontier's growth gives no end to fit
    or its end lies past `LIMIT` states or `HORIZON` levels ahead."""
    if len(levels) < MIN_LEVELS:
        return None
    last = levels[-1]
    fitted = _fit(levels)
    if fitted is None:
        return None
    intercept, slope = fitted
    frontier, depth, projected = float(last.new_states), last.depth, 0.0
    while True:
        frontier *= math.exp(intercept + slope * (depth + 1))
        if frontier < 1:
            break
        depth += 1
        projected += frontier
        if projected > LIMIT or depth - last.depth > HORIZON:
            return None
    expanded = levels[-2].new_states
    per_state = (last.seconds_total - levels[-2].seconds_total) / expanded if expanded else 0.0
    peak = None
    if rss and len(rss) >= 2:
        first = max(0, len(rss) - WINDOW)
        grown = levels[-1].distinct_total - levels[len(levels) - len(rss) + first].distinct_total
        per_new = max(0.0, (rss[-1] - rss[first]) / grown) if grown > 0 else 0.0
        peak = int(max(rss) + per_new * projected)
    return Forecast(int(last.distinct_total + projected), depth, per_state * (last.new_states + projected), peak)
