"""The wall between the checker and the models: what a model must offer to be explored."""

from __future__ import annotations

from typing import Any, Hashable, Iterable, Mapping, NamedTuple, Protocol, Sequence, Tuple

State = Hashable
"""A model state: an immutable value built only from ints and tuples, so that its hash is
the same in every Python process (see `checker.fingerprint`)."""

Action = Tuple[Any, ...]
"""An action value: a tuple whose first item is the action's name and whose other items
are its parameters (replica ids, epochs...). Actions are ordered, which breaks ties
between equally short paths deterministically."""


class Lane(NamedTuple):
    """How a picture shows one replica (or participant) at one step: its log cells (record
    names in offset order), its HW and LEO (None when the model has no log), whether it presumes
    leadership, and a caption (epoch and role). Models with disks and messages also give how
    many cells are flushed (the rest is only in the page cache), whether the broker is up, and
    its in-flight message as (peer, label, 'to' or 'from')."""

    cells: tuple[str, ...]
    hw: int | None
    leo: int | None
    leader: bool
    caption: str
    flushed: int | None = None
    alive: bool = True
    message: tuple[str, str, str] | None = None


class Model(Protocol):
    """A transition system the checker can explore.

    The checker only ever asks for the initial states and, for a state, its successors as
    (action, next state) pairs. Everything else here serves people: names, parameters,
    and ways to show states and steps.
    """

    name: str
    variant: str | None

    def parameters(self) -> Mapping[str, Any]:
        """The bounds and configuration this instance was built with, by name."""

    def initial_states(self) -> Sequence[State]:
        """Every initial state of the system."""

    def successors(self, state: State) -> Iterable[tuple[Action, State]]:
        """Every enabled step from `state`, as (action, next state) pairs."""

    def describe_step(self, action: Action, before: State, after: State) -> str:
        """The step in the protocol's own words, for a person reading a trace."""

    def state_to_json(self, state: State) -> Any:
        """The state as JSON-ready data, inverse of `state_from_json`."""

    def state_from_json(self, data: Any) -> State:
        """Rebuild a state from `state_to_json` output; raises ValueError when malformed."""

    def state_columns(self, state: State) -> dict[str, list[str]]:
        """The state as named columns of text lines (one per replica, say), for step tables."""

    def action_kinds(self) -> tuple[str, ...]:
        """The names every action value may start with (the first item of its tuple)."""

    def encode(self, state: State) -> bytes:
        """The state as compact bytes, for engines that ship states between processes."""

    def decode(self, data: bytes) -> State:
        """The state `encode` turned into `data`."""

    def lanes(self, state: State) -> dict:
        """The state as one `Lane` per replica, by name, for pictures and explanations."""
