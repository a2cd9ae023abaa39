"""The `kraft` model: a quorum of voters replicating one log by KRaft's rules (see the package
docstring). Variant `tla` takes the TLA+ specification's steps (`model.kraft.tla`); the faithful
variants, Kafka's (`model.kraft.kafka`), under their rule set (`model.kraft.rules`). Both are
compiled kernels over packed states, and the readable states are decoded from them."""

from __future__ import annotations

from typing import Any

import numpy as np

from checker.invariant import StepProperty
from checker.kernel.bridge import Kernel
from checker.kernel.steps import ARG_LIMIT

from ..params import ModelError
from . import json_state, voter_sets, words
from .bounds import LISTED, KRaftBounds
from .kafka import codec as kafka_codec, guards as kafka_guards, kinds as kafka_kinds
from .kafka.layout import kafka_layout
from .kafka.successors import max_successors as kafka_max_successors
from .rules import RULE_BOOK, TLA, VARIANTS as FAITHFUL, rules_of
from .state import KRaftState, initial_state
from .tla import codec
from .tla.guards import BOOK
from .tla.kinds import ACTION_KINDS as TLA_ACTION_KINDS, ARITIES, CLIENT_REQUEST
from .tla.layout import tla_layout
from .tla.successors import max_successors

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

CLIENT_WRITES = (kafka_kinds.ACTION_KINDS[kafka_kinds.CLIENT_APPEND], TLA_ACTION_KINDS[CLIENT_REQUEST])
"""The steps in which a client writes a value, its second argument (both variants')."""

VARIANTS = {**{name: f"Kafka {v.releases}: {v.meaning}" for name, v in FAITHFUL.items()}, "tla": TLA}
"""The variants, by name, with their meaning."""


class KRaftModel:
    """KRaft replication among `replicas` voters, clients writing up to `max_records` values,
    at most `max_elections` elections and `max_restarts` restarts per behaviour."""

    name = "kraft"

    def __init__(self, variant: str, bounds: KRaftBounds):
        rule_set = RULE_BOOK.resolve(variant)
        self.variant, self.bounds, self.rules = rule_set.name, bounds, dict(rule_set.choices)
        self.faithful = rule_set.preset != "tla"
        if not self.faithful and bounds.max_disk_losses:
            raise ModelError("--max-disk-losses needs a faithful variant (kip595 to kafka40): the TLA+ specification "
                             "has no lost disk")
        dynamic = self.faithful and self.rules["voter-key"] == "directory"
        _check_voter_changes(dynamic, bounds)
        _check_reformat(dynamic, bounds)
        self.kernel = self._faithful_kernel(rule_set) if self.faithful else self._tla_kernel()

    def _tla_kernel(self) -> Kernel:
        """Variant `tla`'s compiled kernel (`model.kraft.tla`), whose steps are the readable ones."""
        b = self.bounds
        lay = tla_layout(b.replicas, b.max_records, b.max_elections, b.max_restarts)
        return Kernel("model.kraft.tla.kernel", lay, TLA_ACTION_KINDS, ARITIES, max_successors(lay),
                      lambda state: codec.encode(state, lay), lambda row: codec.decode(row, lay), b.replicas,
                      *_property_names(), guards=BOOK, replica_acts=tuple(False for _ in TLA_ACTION_KINDS),
                      label=lambda fields, row: codec.action_value(lay, fields, row))

    def _faithful_kernel(self, rule_set) -> Kernel:
        """A faithful variant's compiled kernel (`model.kraft.kafka`), its rule set carried in
        the layout. Its codes name voters 1..n, so coverage is kept per action, not per replica
        (whose ids the coverage report reads as 0-based)."""
        b, rules = self.bounds, rules_of(rule_set)
        lay = kafka_layout(b.replicas, b.max_records, b.max_elections, b.max_restarts, b.max_disk_losses,
                           rules.periodic_begin_quorum, rules.directory_ids, rules.commit_past_epoch_start,
                           rules.guarded_voter_changes, b.spares, b.max_voter_changes, rules.pre_vote, rules.keeps_vote,
                           reformat_listed=b.reformat == LISTED)
        self._layout = lay
        return Kernel("model.kraft.kafka.kernel", lay, kafka_kinds.ACTION_KINDS, kafka_kinds.ARITIES,
                      kafka_max_successors(lay), lambda state: kafka_codec.encode(state, lay),
                      lambda row: kafka_codec.decode(row, lay), b.replicas, *_property_names(),
                      guards=kafka_guards.BOOK, replica_acts=tuple(False for _ in kafka_kinds.ACTION_KINDS))

    def parameters(self) -> dict[str, int]:
        """The bounds, by their Python names."""
        return self.bounds._asdict()

    def initial_states(self) -> list[KRaftState]:
        """Every controller unattached with an empty log, nothing sent or written: in epoch 0 as
        Kafka starts (no quorum-state file), in epoch 1 as the specification does. Under KIP-853
        the first controllers hold the bootstrap checkpoint naming them voters, each on its first
        directory, and the spares none."""
        first = initial_state(self.bounds.replicas, self.bounds.max_records)
        if self.faithful:
            n, lay = self.bounds.replicas, self._layout
            boot = voter_sets.code({v: 0 for v in range(1, n - self.bounds.spares + 1)}, n) if lay.directory_ids \
                else 0
            return [first._replace(epoch=(0,) * n, flushed=(0,) * n, start_offset=(0,) * n, heard=(0,) * n,
                                   directory=(0,) * n, end_offset=((0,) * lay.keys,) * n, voter_op=(0,) * n,
                                   boot=boot)]
        return [first]

    def successors(self, state: KRaftState):
        """Every enabled step: Kafka's, or the specification's Next."""
        return self.kernel.successors(state)

    def action_kinds(self) -> tuple[str, ...]:
        """The names of the variant's steps."""
        return self.kernel.action_kinds

    def is_step(self, action: tuple) -> bool:
        """Whether `action` is a step of this variant: one of its kinds with that kind's arguments,
        the voter that acts and (but for a client's write, whose second is its value) the other
        voter it names, a handled message's sender, each one of the n; a value or epoch fits an
        action code's four bits."""
        kinds, args = self.kernel.action_kinds, action[1:]
        if action[0] not in kinds or len(args) != self.kernel.arities[kinds.index(action[0])]:
            return False
        voters = args[:1] if action[0] in CLIENT_WRITES else args[:2]
        return all(1 <= v <= self.bounds.replicas for v in voters) and all(0 <= a < ARG_LIMIT for a in args)

    def encode(self, state: KRaftState) -> bytes:
        """The state as bytes: its packed row (`model.kraft.tla.layout`, `model.kraft.kafka.layout`)."""
        return self.kernel.encode(state).tobytes()

    def decode(self, data: bytes) -> KRaftState:
        """The state `encode` turned into `data`."""
        return self.kernel.decode(np.frombuffer(data, np.int8))

    def describe_step(self, action: tuple, before: KRaftState, after: KRaftState) -> str:
        """The step in KRaft's words."""
        return words.describe_step(action, before, after)

    def state_columns(self, state: KRaftState) -> dict[str, list[str]]:
        """One column per voter (epoch, role, vote, leader, log, HW) and the messages in flight."""
        return words.columns(state)

    def lanes(self, state: KRaftState) -> dict:
        """One lane per voter, for pictures."""
        return words.lanes(state)

    def audit(self, trace):
        """`trace` judged step by step against Kafka's code: the rule-table rows each step rests
        on and their status in this variant's releases (`model.kraft.audit`), each abstraction
        vouched for as `model.kraft.abstractions` says (`traces.vouching`)."""
        from traces.vouching import vouched

        from .abstractions import VOUCHES
        from .audit import audit_trace

        return vouched(audit_trace(trace, self), trace, self, VOUCHES)

    def state_to_json(self, state: KRaftState) -> dict[str, Any]:
        """The state as plain JSON data."""
        return json_state.to_json(state)

    def state_from_json(self, data: Any) -> KRaftState:
        """Rebuild a state from `state_to_json` output; raises ValueError when malformed."""
        return json_state.from_json(data, self.bounds.replicas, self.bounds.max_records)


