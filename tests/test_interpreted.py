"""The kernels run as plain Python (`checker.interpreted`) give what the compiled kernels give,
and a search that starts interpreted goes on compiled, mid-level, to the same result
(`checker.background_compile`)."""

from __future__ import annotations

import numpy as np
import pytest

from checker import background_compile
from checker.interpreted import interpreted, is_interpreted
from checker.kernel.jit import Kernel
from checker.local import explore
from checker.simulation.walks import walker
from invariants.registry import select
from model.registry import build_model

CASES = [  # (model, variant, bounds, symmetry, max depth): every model, violations found and not
    ("spec", "hw", {}, False, 9),
    ("spec", "kip320", {"replicas": 3, "max_epoch": 1}, True, 10),
    ("fetch", "hw", {"flush": "async"}, False, 10),
    ("fetch", "kip966", {"replicas": 3, "retries": True, "max_records": 1}, True, 6),
    ("kraft", None, {}, True, 13),
]


def _model(name, variant, bounds):
    properties = select(name, None)
    model = build_model(name, variant, ghost=any(p.needs_ghost for p in properties), **bounds)
    model.kernel.search  # noqa: B018 (imported, as `background_compile` does before it stands in)
    return model, properties


def _outcome(result):
    return (result.distinct_states, result.generated_states, result.depth,
            {name: [step.action for step in trace.steps] for name, trace in result.violations.items()})


@pytest.mark.parametrize("name,variant,bounds,symmetry,depth", CASES)
def test_an_interpreted_search_finds_what_the_compiled_one_does(name, variant, bounds, symmetry, depth):
    model, properties = _model(name, variant, bounds)
    compiled = explore(model, properties, stop_at_first=False, max_depth=depth, symmetry=symmetry)
    with interpreted():
        assert is_interpreted()
        plain = explore(model, properties, stop_at_first=False, max_depth=depth, symmetry=symmetry)
    assert not is_interpreted()
    assert _outcome(plain) == _outcome(compiled)
    assert compiled.distinct_states > 100


@pytest.mark.parametrize("name,variant,bounds", [case[:3] for case in CASES])
def test_interpreted_random_walks_take_the_compiled_walks_steps(name, variant, bounds):
    model, properties = _model(name, variant, bounds)

    def walks():
        walk = walker(model, properties, 40, False, 7)
        return [(depth, violated, list(actions), list(fps)) for depth, violated, actions, fps in map(walk.run, range(30))]

    compiled = walks()
    with interpreted():
        assert walks() == compiled
    assert sum(depth for depth, *_ in compiled) > 30


def test_the_kernels_are_compiled_again_once_the_block_ends():
    import model.fetch.successors as successors
    import checker.kernel.visited_set as visited_set

    before = (successors.successors, visited_set.add, successors.crash)
    with interpreted():
        assert not isinstance(successors.successors, Kernel)
        import model.fetch.tradeoffs  # noqa: F401 (a module imported meanwhile takes stand-ins by name)
    assert (successors.successors, visited_set.add, successors.crash) == before
    assert all(isinstance(f, Kernel) for f in before)


class _Compiling:
    """A compiling process, as `subprocess.Popen` gives it, that is done after `polls` polls."""

    def __init__(self, polls: int):
        self.polls, self.pid, self.stdin = polls, 0, self

    def write(self, payload):
        pass

    def flush(self):
        pass

    def close(self):
        pass

    def poll(self):
        self.polls -= 1
        return 0 if self.polls < 0 else None

    def wait(self):
        return 0


@pytest.mark.parametrize("name,variant,bounds,symmetry,depth", [CASES[1], CASES[3]])
def test_a_search_started_interpreted_goes_on_compiled_mid_level_to_the_same_result(
        name, variant, bounds, symmetry, depth, monkeypatch):
    model, properties = _model(name, variant, bounds)
    compiled = explore(model, properties, stop_at_first=False, max_depth=depth, symmetry=symmetry)
    chunks = [-(-level.new_states // 64) for level in compiled.levels[:depth]]  # calls (polls) per level expanded
    widest = chunks.index(max(chunks))
    assert chunks[widest] >= 3
    polls = sum(chunks[:widest]) + 1  # done after the first chunk of the widest level
    monkeypatch.setattr(background_compile.subprocess, "Popen", lambda *a, **k: _Compiling(polls))
    seen = []
    with background_compile.compiling_beside([(model, False)]):
        assert is_interpreted()
        result = explore(model, properties, stop_at_first=False, max_depth=depth, symmetry=symmetry,
                         on_level=lambda stats, frontier: seen.append(is_interpreted()))
        assert not is_interpreted()
    assert _outcome(result) == _outcome(compiled)
    assert seen[0] and not seen[-1], "the search did not switch from interpreted to compiled code"


def test_a_widened_argument_is_written_back_and_numbers_come_back_as_python_numbers():
    from checker.kernel.fingerprint import fingerprint

    row = np.arange(-8, 8, dtype=np.int8)
    expected = fingerprint(row)
    with interpreted():
        plain = fingerprint(row)
    assert type(plain) is type(expected) and plain == expected
