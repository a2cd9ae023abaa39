"""Counterexamples from the compiled search: real traces rebuilt from fingerprints.

Engines store one state per orbit when symmetry is on, so a stored path is a chain of
representatives. The trace shown is a real behaviour: from the real initial state, each step
is the smallest action whose successor's representative has the next fingerprint on the path.
With symmetry off the representative is the state itself and this is plain replay.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from traces.trace import Step, Trace

from ..checkpoint.identity import CheckpointError
from .fingerprint import fingerprint


class UnrealPath(RuntimeError):
    """A stored path the model cannot walk: a recorded action that is not enabled, a fingerprint
    no step reaches. A search never stores one; a damaged or forged checkpoint journal can."""


@contextmanager
def journal_paths(resumed: bool):
    """Rebuild traces in the block; with `resumed` (the paths come in part from a checkpoint's
    journal) a path the model cannot walk is the checkpoint's fault, a one-line CheckpointError."""
    try:
        yield
    except UnrealPath as exc:
        if not resumed:
            raise
        raise CheckpointError(f"its journal records a path the model cannot take ({exc})") from None


class Reducer:
    """Representatives and fingerprints of packed rows, with or without symmetry."""

    def __init__(self, kernel, perms: np.ndarray):
        self.kernel, self.perms = kernel, perms
        self.best = np.zeros(kernel.width, np.int8)
        self.scratch = np.zeros(kernel.width, np.int8)

    def representative(self, row: np.ndarray) -> np.ndarray:
        """The row that stands for row's orbit (row itself without symmetry)."""
        if self.perms.shape[0] == 1:
            return row
        return self.kernel.search.canonical(row, self.kernel.layout, self.perms, self.best, self.scratch).copy()

    def fingerprint(self, row: np.ndarray) -> int:
        """The fingerprint the engines store for row."""
        return int(fingerprint(self.representative(row)))


def path_by_codes(kernel, reducer: Reducer, initial: np.ndarray, codes: list[int]) -> list[int]:
    """The stored fingerprints along a path given as the initial row and the action codes the
    search recorded (each taken from the previous representative)."""
    row = reducer.representative(initial)
    fps = [int(fingerprint(row))]  # row is already its orbit's representative
    for code in codes:
        nxt = dict(kernel.successor_rows(row)).get(code)
        if nxt is None:
            raise UnrealPath(f"recorded action {kernel.action_value(code, row)} is not enabled on its path")
        row = reducer.representative(nxt)
        fps.append(int(fingerprint(row)))
    return fps


def real_steps(kernel, reducer: Reducer, initial: np.ndarray, fps: list[int]) -> list[tuple[int, np.ndarray]]:
    """The real behaviour along stored fingerprints `fps` (initial state first): (code, row) per step."""
    row, steps = initial, []
    for target in fps[1:]:
        step = next(((code, nxt) for code, nxt in kernel.successor_rows(row) if reducer.fingerprint(nxt) == target), None)
        if step is None:
            raise UnrealPath("a stored path has no real step to its next state")
        steps.append(step)
        row = step[1]
    return steps


def kernel_trace(model, name: str, initial: np.ndarray, steps: list[tuple[int, np.ndarray]]) -> Trace:
    """A readable trace, decoded from packed rows."""
    kernel = model.kernel
    befores = [initial] + [row for _, row in steps[:-1]]
    return Trace(model.name, model.variant, dict(model.parameters()), name, kernel.decode(initial),
                 tuple(Step(kernel.action_value(code, before), kernel.decode(row))
                       for before, (code, row) in zip(befores, steps)))


def breaking_step(kernel, row: np.ndarray, bit: int) -> tuple[int, np.ndarray]:
    """The smallest step from `row` that breaks step property `bit`."""
    for code, nxt in kernel.successor_rows(row):
        if kernel.search.broken_steps(row, code, nxt, kernel.layout, 1 << bit):
            return code, nxt
    raise UnrealPath("no step breaks the step property from the end of its path")


def trace_to(model, reducer: Reducer, name: str, fps: list[int], breaking_bit: int | None = None) -> Trace:
    """The counterexample for `name` along stored fingerprints `fps`, ending, for a step
    property (`breaking_bit`), with the smallest step that breaks it."""
    kernel = model.kernel
    initials = [kernel.encode(s) for s in model.initial_states()]
    initial = next(row for row in initials if reducer.fingerprint(row) == fps[0])
    steps = real_steps(kernel, reducer, initial, fps)
    if breaking_bit is not None:
        last = steps[-1][1] if steps else initial
        steps.append(breaking_step(kernel, last, breaking_bit))
    return kernel_trace(model, name, initial, steps)
