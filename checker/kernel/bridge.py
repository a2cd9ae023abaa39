"""What a model with a compiled kernel tells the engines, and the readable view derived from it.

A `Kernel` names the model's kernel module (for the compiled search loop), its layout (bounds
at run time), its action kinds and their arities (to turn action codes back into action
values), and its encoder and decoder between readable states and packed rows. Its
`successors` is the model's readable next-state relation: encode, run the compiled actions,
decode. No rule is written twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .guards import NO_GUARDS, GuardBook, empty_tally
from .instantiate import search_module
from .reduction import NO_REDUCTION, Reduction
from .steps import action_fields


@dataclass
class Kernel:
    """The compiled side of one model instance (see the module docstring)."""

    module: str
    layout: Any
    action_kinds: tuple[str, ...]
    arities: tuple[int, ...]
    max_successors: int
    encode: Callable[[Any], np.ndarray]
    decode: Callable[[np.ndarray], Any]
    replicas: int
    invariant_names: tuple[str, ...]
    step_property_names: tuple[str, ...] = ()
    guards: GuardBook = NO_GUARDS
    """The model's named guards and events (`checker.kernel.guards`), which its actions count."""
    replica_acts: tuple[bool, ...] | None = None
    """Per action kind, whether its first argument is the replica that acts (coverage is then
    also kept per replica, `checker.coverage`); None: every kind with an argument."""
    label: Callable[[tuple, np.ndarray], tuple] | None = None
    """For a model whose action codes need the state they are taken from to be read (a code that
    names a message by its place in a bag): (action fields, packed row before) -> action value.
    None: the code's own kind and arguments are the action."""
    count_guards: bool = False
    """Whether searches and walks on this kernel count how often each guard was tested and
    false (`--coverage`); events are counted always."""
    reduction: Reduction = NO_REDUCTION
    """The stubborn-set tables a search on this kernel reduces by (`--reduce`,
    `checker.kernel.reduction`); off by default."""
    _buffers: tuple = field(default=(), repr=False)

    @property
    def search(self):
        """The compiled search loop for this model (`search_template`, instantiated)."""
        return search_module(self.module)

    def acting_replicas(self) -> tuple[bool, ...]:
        """`replica_acts`, with its default filled in."""
        if self.replica_acts is not None:
            return self.replica_acts
        return tuple(arity > 0 for arity in self.arities)

    @property
    def width(self) -> int:
        """Bytes in one packed row."""
        return self.layout.width

    def new_tally(self) -> np.ndarray:
        """A zeroed tally for this kernel's actions: guards and events with `count_guards`,
        else events only (`checker.kernel.guards.empty_tally`)."""
        return empty_tally(self.guards, self.count_guards)

    def buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A successor buffer (rows), its action codes and an events-only tally, reused between
        calls."""
        if not self._buffers:
            self._buffers = (np.zeros((self.max_successors, self.width), np.int8),
                             np.zeros(self.max_successors, np.int64), empty_tally(self.guards, False))
        return self._buffers

    def successor_rows(self, row: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """Every step from packed `row` as (action code, packed successor), in action-code order."""
        out, acts, tally = self.buffers()
        n = self.search.successors(row, self.layout, out, acts, tally)
        return sorted(((int(acts[j]), out[j].copy()) for j in range(n)), key=lambda pair: pair[0])

    def action_value(self, code: int, row: np.ndarray | None = None) -> tuple:
        """The action value (name, args...) an action code taken from packed `row` stands for
        (`row` is needed only by a model with a `label`)."""
        if self.label is not None:
            return self.label(action_fields(code), row)
        kind, *args = action_fields(code)
        return (self.action_kinds[kind], *args[:self.arities[kind]])

    def successors(self, state) -> list[tuple[tuple, Any]]:
        """The readable next-state relation: every step from `state` as (action value, state)."""
        row = self.encode(state)
        return [(self.action_value(code, row), self.decode(nxt)) for code, nxt in self.successor_rows(row)]
