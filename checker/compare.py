"""Comparing protocol variants: the same model, bounds and invariants under each variant."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .result import CheckResult


def compare_variants(explore: Callable, build: Callable[[str], Any], variants: Sequence[str],
                     invariants: Sequence, on_variant: Callable[[str], Callable] | None = None) -> list[CheckResult]:
    """Explore `build(variant)` for each variant to the end with `explore` (an engine's explore
    function) and return the results in the order given. A violated invariant gets its shortest
    trace; an invariant that holds is proven over the whole reachable state space.
    `on_variant(variant)` may return a per-level progress callback."""
    results = []
    for variant in variants:
        on_level = on_variant(variant) if on_variant else None
        results.append(explore(build(variant), invariants, stop_at_first=False, on_level=on_level))
    return results
