"""The `spec` model as the checker sees it: initial state, successors, and ways to show them."""

from __future__ import annotations

from typing import Any

import numpy as np

from checker.kernel.bridge import Kernel

from ..params import ModelError
from . import codec
from .bounds import SpecBounds
from .guards import BOOK
from .kinds import ACTION_KINDS
from .layout import spec_layout
from .state import NONE, LeaderAndIsr, Record, Replica, SpecState, initial_state, members, replica_set
from .successors import max_successors
from ..truncation_rules import RULES, WORDS
from .kip101 import NO_ANSWER, leader_answer
from .variants import MEANINGS, truncation_rule
from .words import describe_step, replica_columns, replica_lanes

ARITIES = (1, 1, 2, 1, 1, 2, 2, 2, 3)
"""How many arguments each action kind takes (replica ids and epochs), in `ACTION_KINDS` order."""


class SpecModel:
    """Kafka partition replication as in the public TLA+ specification, for one variant. The
    rules are the compiled kernel's (`model.spec.successors`); states shown to people are
    decoded from it."""

    name = "spec"

    def __init__(self, variant: str, bounds: SpecBounds):
        if variant not in MEANINGS:
            raise ModelError(f"unknown variant {variant!r} for model spec (choose from {', '.join(MEANINGS)})")
        from invariants.spec import INVARIANTS

        self.variant = variant
        self.bounds = bounds
        lay = spec_layout(bounds, variant)
        self.kernel = Kernel("model.spec.kernel", lay, ACTION_KINDS, ARITIES, max_successors(lay),
                             lambda state: codec.encode(state, lay), lambda row: codec.decode(row, lay),
                             bounds.replicas, tuple(inv.name for inv in INVARIANTS), guards=BOOK)

    def parameters(self) -> dict[str, int]:
        """The bounds, by CLI name with underscores."""
        return self.bounds._asdict()

    def initial_states(self) -> list[SpecState]:
        """The single initial state: empty logs, no leader, no requests."""
        return [initial_state(self.bounds.replicas)]

    def successors(self, state: SpecState):
        """Every enabled protocol step from `state`, as (action, next state) pairs, in action order."""
        return self.kernel.successors(state)

    def action_kinds(self) -> tuple[str, ...]:
        """The specification's action names."""
        return ACTION_KINDS

    def encode(self, state: SpecState) -> bytes:
        """The packed row as bytes (see `model.spec.layout`); `decode` inverts it."""
        return self.kernel.encode(state).tobytes()

    def decode(self, data: bytes) -> SpecState:
        """The state `encode` wrote."""
        return self.kernel.decode(np.frombuffer(data, np.int8))

    def describe_step(self, action: tuple, before: SpecState, after: SpecState) -> str:
        """The step in Kafka's words (see `model.spec.words`)."""
        return describe_step(action, before, after, WORDS[self.truncation_rule()])

    def truncation_rule(self) -> str:
        """The rule by which a replica becoming follower truncates under this variant (a name
        from `model.truncation_rules.RULES`), asked of the rule the search dispatches on."""
        return RULES[truncation_rule(self.kernel.layout)]

    def kip101_answer(self, state: SpecState, r: int, ldr: int) -> int | None:
        """The leader `ldr`'s answer to replica r's question "where does the epoch of my last
        record end in your log?", by the kip101 rule itself (`kip101.leader_answer`); None when
        its log gives none (the rule then falls back to r's HW)."""
        answer = leader_answer(self.kernel.encode(state), self.kernel.layout, r, ldr)
        return None if answer == NO_ANSWER else int(answer)

    def state_columns(self, state: SpecState) -> dict[str, list[str]]:
        """One column per replica (log, LEO, HW, epoch, role) and one for the controller."""
        return replica_columns(state)

    def lanes(self, state: SpecState) -> dict:
        """One lane per replica (log cells, HW, LEO, leadership), for pictures."""
        return replica_lanes(state)

    def state_to_json(self, state: SpecState) -> dict[str, Any]:
        """The state as plain JSON data; replica ids are 0-based, `null` is no leader."""
        def view(leader: int) -> int | None:
            return None if leader == NONE else leader

        def request(q: LeaderAndIsr) -> dict[str, Any]:
            return {"epoch": q.epoch, "leader": view(q.leader), "isr": list(members(q.isr))}

        return {
            "replicas": [
                {"log": [[rec.id, rec.epoch] for rec in rep.log], "hw": rep.hw, "epoch": rep.epoch,
                 "leader": view(rep.leader), "isr": list(members(rep.isr))}
                for rep in state.replicas
            ],
            "next_record_id": state.next_record_id,
            "requests": [request(q) for q in state.requests],
            "quorum": request(state.quorum),
        }

    def state_from_json(self, data: Any) -> SpecState:
        """Rebuild a state from `state_to_json` output, checking shape and ranges against the
        bounds; raises ValueError naming what is wrong."""
        b = self.bounds

        def integer(value: Any, lo: int, hi: int, what: str) -> int:
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ValueError(f"{what} must be an integer in {lo}..{hi}, got {value!r}")
            return value

        def replica_id(value: Any, what: str) -> int:
            return NONE if value is None else integer(value, 0, b.replicas - 1, what)

        def isr(value: Any, what: str) -> int:
            if not isinstance(value, list):
                raise ValueError(f"{what} must be a list of replica ids")
            return replica_set(integer(r, 0, b.replicas - 1, what) for r in value)

        def request(value: Any, what: str) -> LeaderAndIsr:
            if not isinstance(value, dict):
                raise ValueError(f"{what} must be an object")
            return LeaderAndIsr(integer(value.get("epoch"), -1, b.max_epoch, f"{what}.epoch"),
                                replica_id(value.get("leader"), f"{what}.leader"), isr(value.get("isr"), f"{what}.isr"))

        def replica(value: Any, i: int) -> Replica:
            what = f"replicas[{i}]"
            if not isinstance(value, dict) or not isinstance(value.get("log"), list):
                raise ValueError(f"{what} must be an object with a log list")
            if len(value["log"]) > b.log_size:
                raise ValueError(f"{what}.log is longer than log-size {b.log_size}")
            log = []
            for rec in value["log"]:
                if not (isinstance(rec, list) and len(rec) == 2):
                    raise ValueError(f"{what}.log entries must be [id, epoch] pairs")
                log.append(Record(integer(rec[0], 0, b.max_records - 1, f"{what} record id"),
                                  integer(rec[1], -1, b.max_epoch, f"{what} record epoch")))
            return Replica(tuple(log), integer(value.get("hw"), 0, b.log_size, f"{what}.hw"),
                           integer(value.get("epoch"), -1, b.max_epoch, f"{what}.epoch"),
                           replica_id(value.get("leader"), f"{what}.leader"), isr(value.get("isr"), f"{what}.isr"))

        if not isinstance(data, dict) or not isinstance(data.get("replicas"), list):
            raise ValueError("a spec state must be an object with a replicas list")
        if len(data["replicas"]) != b.replicas:
            raise ValueError(f"state has {len(data['replicas'])} replicas, the bounds say {b.replicas}")
        if not isinstance(data.get("requests"), list):
            raise ValueError("state.requests must be a list")
        return SpecState(
            replicas=tuple(replica(v, i) for i, v in enumerate(data["replicas"])),
            next_record_id=integer(data.get("next_record_id"), 0, b.max_records, "next_record_id"),
            requests=tuple(request(q, f"requests[{i}]") for i, q in enumerate(data["requests"])),
            quorum=request(data.get("quorum"), "quorum"),
        )
