"""Helpers shared by the kernel tests: random reachable packed states, and renamed rows."""

from __future__ import annotations

import itertools

import numpy as np

from checker.kernel.symmetry import permutations, renaming
from checker.kernel.traces import Reducer


def random_walk(model, choices):
    """The packed state reached from the initial state by taking, at each step, the successor
    that `choices` picks (modulo the number enabled); stops early at a deadlock."""
    kernel = model.kernel
    row = kernel.encode(model.initial_states()[0])
    for pick in choices:
        steps = kernel.successor_rows(row)
        if not steps:
            break
        row = steps[pick % len(steps)][1]
    return row


def permuted(kernel, row, perm) -> np.ndarray:
    """The packed row with replica r renamed perm[r], by the model's own `permute`."""
    out = np.zeros_like(row)
    kernel.search.permute(row, kernel.layout, renaming(perm), out)
    return out


def by_parts(kernel, row, perm) -> np.ndarray:
    """The packed row renamed by the model's `permute_head`, then its `permute_part`s to the
    end of the row, each starting where the one before ended."""
    search, lay, out = kernel.search, kernel.layout, np.zeros_like(row)
    part, end = 1, search.permute_head(row, lay, renaming(perm), out)
    while end < len(row):
        after = search.permute_part(row, lay, renaming(perm), part, out)
        assert after > end, "a part that ends before the one before it"
        part, end = part + 1, after
    assert end == len(row)
    return out


def assert_renaming_commutes(model, row, invariant_mask: int, step_mask: int = 1) -> None:
    """Every renaming of the 3-replica packed state `row` is lossless, has the same orbit
    representative (the smallest renaming, found though the search renames in full only the
    renamings whose head ties), ranks the renamings as they order (`head_rank`), starts with the head `permute_head` writes, has the renamed
    successors (no rule prefers a replica id), and the same invariant verdicts and broken step
    properties (no property does)."""
    kernel, search, lay = model.kernel, model.kernel.search, model.kernel.layout
    reducer = Reducer(kernel, permutations(3, True))
    canonical = reducer.representative(row)
    steps = kernel.successor_rows(row)
    verdicts = search.violations(row, lay, invariant_mask)
    broken = sorted(search.broken_steps(row, code, t, lay, step_mask) for code, t in steps)
    renamings = [permuted(kernel, row, perm) for perm in itertools.permutations(range(3))]
    assert tuple(canonical) == min(tuple(renamed) for renamed in renamings), "not the smallest renaming"
    ranks = [search.head_rank(row, lay, renaming(perm)) for perm in itertools.permutations(range(3))]
    for rank, renamed in zip(ranks, renamings):
        assert all(tuple(renamed) < tuple(other) for r, other in zip(ranks, renamings) if rank < r), \
            "a renaming ranks below a smaller one"
    for perm, other in zip(itertools.permutations(range(3)), renamings):
        head = np.zeros_like(row)
        size = search.permute_head(row, lay, renaming(perm), head)
        assert np.array_equal(head[:size], other[:size]), "the head is not where the renamed row starts"
        assert np.array_equal(by_parts(kernel, row, perm), other), "the parts build another renaming"
        assert np.array_equal(permuted(kernel, other, np.argsort(perm)), row), "renaming lost information"
        assert np.array_equal(reducer.representative(other), canonical), "the orbit has two representatives"
        renamed_steps = kernel.successor_rows(other)
        assert sorted(bytes(t) for _, t in renamed_steps) == \
            sorted(bytes(permuted(kernel, t, perm)) for _, t in steps), "a rule prefers some replica id"
        assert search.violations(other, lay, invariant_mask) == verdicts, "an invariant prefers some replica id"
        assert sorted(search.broken_steps(other, code, t, lay, step_mask) for code, t in renamed_steps) == broken


class Readable:
    """A model seen only through its readable states (no kernel), so the plain search runs on
    the decoded view; with `representative`, a readable symmetry reduction written apart from
    the kernel's (an oracle for it)."""

    def __init__(self, model, representative=None):
        self._model = model
        if representative is not None:
            self.representative = representative

    def __getattr__(self, name):
        if name == "kernel":
            raise AttributeError(name)
        return getattr(self._model, name)


def reachable(model) -> list:
    """Every reachable readable state, breadth first, through the derived `successors`."""
    seen = {s: None for s in model.initial_states()}
    frontier = list(seen)
    while frontier:
        nxt = []
        for state in frontier:
            for _, succ in model.successors(state):
                if succ not in seen:
                    seen[succ] = None
                    nxt.append(succ)
        frontier = nxt
    return list(seen)


def assert_bijection(kernel, states) -> None:
    """Each readable state packs into a row that decodes to it again, and packing that gives the
    same row: the readable view and the packed rows are one-to-one."""
    for state in states:
        row = kernel.encode(state)
        assert kernel.decode(row) == state
        assert np.array_equal(kernel.encode(kernel.decode(row)), row)
