"""A step property checked alone explores exactly the states a run with every property explores
(issue 44): no property, state or step, may change how far the search goes, only what it reports.

A run checking only `leader-hw-monotonic` once spun forever after depth 11: the progress line's
projection (`checker.forecast`) looped on frontier ratios that cancel out, which no run with a
state invariant reached because its levels differed. Each step property is checked alone here,
on both engines, with and without symmetry reduction, at several bounds, and its distinct count
compared with that of the runs it must equal.

The full run counts more states than a run of the step property alone when it checks an
invariant that reads ghost variables (the model then keeps them, and they tell states apart), so
the step property alone is compared with every property that needs no ghost, and the step
property with one ghost invariant with every property.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from checker.invariant import StepProperty
from invariants.registry import select
from model.registry import MODELS

STEP_PROPERTIES = [name for name, p in MODELS["fetch"].properties.items()
                   if isinstance(p, StepProperty) and not p.witness]
EVERY: list[str] = []
"""No --invariant: every property a plain `check` checks."""
PLAIN = [p.name for p in select("fetch", EVERY) if not p.needs_ghost]
GHOST = "committed-survives"

BOUNDS = {
    "two replicas, one record": ["--replicas", "2", "--max-epoch", "1", "--max-crashes", "0", "--max-records", "1"],
    "two replicas, two records, a crash": ["--replicas", "2", "--max-epoch", "2", "--max-crashes", "1"],
    "three replicas, kip101": ["--replicas", "3", "--max-epoch", "1", "--max-crashes", "1", "--max-records", "1",
                               "--variant", "kip101"],
}


def distinct(engine: str, bounds: list[str], properties: list[str], symmetry: bool) -> int:
    """The distinct states of `replcheck check --model fetch` over the whole space (--continue:
    a violated property does not stop it) checking `properties` (none named: every one that
    `check` checks by default); the run must finish."""
    args = ["check", "--model", "fetch", "--engine", engine, *bounds, "--continue", "--json",
            "--symmetry" if symmetry else "--no-symmetry"]
    for name in properties:
        args += ["--invariant", name]
    result = run_cli(*args)
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert report["complete"], report
    return report["distinct_states"]


def test_the_fetch_model_has_step_properties_and_ghost_invariants():
    """The comparisons below are not vacuous: there are step properties to check alone, and a
    ghost invariant whose state space differs."""
    assert STEP_PROPERTIES == ["leader-hw-monotonic", "isr-join-caught-up"]
    every = [p.name for p in select("fetch", EVERY)]
    assert select("fetch", [GHOST])[0].needs_ghost and GHOST in every and set(STEP_PROPERTIES) < set(PLAIN) < set(every)


@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "no-symmetry"])
@pytest.mark.parametrize("engine", ["local", "spark"])
@pytest.mark.parametrize("bounds", list(BOUNDS), ids=list(BOUNDS))
def test_a_step_property_alone_explores_what_every_property_explores(bounds, engine, symmetry):
    args = BOUNDS[bounds]
    plain = distinct(engine, args, PLAIN, symmetry)
    every = distinct(engine, args, EVERY, symmetry)
    assert every > plain  # the ghost variables tell states apart: two different spaces to match
    for name in STEP_PROPERTIES:
        assert distinct(engine, args, [name], symmetry) == plain, name
        assert distinct(engine, args, [name, GHOST], symmetry) == every, name
