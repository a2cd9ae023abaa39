"""Configuration sweeps: the same model and variant under every combination of settings."""

from __future__ import annotations

from itertools import product
from typing import Any, Callable, Sequence

from .invariant import applies
from .reduce import reducing
from .result import CheckResult


def configurations(choices: dict[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the given settings (name -> values), in the order given."""
    names = list(choices)
    return [dict(zip(names, values)) for values in product(*(choices[n] for n in names))]


def sweep(explore: Callable, models: list[tuple[dict[str, Any], Any]], invariants: Sequence,
          on_level: Callable | None = None, reduce: bool = False) -> list[tuple[dict[str, Any], CheckResult]]:
    """Explore each (configuration, model) pair (to the end, or until every property is
    decided: invariants violated, witnesses reached) and pair each configuration with its result.
    A property that does not apply to a configuration (an ISR invariant under a majority quorum)
    is left out of its run: its cell reads 'n/a'. With `reduce` each search is reduced by stubborn
    sets where the model allows (`checker.reduce.explore_reduced`)."""
    explore = reducing(explore, reduce)
    return [(config, explore(model, [i for i in invariants if applies(i, model)], stop_at_first=False,
                             on_level=on_level))
            for config, model in models]
