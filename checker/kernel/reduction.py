"""The tables a reduced search reads (`--reduce`), built from a model's declared relations.

A reduced search takes, in each state, the steps of one strong stubborn set instead of every
enabled step (docs/reduction.md): `search_template.stubborn` computes it in compiled code from
the relations of `checker.independence.Independence`, laid out here as compressed rows (for
action i, `dep_idx[dep_ptr[i]:dep_ptr[i + 1]]` are the actions dependent on it, and so on).

Ignoring (a step enabled all along a cycle of the reduced graph and never taken) is prevented
statically: the model names the step kinds that every cycle of its state graph takes (for
`fetch`, applying a FETCH answer and an ISR expansion), and a state whose stubborn set would
hold an enabled one of them is expanded in full. So every cycle of the reduced graph passes a
fully expanded state, and the reduction is the same function of the state on every engine, at
any partition count, whatever order a level's states are expanded in.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .jit import kernel


class Reduction(NamedTuple):
    """The compiled relations of one model instance and property set (`on` false: none)."""

    on: bool
    codes: np.ndarray
    """The declared actions' codes, ascending: an action's index is its place here."""
    dep_ptr: np.ndarray
    dep_idx: np.ndarray
    nes_ptr: np.ndarray
    nes_idx: np.ndarray
    """A disabled action's enablers where none of its conditions is false."""
    needs_ptr: np.ndarray
    needs_idx: np.ndarray
    conditions: np.ndarray
    """Rows (code, a, b, c) for the model's `condition_holds`."""
    cen_ptr: np.ndarray
    cen_idx: np.ndarray
    """A condition's enablers."""
    visible: np.ndarray
    """Per action: it may change whether a checked property holds."""
    closing: np.ndarray
    """Per action: its kind is one that every cycle takes."""


def _csr(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(rows) + 1, np.int64)
    ptr[1:] = np.cumsum([len(r) for r in rows])
    return ptr, (np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64))


def reduction_tables(independence, names, closing_kinds) -> Reduction:
    """The tables for a search checking the properties `names` on a model instance whose
    relations are `independence`, every cycle of which takes a step of `closing_kinds`."""
    rel = independence
    n = len(rel.codes)
    dep_ptr, dep_idx = _csr([np.flatnonzero(rel.dependence[i]) for i in range(n)])
    nes_ptr, nes_idx = _csr([np.flatnonzero(rel.enabling[i]) for i in range(n)])
    needs_ptr, needs_idx = _csr(rel.needs)
    cen_ptr, cen_idx = _csr([np.flatnonzero(row) for row in rel.condition_enabling])
    closing = np.isin(rel.kinds, list(closing_kinds)) | rel.everything
    return Reduction(True, rel.codes.astype(np.int64), dep_ptr, dep_idx, nes_ptr, nes_idx, needs_ptr, needs_idx,
                     rel.conditions.astype(np.int64).reshape(-1, 4), cen_ptr, cen_idx,
                     rel.visible(names).astype(np.bool_), closing.astype(np.bool_))


def _none() -> Reduction:
    empty = np.zeros(0, np.int64)
    ptr = np.zeros(1, np.int64)
    return Reduction(False, empty, ptr, empty, ptr, empty, ptr, empty, np.zeros((0, 4), np.int64), ptr, empty,
                     np.zeros(0, np.bool_), np.zeros(0, np.bool_))


NO_REDUCTION = _none()
"""Every enabled step is taken."""


def workspace(reduction: Reduction) -> tuple:
    """Scratch arrays for `search_template.stubborn` on these tables: per action its successor
    slot (-1: not enabled), its set mark and two work lists; per condition its evaluation mark
    and value; the mark counters."""
    n, m = len(reduction.codes), len(reduction.conditions)
    return (np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
            np.zeros(m, np.int64), np.zeros(m, np.bool_), np.zeros(2, np.int64))


@kernel
def no_conditions(s, lay, code, a, b, c):
    """The condition test of a model that declares no conditions (`condition_holds`): never
    called, since such a model is not reduced."""
    return True
