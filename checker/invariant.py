"""Named properties the checker evaluates on every reachable state or step: invariants, which
must always hold, and witnesses, reachability questions answered with the shortest trace to a
state or step that has them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from traces.text import printable

from .model import State


@dataclass(frozen=True)
class Invariant:
    """A predicate that must hold in every reachable state.

    `summary` is one line for listings; `meaning` (usually the predicate's docstring) says
    what a violation means for a user of the protocol. `needs_ghost` marks predicates that
    read ghost variables, which a model keeps only when asked to.

    A `witness` asks the opposite question: is some reachable state one where the predicate is
    false? The engines find it exactly as they find a violation (same shortest trace, same tie
    rule); only the reports differ: a witness is 'reachable' or 'unreachable', never a failure.
    """

    name: str
    summary: str
    holds: Callable[[State], bool]
    needs_ghost: bool = False
    symmetric: bool = True
    """Renaming replicas never changes the verdict, so symmetry reduction may be used."""
    kernel: Callable | None = None
    """For a model with a compiled kernel: the predicate over packed rows, (row, layout) ->
    bool. `holds` is then derived from it by encoding, never written twice."""
    witness: bool = False
    """A reachability question: the states where `holds` is false are what is looked for."""
    only_when: Callable[[dict], bool] | None = None
    """The model parameters under which the predicate means anything (None: all of them);
    elsewhere it is not checked and its verdict is 'n/a'."""
    named_only: str = ""
    """Why this invariant is checked only when named (empty: it is among the defaults), for an
    invariant that fails by its model's own design."""
    milestones: tuple[str, ...] = ()
    """The stages of the usual story of a violation, levels 1, 2, ... (empty: none), which
    simulation steers by (`checker.simulation.splitting`): the model's kernel gives a state's level with
    `milestone(row, layout, bit)`, bit being this invariant's place in the kernel's list."""

    @property
    def meaning(self) -> str:
        """What a violation of this invariant (or reaching this witness) means, from the
        predicate's docstring (`printable`: a model package may have written it)."""
        return printable(((self.kernel or self.holds).__doc__ or self.summary).strip())


@dataclass(frozen=True)
class StepProperty:
    """A predicate over every step (state, action, next state) the search takes, for
    properties about change rather than about one state ("a leader's HW never moves back").
    Its counterexample ends with the step that breaks it. A `witness` step property asks
    whether some reachable step breaks it, and its trace ends with the first such step."""

    name: str
    summary: str
    holds: Callable[[State, tuple, State], bool]
    needs_ghost: bool = False
    symmetric: bool = True
    """Renaming replicas never changes the verdict, so symmetry reduction may be used."""
    witness: bool = False
    """A reachability question: the steps where `holds` is false are what is looked for."""
    only_when: Callable[[dict], bool] | None = None
    """The model parameters under which the predicate means anything (None: all of them)."""

    @property
    def meaning(self) -> str:
        """What a violation of this property (or reaching this witness) means, from the
        predicate's docstring (`printable`: a model package may have written it)."""
        return printable((self.holds.__doc__ or self.summary).strip())


def applies(prop: Invariant | StepProperty, model) -> bool:
    """The property means something for this model instance (see `only_when`, asked with the
    model's parameters, its variant and its rules' choices): an ISR invariant, say, has nothing
    to read under a majority quorum."""
    return prop.only_when is None or prop.only_when(settings(model))


def settings(model, variant: str | None = None, rules=None) -> dict:
    """What `only_when` is asked with: the model's parameters, its variant's name and every
    rule's choice (rule -> choice; empty for a model without rules), or those of another
    `variant` with `rules`."""
    if variant is None:
        variant, rules = getattr(model, "variant", None), getattr(model, "rules", {})
    return {**model.parameters(), "variant": variant, "rules": dict(rules or {})}


def scope(prop: Invariant | StepProperty) -> str | None:
    """What a property reads that only some settings have, in words (the first clause of its
    `only_when` docstring: "Kafka's ISR, which only --quorum isr has"); None when it always
    applies."""
    if prop.only_when is None:
        return None
    return " ".join((prop.only_when.__doc__ or prop.only_when.__name__).split(":")[0].split()).replace("`", "")


def record_broken_steps(properties, parent_fp: int, before: State, action: tuple, after: State, broken: dict) -> None:
    """For each step property that the step (before, action, after) breaks, keep in `broken`
    the smallest (parent fingerprint, action) seen so far: the engines' deterministic choice of
    which breaking step to report."""
    for prop in properties:
        if not prop.holds(before, action, after):
            known = broken.get(prop.name)
            if known is None or (parent_fp, action) < known:
                broken[prop.name] = (parent_fp, action)
