"""When a breadth-first search stops, and why: the rule both engines share."""

from __future__ import annotations

from typing import Sequence

COMPLETE = "complete"
"""No new state appeared: every reachable state was explored."""
DECIDED = "every property decided"
"""Every checked property was found (invariants violated, witnesses reached): nothing is left to ask."""
FIRST_VIOLATION = "first violation"
"""An invariant was violated and the search was asked to stop at the first level with a violation."""
DEPTH_LIMIT = "depth limit"
"""The search reached `max_depth`."""


def stop_reason(*, exhausted: bool, found, properties: Sequence, stop_at_first: bool, depth: int,
                max_depth: int | None) -> str | None:
    """Why the search stops after the level it has just finished (one of the constants above),
    or None to expand another. `found` holds the names of the properties found so far. A reached
    witness is an answer, not a failure: it never stops the search at the first violation; the
    search stops early only once every checked property is decided, or at the first level with
    an invariant violation when `stop_at_first`."""
    if exhausted:
        return COMPLETE
    if properties and all(p.name in found for p in properties):
        return DECIDED
    if stop_at_first and any(p.name in found and not p.witness for p in properties):
        return FIRST_VIOLATION
    if max_depth is not None and depth >= max_depth:
        return DEPTH_LIMIT
    return None