def _check_voter_changes(dynamic: bool, bounds: KRaftBounds) -> None:
    """Refuse voter-change bounds a variant cannot take: spares and voter changes need dynamic
    voters (`voter-key` directory, kip853), spares leave at least one voter, and a set of this
    many controllers must name every directory id a lost disk can give."""
    if not dynamic and (bounds.spares or bounds.max_voter_changes):
        raise ModelError("--spares and --max-voter-changes need dynamic voters (variant kip853 or kafka40, rule voter-key="
                         "directory): static voters never change")
    if bounds.spares >= bounds.replicas:
        raise ModelError(f"--spares {bounds.spares} leaves no voter among {bounds.replicas} controllers")
    if bounds.max_voter_changes and bounds.max_disk_losses > voter_sets.max_directory(bounds.replicas):
        raise ModelError(f"with voter changes, {bounds.replicas} controllers allow at most "
                         f"--max-disk-losses {voter_sets.max_directory(bounds.replicas)} (a voter set is one int8 slot)")


def _check_reformat(dynamic: bool, bounds: KRaftBounds) -> None:
    """Refuse `--reformat initial-controllers` where it formats nothing different: a static
    quorum's disk is formatted without --initial-controllers (kraft.version 0), and without
    --max-disk-losses no disk is lost."""
    if bounds.reformat != LISTED:
        return
    if not dynamic:
        raise ModelError("--reformat initial-controllers needs dynamic voters (variant kip853 or kafka40, rule "
                         "voter-key=directory): a static quorum is formatted without --initial-controllers")
    if not bounds.max_disk_losses:
        raise ModelError("--reformat initial-controllers needs --max-disk-losses: without a lost disk nothing is "
                         "formatted again")


def _property_names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the `kraft` invariants and of its step properties, as a kernel lists them."""
    from invariants.kraft import INVARIANTS

    return (tuple(p.name for p in INVARIANTS if not isinstance(p, StepProperty)),
            tuple(p.name for p in INVARIANTS if isinstance(p, StepProperty)))
