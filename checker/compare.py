"""Comparing protocol variants: the same model, bounds and invariants under each variant."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from .invariant import applies
from .reduce import reducing
from .result import CheckResult


def compare_variants(explore: Callable, models: Mapping[str, Any], invariants: Sequence,
                     on_level: Callable | None = None, reduce: bool = False) -> list[CheckResult]:
    """Explore each variant's model (`models`: variant -> model, in the order to report) to the
    end with `explore` (an engine's explore function). A violated invariant gets its shortest
    trace; an invariant that holds is proven over the whole reachable state space. A witness is
    reachable, with its shortest trace, or unreachable in that whole space. Each variant is
    checked for the properties that apply to it (`checker.invariant.applies`); the others are
    'n/a' in its result. With `reduce` each search is reduced by stubborn sets where the model
    allows (`checker.reduce.explore_reduced`: the verdicts are the same, the traces the shortest)."""
    explore = reducing(explore, reduce)
    return [explore(model, [i for i in invariants if applies(i, model)], stop_at_first=False, on_level=on_level)
            for model in models.values()]
