"""When a breadth-first search stops: the rule both engines share."""

from __future__ import annotations


def keep_exploring(*, exhausted: bool, found: dict, invariant_count: int, stop_at_first: bool, depth: int,
                   max_depth: int | None) -> bool:
    """Whether to expand another level. Stop when no new state appeared, at the first level with
    a violation (if asked), once every checked invariant is violated (nothing is left to decide),
    or at `max_depth`."""
    if exhausted or (max_depth is not None and depth >= max_depth):
        return False
    if found and (stop_at_first or len(found) == invariant_count):
        return False
    return True
