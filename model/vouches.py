"""How a rule table's abstractions are vouched for: no row is an abstraction on words alone.

A row whose status is "abstraction" (`model.rule_table`) says the model merges or leaves out
behaviours on purpose. Each such row of a model is vouched for in that model's `abstractions`
module, in one of two ways:

- `Merges`: the row only merges behaviours the release has. Its claim, cited to Kafka's code
  at the tags it was read at, says which sequence of Kafka's own steps each step resting on the
  row is, and its `check` tests that for one step of a trace (or of a model's reachable graph,
  as a one-step trace): None when the step is that sequence, else why it is not. `trace audit`
  runs it on every step that rests on the row, and a step that fails it rests on a deviation.
- `KafkaChoice`: the model has Kafka's own behaviour as another choice of a rule; where a trace
  rests on the row, `trace audit` searches again with that choice, same model, bounds and
  property, and says what these bounds give with it.

A test computes the abstraction rows from the tables themselves and asserts each has an entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .rule_table import ABSTRACTION, Row

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


@dataclass(frozen=True)
class Steps:
    """A trace, or part of one, as a check reads it: the model it was found in, every state (the
    first one first) and every step's action; step i (1-based) leads from `states[i - 1]` to
    `states[i]`. A one-step `Steps` is a single edge of a model's reachable graph."""

    model: Any
    states: Sequence
    actions: Sequence[tuple]

    def before(self, i: int):
        """The state step i starts from."""
        return self.states[i - 1]

    def after(self, i: int):
        """The state step i leads to."""
        return self.states[i]

    def action(self, i: int) -> tuple:
        """Step i's action."""
        return tuple(self.actions[i - 1])

    def starts_at_creation(self) -> bool:
        """The first state is one of the model's initial states (the partition just created), so
        what happened before it is known: nothing."""
        return self.states[0] in self.model.initial_states()


Check = Callable[[Steps, int], "str | None"]
"""A claim's check of step i: None when it is the sequence of Kafka's steps the claim names,
else a one-line reason it is not."""


@dataclass(frozen=True)
class Merges:
    """An abstraction that only merges behaviours the release has: the claim (which sequence of
    Kafka's steps each abstracted step is), where in Kafka's code that was read
    (`model.citations` form), and the check of one step."""

    claim: str
    sources: str
    check: Check

    how = "merges"


@dataclass(frozen=True)
class KafkaChoice:
    """An abstraction whose Kafka behaviour is another choice of a rule: `choices` maps each
    variant the row is an abstraction in to its rule switches (rule -> choice), and the claim
    says what that choice is in Kafka's code, cited (`sources`)."""

    choices: Mapping[str, Mapping[str, str]]
    claim: str
    sources: str

    how = "kafka-choice"


Vouch = Merges | KafkaChoice


def unvouched(rows: Sequence[Row], vouches: Mapping[str, Vouch]) -> list[str]:
    """The keys of the rows with an abstraction status (for some column) that `vouches` has no
    entry for, in table order."""
    return [row.key for row in rows
            if not row.fixed and any(status.kind == ABSTRACTION for status in row.statuses) and row.key not in vouches]


def vouch_table(rows: Sequence[Row], vouches: Mapping[str, Vouch]) -> str:
    """The vouches as Markdown, one line per abstraction row of the table, in its order: the
    row, how it is vouched for, the claim and its sources."""
    lines = ["| audit key | vouched by | claim | Kafka source |", "|---|---|---|---|"]
    for row in rows:
        vouch = vouches.get(row.key)
        if vouch is None:
            continue
        if isinstance(vouch, KafkaChoice):
            switches = sorted({f"{rule}={choice}" for choices in vouch.choices.values()
                               for rule, choice in choices.items()})
            how = f"a search again with `{'`, `'.join(switches)}`"
        else:
            how = "a check of every step"
        lines.append(f"| `{row.key}` | {how} | {vouch.claim} | {vouch.sources} |")
    return "\n".join(lines)
