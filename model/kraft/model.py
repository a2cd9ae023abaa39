"""The `kraft` model: a quorum of voters replicating one log by KRaft's rules (see the package
docstring); variant `tla` is the TLA+ specification's steps."""

from __future__ import annotations

import marshal
from typing import Any

from . import json_state, tla, words
from .bounds import KRaftBounds
from .state import KRaftState, initial_state
from .symmetry import representative

VARIANTS = {"tla": "the steps of Vanlightly's TLA+ specification KRaft.tla (its message bag), for TLC's counts"}
"""The variants, by name, with their meaning."""


class KRaftModel:
    """KRaft replication among `replicas` voters, clients writing up to `max_records` values,
    at most `max_elections` elections and `max_restarts` restarts per behaviour."""

    name = "kraft"

    def __init__(self, variant: str, bounds: KRaftBounds):
        self.variant, self.bounds = variant, bounds

    def parameters(self) -> dict[str, int]:
        """The bounds, by their Python names."""
        return self.bounds._asdict()

    def initial_states(self) -> list[KRaftState]:
        """Every voter unattached in epoch 1, empty logs, nothing sent or written."""
        return [initial_state(self.bounds.replicas, self.bounds.max_records)]

    def successors(self, state: KRaftState):
        """Every enabled step (the specification's Next)."""
        return tla.successors(state, self.bounds)

    def representative(self, state: KRaftState) -> KRaftState:
        """The state standing for its orbit under renaming voters (`model.kraft.symmetry`)."""
        return representative(state)

    def action_kinds(self) -> tuple[str, ...]:
        """The specification's action names."""
        return tla.ACTION_KINDS

    def encode(self, state: KRaftState) -> bytes:
        """The state's tuples of whole numbers as bytes (`marshal`: same Python, same bytes)."""
        return marshal.dumps(tuple(state))

    def decode(self, data: bytes) -> KRaftState:
        """The state `encode` turned into `data`."""
        return KRaftState(*marshal.loads(data))

    def describe_step(self, action: tuple, before: KRaftState, after: KRaftState) -> str:
        """The step in KRaft's words."""
        return words.describe_step(action, before, after)

    def state_columns(self, state: KRaftState) -> dict[str, list[str]]:
        """One column per voter (epoch, role, vote, leader, log, HW) and the messages in flight."""
        return words.columns(state)

    def lanes(self, state: KRaftState) -> dict:
        """One lane per voter, for pictures."""
        return words.lanes(state)

    def state_to_json(self, state: KRaftState) -> dict[str, Any]:
        """The state as plain JSON data."""
        return json_state.to_json(state)

    def state_from_json(self, data: Any) -> KRaftState:
        """Rebuild a state from `state_to_json` output; raises ValueError when malformed."""
        return json_state.from_json(data, self.bounds.replicas, self.bounds.max_records)
