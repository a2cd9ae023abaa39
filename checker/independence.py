"""Which steps commute: the footprints a model declares, and the tables a reduced search reads.

A model that supports `--reduce` declares, for every action an instance can take, its
footprint (`Footprint`): the named cells of the state its enabling condition reads (`guard`),
every cell it reads, and every cell it writes. A cell is a tuple naming a piece of state, such
as ("log", 2) for broker 2's log or ("controller",) for the controller's record. It also
declares, per property, the action kinds that may change whether it holds.

From the footprints follow the three relations a stubborn-set reduction needs (Valmari's strong
stubborn sets, as in docs/reduction.md):

- dependence: two actions are dependent when one writes a cell the other reads or writes.
  Independent actions, both enabled, stay enabled whichever goes first and reach the same state
  in either order;
- necessary enablers: an action that is disabled can only become enabled by an action that
  can make one of its false conditions true (`needs`: conditions such as "broker 2 is up", each
  with the steps the model names as able to make it true); where none is false, by an action
  that writes one of its guard cells, except a guard cell that is a budget for it (`budgets`: a
  counter such as the crashes left, which its writers only use up);
- visibility: an action is visible to a property when its kind is among those the model
  declares may change whether the property holds (`changed_by`); the others never do.

A footprint can also be `EVERYTHING`: dependent on every action, visible to every property and
enabled by anything, which is always sound and reduces nothing (a model declares it for the
actions it has not described more finely). Every step the kernel can take must be declared.

The declarations are checked against the kernel (tests/test_footprints.py): on the reachable
states of small bound sets, every pair declared independent is explored in both orders, every
condition is checked to hold where its steps are enabled and to become true only by its
enablers, every step that enables a disabled action is checked to be among its declared
enablers, and every step that changes a property's truth is checked to be visible to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from .kernel.jit import python_of
from .kernel.steps import action_code

Cell = tuple
"""A named piece of state: (name, index...)."""


@dataclass(frozen=True)
class Footprint:
    """What one action reads and writes (module docstring). `reads` includes `guard` and
    `budgets`; `budgets` are guard cells whose writers never enable the action."""

    guard: frozenset = frozenset()
    reads: frozenset = frozenset()
    writes: frozenset = frozenset()
    budgets: frozenset = frozenset()
    everything: bool = False
    needs: tuple = ()
    """Conditions the action needs, each (code, a, b, c) of the model's conditions: whenever the
    action is enabled, every one holds; when one is false, only that condition's enablers can
    enable the action."""


EVERYTHING = Footprint(everything=True)
"""The footprint of an action not described more finely: dependent on all, visible to all."""


def footprint(guard: Iterable[Cell] = (), reads: Iterable[Cell] = (), writes: Iterable[Cell] = (),
              budgets: Iterable[Cell] = (), needs: Iterable[tuple] = ()) -> Footprint:
    """A footprint whose enabling condition reads `guard` and `budgets`, whose effect also reads
    `reads`, which writes `writes` and which needs the conditions `needs` ((code, arguments...))."""
    guard, budgets = frozenset(guard), frozenset(budgets)
    return Footprint(guard, guard | budgets | frozenset(reads), frozenset(writes), budgets,
                     needs=tuple(_padded(c) for c in needs))


class Independence:
    """The relations between the actions of one model instance, from their declared footprints
    (`declared`: (kind, a, b, c) -> Footprint), the steps that can make each condition true
    (`enablers`: condition (code, a, b, c) -> step keys) and the action kinds that may change
    each property (`changed_by`: property name -> kind indices, or None: any step may).

    `codes` lists the declared actions' codes in ascending order; an action's index is its place
    there. `dependence[i, j]`: actions i and j are dependent; `enabling[i, j]`: action j may
    enable action i (its necessary enablers when no condition it needs is known false);
    `conditions` lists every condition some action needs, as rows (code, a, b, c); `needs[i]`:
    the indices of action i's conditions; `condition_enabling[k, j]`: action j may make
    condition k true; `visible(names)` marks the actions visible to any of those properties."""

    def __init__(self, declared: Mapping[tuple, Footprint], changed_by: Mapping[str, frozenset | None],
                 enablers: Mapping[tuple, Iterable[tuple]] | None = None):
        by_code = {_code(fields): fp for fields, fp in declared.items()}
        self.codes = np.array(sorted(by_code), np.int64)
        self.footprints = [by_code[int(code)] for code in self.codes]
        self.kinds = np.array([fields[0] for fields in sorted(declared, key=_code)], np.int64)
        self.changed_by = dict(changed_by)
        cells = sorted({c for fp in self.footprints for c in fp.reads | fp.writes}, key=repr)
        column = {c: j for j, c in enumerate(cells)}
        n, m = len(self.codes), len(cells)
        reads, writes, enabling = (np.zeros((n, m), bool) for _ in range(3))
        every = np.array([fp.everything for fp in self.footprints], bool)
        for i, fp in enumerate(self.footprints):
            reads[i, [column[c] for c in fp.reads]] = True
            writes[i, [column[c] for c in fp.writes]] = True
            enabling[i, [column[c] for c in fp.guard - fp.budgets]] = True
        r, w, g = (a.astype(np.int32) for a in (reads, writes, enabling))
        dep = ((w @ (r + w).T) > 0) | ((r @ w.T) > 0)
        dep |= every[:, None] | every[None, :]
        np.fill_diagonal(dep, False)
        nes = (g @ w.T) > 0  # nes[i, j]: j may enable i
        nes |= every[:, None] | every[None, :]
        np.fill_diagonal(nes, False)
        self.dependence, self.enabling = dep, nes
        self.everything = every
        enablers = {_padded(c): [_code(k) for k in keys] for c, keys in (enablers or {}).items()}
        conditions = sorted({c for fp in self.footprints for c in fp.needs})
        missing = [c for c in conditions if c not in enablers]
        if missing:
            raise ValueError(f"conditions needed with no enablers declared: {missing[:3]}")
        row = {c: k for k, c in enumerate(conditions)}
        self.conditions = np.array(conditions, np.int64).reshape(-1, 4)
        self.needs = [np.array([row[c] for c in fp.needs], np.int64) for fp in self.footprints]
        self.condition_enabling = np.array([np.isin(self.codes, enablers[c]) for c in conditions],
                                           bool).reshape(len(conditions), n) | every[None, :]

    def visible(self, names: Iterable[str]) -> np.ndarray:
        """Per action, whether it is visible to any of the properties `names`: its kind may
        change whether one of them holds (every action, for a property not declared)."""
        seen = self.everything.copy()
        for name in names:
            kinds = self.changed_by.get(name)
            if kinds is None:
                return np.ones(len(self.codes), bool)
            seen |= np.isin(self.kinds, list(kinds))
        return seen


def _padded(condition: tuple) -> tuple:
    """A condition (code, arguments...) as (code, a, b, c), missing arguments being 0."""
    return tuple(int(x) for x in condition) + (0,) * (4 - len(condition))


def _code(fields: tuple) -> int:
    """The action code of (kind, arguments...), missing arguments being 0."""
    return python_of(action_code)(*fields, *(0,) * (4 - len(fields)))
