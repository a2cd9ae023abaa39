"""Named guards and named events: why steps were not taken, and what the steps taken did.

A model's compiled actions test each condition that can keep a step from being taken through
`holds(tally, GUARD, condition)`, which, given a two-column tally (a run that asked for its
coverage), counts in `tally[GUARD, REACHED]` every time the condition is tested and in
`tally[GUARD, FALSE]` every time it is false; a named outcome of a step (an unclean election,
an election from the ELR) is counted with `note(tally, EVENT)` where the step is emitted, in
either form of tally (a one-column tally counts events only). The names are declared once, in the
model's `GuardBook` (one module per model, next to its actions), and the kernel's own
conditions are what is counted: there is no second description of the rules for the report.

A guard belongs to an action kind or to events: what it lets happen (a guard of every
election belongs to each election event). Its count is of
evaluations, not states: a guard tested once per candidate replica counts each candidate it
turned away. `checker.coverage` reports, for an action or event that never fired (or rarely
did), the guard that was false every time it was tested, or else the one false most often.
"""

from __future__ import annotations

from typing import NamedTuple

from .jit import kernel


class Guard(NamedTuple):
    """A named entry of a tally: a guard (a condition `name` that must hold for a step of each
    of `owners`, action kinds or events, to be taken) or an event (`owners` is then its own
    name alone)."""

    owners: tuple[str, ...]
    name: str
    event: bool


class GuardBook:
    """A model's guards and events, each with its index in the tally (the order declared)."""

    def __init__(self, kinds: tuple[str, ...]):
        self.kinds = tuple(kinds)
        self.entries: list[Guard] = []

    def guard(self, owners: str | tuple[str, ...], name: str) -> int:
        """Declare a guard of an action kind or event (or of several): the condition `name`,
        said as what must hold ("the broker is alive"); its index."""
        owners = (owners,) if isinstance(owners, str) else tuple(owners)
        for owner in owners:
            if owner not in self.kinds and owner not in self.event_names():
                raise ValueError(f"guard {name!r}: {owner!r} is no action kind or event declared before it")
        self.entries.append(Guard(owners, name, False))
        return len(self.entries) - 1

    def guards_of(self, owner: str) -> list[int]:
        """The indices of the guards of action kind or event `owner`."""
        return [i for i, g in enumerate(self.entries) if not g.event and owner in g.owners]

    def event(self, name: str) -> int:
        """Declare a named outcome of some steps (e.g. "UncleanElection"); its index."""
        if name in self.kinds or name in self.event_names():
            raise ValueError(f"event {name!r} is declared twice, or is an action kind")
        self.entries.append(Guard((name,), name, True))
        return len(self.entries) - 1

    def event_names(self) -> list[str]:
        """The events, in declared order."""
        return [g.name for g in self.entries if g.event]

    def __len__(self) -> int:
        return len(self.entries)


NO_GUARDS = GuardBook(())
"""The book of a model that names no guards."""


GUARD_SAMPLE = 16
"""A search counts guards in one state of this many (a power of two): those whose fingerprint is
a multiple of it, the same states on every engine and at any partition count, by computing their
successors once more with the counting copy of the actions (`search_template.count_guards`).
Counting in every state cost the spec model's 10 M-state search 14 to 16 % of its time; this
costs it about 3 %, and a guard that keeps an action from firing is false in the sample as in
the rest. Events are counted in every state, and random walks count guards at every step."""

REACHED, FALSE = 0, 1
"""A tally's columns: times a guard was tested (an event: steps with it), and times it was
false."""


def empty_tally(book: GuardBook, guards: bool = True):
    """A zeroed tally for `book`: one row (REACHED, FALSE) per guard or event when `guards`
    are counted, else one count per entry, of which only the events' are used."""
    import numpy as np

    rows = max(len(book), 1)
    return np.zeros((rows, 2) if guards else rows, np.int64)


@kernel
def holds(tally, guard, condition):
    """`condition`, counting in `tally` that `guard` was tested and, when it is false, that it
    kept a step from being taken. A one-column tally counts no guards: its number of dimensions
    is known when the action is compiled, so that copy of the action has no counting left in
    it (counting guards costs time, so it is done on request, and a search does it in a sample
    of its states: `GUARD_SAMPLE`)."""
    if tally.ndim == 2:
        tally[guard, REACHED] += 1
        if not condition:
            tally[guard, FALSE] += 1
    return condition


@kernel
def note(tally, event):
    """Count one step with the named outcome `event` (in either form of tally)."""
    if tally.ndim == 2:
        tally[event, REACHED] += 1
    else:
        tally[event] += 1
