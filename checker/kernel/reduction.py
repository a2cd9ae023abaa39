"""The tables a reduced search reads (`--reduce`), built from a model's declared relations.

A reduced search takes, in each state, the steps of one strong stubborn set instead of every
enabled step (docs/reduction.md): `search_template.stubborn` computes it in compiled code from
the relations of `checker.independence.Independence`, laid out here as sets of actions, each a
row of bits (the actions dependent on action i are `dependent[i]`, and so on), so that closing a
set under them is a few word operations per action.

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


WORD = 63
"""Actions per word of a set of actions: bit 63 stays clear, so every word is a non-negative
int64 and shifts and counts need no unsigned arithmetic."""


class Reduction(NamedTuple):
    """The compiled relations of one model instance and property set (`on` false: none). A set
    of actions is a row of int64 words, action i being bit i % WORD of word i // WORD."""

    on: bool
    codes: np.ndarray
    """The declared actions' codes, ascending: an action's index is its place here."""
    dependent: np.ndarray
    """Per action, the set of actions dependent on it."""
    enablers: np.ndarray
    """Per action, the set of actions that can enable it (taken where none of its conditions is false)."""
    needs_ptr: np.ndarray
    needs_idx: np.ndarray
    """Per action, the indices of the conditions it needs (compressed rows: action i's are
    `needs_idx[needs_ptr[i]:needs_ptr[i + 1]]`)."""
    conditions: np.ndarray
    """Rows (code, a, b, c) for the model's `condition_holds`."""
    condition_enablers: np.ndarray
    """Per condition, the set of actions that can make it true."""
    condition_sizes: np.ndarray
    """Per condition, how many actions can make it true."""
    invisible: np.ndarray
    """The set of actions that cannot change whether a checked property holds."""
    closing: np.ndarray
    """The set of actions of a kind that every cycle takes."""


def action_sets(rows: np.ndarray) -> np.ndarray:
    """Boolean rows over the actions, as sets of actions (one row of words each)."""
    rows = np.atleast_2d(np.asarray(rows, bool))
    words = max(1, -(-rows.shape[1] // WORD))
    out = np.zeros((rows.shape[0], words), np.int64)
    for i in np.flatnonzero(rows.any(axis=0)):
        out[rows[:, i], i // WORD] |= np.int64(1) << np.int64(i % WORD)
    return out


def _csr(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(rows) + 1, np.int64)
    ptr[1:] = np.cumsum([len(r) for r in rows])
    return ptr, (np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64))


def reduction_tables(independence, names, closing_kinds) -> Reduction:
    """The tables for a search checking the properties `names` on a model instance whose
    relations are `independence`, every cycle of which takes a step of `closing_kinds`."""
    rel = independence
    n = len(rel.codes)
    needs_ptr, needs_idx = _csr(rel.needs)
    condition_enabling = np.asarray(rel.condition_enabling, bool).reshape(-1, n)
    closing = np.isin(rel.kinds, list(closing_kinds)) | rel.everything
    return Reduction(True, rel.codes.astype(np.int64), action_sets(rel.dependence), action_sets(rel.enabling),
                     needs_ptr, needs_idx, rel.conditions.astype(np.int64).reshape(-1, 4),
                     action_sets(condition_enabling).reshape(-1, max(1, -(-n // WORD))),
                     condition_enabling.sum(axis=1).astype(np.int64),
                     action_sets(~rel.visible(names))[0], action_sets(closing)[0])


def _none() -> Reduction:
    empty, sets = np.zeros(0, np.int64), np.zeros((0, 1), np.int64)
    return Reduction(False, empty, sets, sets, np.zeros(1, np.int64), empty, np.zeros((0, 4), np.int64), sets, empty,
                     np.zeros(1, np.int64), np.zeros(1, np.int64))


NO_REDUCTION = _none()
"""Every enabled step is taken."""


def workspace(reduction: Reduction) -> tuple:
    """Scratch arrays for `search_template.stubborn` on these tables: the sets of enabled
    actions, of a candidate stubborn set, of its actions already closed over, of the best set so
    far and of the seeds tried; per condition its evaluation mark and value; the mark counter."""
    m, words = len(reduction.conditions), reduction.invisible.shape[0]
    return np.zeros((5, words), np.int64), np.zeros(m, np.int64), np.zeros(m, np.bool_), np.zeros(1, np.int64)


@kernel
def count_actions(word):
    """How many actions a word of a set of actions holds (its set bits; bit 63 is clear)."""
    word = word - ((word >> 1) & 0x5555555555555555)
    word = (word & 0x3333333333333333) + ((word >> 2) & 0x3333333333333333)
    word = (word + (word >> 4)) & 0x0F0F0F0F0F0F0F0F
    word = word + (word >> 8)
    word = word + (word >> 16)
    word = word + (word >> 32)
    return word & 0x7F


@kernel
def no_conditions(s, lay, code, a, b, c):
    """The condition test of a model that declares no conditions (`condition_holds`): never
    called, since such a model is not reduced."""
    return True
