"""`--reduce`: switching a model's search to its stubborn-set reduction, and what a reduced run says.

A reduced search takes in each state the steps of one strong stubborn set (docs/reduction.md,
`checker.kernel.reduction`): it decides the same invariants as the full search but visits fewer
states, and a violation it finds may lie deeper than the shortest one. So a command that
reduces and finds a violation searches again without the reduction, to that depth, for the
shortest trace (`shortest_again`).
"""

from __future__ import annotations

from functools import partial
from typing import Callable

import click

from .kernel.reduction import NO_REDUCTION

REDUCED = "stubborn sets: the counts are of the reduced state graph"
"""What a result of a reduced search says of itself (`CheckResult.reduction`)."""


def reduce_search(model, properties) -> str | None:
    """Switch `model`'s compiled search to its stubborn-set reduction for checking `properties`;
    None, or why the search stays unreduced (a model that declares no footprints)."""
    if getattr(model, "kernel", None) is None or not hasattr(model, "reduction"):
        return f"the {model.name} model declares no footprints (only fetch does)"
    model.kernel.reduction = model.reduction([p.name for p in properties])
    return None


def unreduce(model) -> None:
    """Switch `model`'s search back to taking every enabled step."""
    model.kernel.reduction = NO_REDUCTION


def explore_reduced(explore: Callable, model, properties, *, stop_at_first: bool, max_depth: int | None = None,
                    **options):
    """`explore(model, properties, ...)` (an engine's explore) reduced by stubborn sets where
    `model` allows (else in full, saying why on stderr). When the reduced search finds a
    violation (or reaches a witness), the model is searched again without the reduction to that
    depth for the shortest traces: with `stop_at_first` that search's result is the answer, as
    the full search would have given it; without, the reduced search's verdicts and counts stand
    (it went to the end) with the full search's traces."""
    why_not = reduce_search(model, properties)
    if why_not is not None:
        click.echo(f"--reduce: the search is not reduced: {why_not}", err=True)
        return explore(model, properties, stop_at_first=stop_at_first, max_depth=max_depth, **options)
    try:
        result = explore(model, properties, stop_at_first=stop_at_first, max_depth=max_depth, **options)
    finally:
        unreduce(model)
    if not result.violations:
        result.reduction = REDUCED
        return result
    depth = max(len(trace) for trace in result.violations.values())
    again = explore(model, properties, stop_at_first=stop_at_first, max_depth=depth, **options)
    if stop_at_first:
        again.reduction = shortest_again(depth)
        return again
    result.violations = {name: again.violations[name] for name in result.violations}
    result.reduction = f"{REDUCED}; {shortest_again(depth)}"
    return result


def reducing(explore: Callable, reduce: bool) -> Callable:
    """The engine's `explore`, reduced by stubborn sets (`explore_reduced`) when `reduce`."""
    return partial(explore_reduced, explore) if reduce else explore


def shortest_again(depth: int) -> str:
    """What a result says when a reduced search found a violation at `depth` steps and the
    trace comes from a search without the reduction."""
    return (f"a reduced search found the violation at depth {depth}; the trace is the shortest, from a search "
            "without the reduction to that depth")
