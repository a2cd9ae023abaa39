"""The `fetch` model as the checker sees it: initial state, successors, and ways to show them."""

from __future__ import annotations

from typing import Any

import numpy as np

from checker.kernel.bridge import Kernel

from ..params import ModelError
from . import codec, json_state
from .bounds import FetchConfig
from .guards import BOOK, relied_on
from .kinds import (ACTION_KINDS, ARGUMENTS, ARITIES, EPOCH, LEADER_AFTER, NO_LEADER, NO_VOTER, RECORD, REPLICA,
                    REPLICA_ACTS, VOTER)
from .layout import fetch_layout
from .retries import produce_outcome
from .rules import RULE_BOOK, check_quorum
from .state import NO_EPOCH, NO_FETCH, NONE, UNSENT, Broker, Controller, FetchState, LeaderAndIsr, ProducerRecord
from ..truncation_rules import RULES
from .successors import max_successors
from .elr import elr_after
from .truncation import UNDEFINED, asked_epoch, kip101_answer, kip279_walk
from .rule_kernels import cache_at_first_append, truncation_rule
from .words import broker_columns, broker_lanes, describe_step


class FetchModel:
    """FETCH-level Kafka replication for one rule set (a variant, or a variant with some rules
    switched: `variant` is its name, `rules` every rule's choice) and configuration. With `ghost` the
    state also records acknowledged and committed writes (for the invariants that need them).
    The rules are the compiled kernel's (`model.fetch.successors`); states shown to people are
    decoded from it."""

    name = "fetch"
    retired_choices = RULE_BOOK.retired

    def __init__(self, variant: str, config: FetchConfig, ghost: bool = False):
        rule_set = RULE_BOOK.resolve(variant)
        if config.min_insync_replicas > config.replicas:
            raise ModelError(f"--min-insync-replicas ({config.min_insync_replicas}) cannot exceed --replicas "
                             f"({config.replicas})")
        if config.max_disk_losses > config.max_crashes:
            raise ModelError(f"--max-disk-losses ({config.max_disk_losses}) cannot exceed --max-crashes "
                             f"({config.max_crashes}): a broker restarts on an empty disk only after a crash")
        check_quorum(rule_set, config.quorum)
        if config.quorum != "isr" and (config.controlled_shutdown or config.max_fencings):
            given = "--controlled-shutdown" if config.controlled_shutdown else "--max-fencings"
            raise ModelError(f"--quorum {config.quorum} elects by votes: {given}, which has the controller "
                             f"move leadership, does not apply")
        if config.quorum != "isr" and config.unclean_leader_election:
            raise ModelError(f"--quorum {config.quorum} elects by votes: --unclean-leader-election does not apply")
        if not config.retries and (config.max_in_flight != 1 or config.idempotence):
            given = f"--max-in-flight {config.max_in_flight}" if config.max_in_flight != 1 else "--idempotence"
            raise ModelError(f"{given}: --max-in-flight and --idempotence apply only with --retries (without it "
                             f"each write is one atomic step)")
        from invariants.fetch import STATE_INVARIANTS, STEP_PROPERTIES

        self.variant, self.rules, self.config, self.ghost = rule_set.name, rule_set.choices, config, ghost
        lay = fetch_layout(config, rule_set.choices, ghost)
        self.kernel = Kernel("model.fetch.kernel", lay, ACTION_KINDS, ARITIES, max_successors(lay),
                             lambda state: codec.encode(state, lay), lambda row: codec.decode(row, lay),
                             config.replicas, tuple(inv.name for inv in STATE_INVARIANTS),
                             tuple(prop.name for prop in STEP_PROPERTIES), BOOK, REPLICA_ACTS)

    def parameters(self) -> dict[str, Any]:
        """Bounds and configuration, by Python name."""
        return self.config._asdict()

    def initial_states(self) -> list[FetchState]:
        """Every broker up with an empty log; the controller has made r1 leader in epoch 0 with
        every replica in the ISR and sent that LeaderAndIsr, which no broker has handled yet.
        Under rule preferred-replica=rebalanced r1 is also the preferred replica: Kafka's first
        election of a new partition takes the first live replica of its assignment
        (`PartitionStateMachine.initializeLeaderAndIsrForPartition` @ 0.10.2.0,
        `initializeLeaderAndIsrForPartitions` @ 2.1.0). A retrying
        producer has sent nothing yet. (Which replica leads first is a renaming: symmetry
        reduction covers the others.)"""
        n = self.config.replicas
        everyone = (1 << n) - 1
        first = LeaderAndIsr(0, 0, everyone)
        broker = Broker(True, (), 0, 0, (), 0, NO_EPOCH, NONE, 0, (-1,) * n, NO_FETCH, (first,))
        producer = (ProducerRecord(UNSENT),) * self.config.max_records if self.config.retries else ()
        preferred = 0 if self.rules["preferred-replica"] == "rebalanced" else NONE
        return [FetchState((broker,) * n, Controller(0, 0, everyone, 0, preferred=preferred), 0, 0, producer=producer)]

    def successors(self, state: FetchState):
        """Every enabled step from `state`, as (action, next state) pairs in action order, with
        the ghost variables brought up to date after each."""
        return self.kernel.successors(state)

    def relied_on(self) -> list[str]:
        """The actions and events this rule set and configuration switch on, which a run that
        checks it should see happen (`guards.relied_on`)."""
        return relied_on(self.rules, self.config)

    def action_kinds(self) -> tuple[str, ...]:
        """The step names."""
        return ACTION_KINDS

    def is_step(self, action: tuple) -> bool:
        """Whether `action` names a step of this model under its bounds, whatever its rules: one of its
        kinds with that kind's arguments, each a broker, leader epoch or record there is (a controller's
        leader after the step may be `NO_LEADER`, an election's voter `NO_VOTER`). A trace saved before a
        fix may hold steps this rule set no longer takes, or takes elsewhere."""
        if action[0] not in ACTION_KINDS:
            return False
        c = self.config
        brokers = range(c.replicas)
        names = {REPLICA: brokers, LEADER_AFTER: (*brokers, NO_LEADER), VOTER: (*brokers, NO_VOTER),
                 EPOCH: range(c.max_epoch + 1), RECORD: range(c.max_records)}
        arguments = ARGUMENTS[ACTION_KINDS.index(action[0])]
        return len(action) == 1 + len(arguments) and all(a in names[kind] for a, kind in zip(action[1:], arguments))

    def encode(self, state: FetchState) -> bytes:
        """The packed row as bytes (see `model.fetch.layout`); `decode` inverts it."""
        return self.kernel.encode(state).tobytes()

    def decode(self, data: bytes) -> FetchState:
        """The state `encode` wrote."""
        return self.kernel.decode(np.frombuffer(data, np.int8))

    def describe_step(self, action: tuple, before: FetchState, after: FetchState) -> str:
        """The step in Kafka's words; how a leader handled a produce request is asked of the
        rule itself (`retries.produce_outcome`)."""
        outcome = None
        if action[0] == "LeaderHandleProduce":
            outcome = produce_outcome(self.kernel.encode(before), self.kernel.layout, *action[1:])
        return describe_step(action, before, after, outcome)

    def reduction(self, names):
        """The stubborn-set tables for a search checking the state properties `names`
        (`--reduce`): the relations of this instance's declared footprints and conditions
        (`model.fetch.footprints`), whose every cycle takes a step of `CYCLE_KINDS`."""
        from checker.independence import Independence
        from checker.kernel.reduction import reduction_tables

        from .footprints import CYCLE_KINDS, changed_by, condition_enablers, step_footprints

        lay = self.kernel.layout
        steps = step_footprints(lay)
        return reduction_tables(Independence(steps, changed_by(lay, names), condition_enablers(lay, steps)), names,
                                CYCLE_KINDS)

    def rule_rows(self) -> tuple[str, ...]:
        """The keys of the rule table's rows (`model.fetch.rule_table`), as the audit and a
        manifest's `allow-deviations` name them."""
        from .rule_table import BY_KEY

        return tuple(BY_KEY)

    def audit(self, trace):
        """`trace` judged step by step against Kafka's code: the rule-table rows each step rests
        on and their status in this variant's releases (`model.fetch.audit`), each abstraction
        vouched for as `model.fetch.abstractions` says (`traces.vouching`)."""
        from traces.vouching import vouched

        from .abstractions import VOUCHES
        from .audit import audit_trace

        return vouched(audit_trace(trace, self), trace, self, VOUCHES)

    def truncation_rule(self) -> str:
        """The rule by which a broker becoming follower truncates under this variant and quorum
        (a name from `model.truncation_rules.RULES`), asked of the rule the search dispatches on."""
        return RULES[truncation_rule(self.kernel.layout)]

    def asked_epoch(self, state: FetchState, r: int) -> int:
        """The epoch broker r asks OffsetsForLeaderEpoch for (`truncation.asked_epoch`): its last
        record's, or under epoch-cache=first-append its cache's latest; NO_EPOCH for none."""
        lay = self.kernel.layout
        return int(asked_epoch(self.kernel.encode(state), lay, r, cache_at_first_append(lay)))

    def epoch_answer(self, state: FetchState, r: int, ldr: int) -> tuple[str, int]:
        """How broker r's OffsetsForLeaderEpoch exchange with `ldr` ended, by the truncation rule
        itself (`truncation.kip101_answer`, `truncation.kip279_walk`): "unanswered" (the leader
        answered UNDEFINED_EPOCH_OFFSET and r kept its HW), "cut-short" (Kafka 2.0's walk stopped
        where r had no epoch at or below the leader's answer, which it returns) or "agreed"."""
        lay, row = self.kernel.layout, self.kernel.encode(state)
        first = cache_at_first_append(lay)
        if self.truncation_rule() == "kip101":
            return ("unanswered" if kip101_answer(row, lay, r, ldr, first) == UNDEFINED else "agreed"), NO_EPOCH
        _, how, epoch = kip279_walk(row, lay, r, ldr, first)
        return ("agreed", "unanswered", "cut-short")[how], int(epoch)

    def elr_after(self, state: FetchState, isr_after: int, unclean: int) -> int:
        """The ELR once the controller's ISR goes from `state`'s to `isr_after`, with the brokers in
        `unclean` registering after an unclean shutdown, by the rule itself (`elr.elr_after`)."""
        return int(elr_after(self.kernel.encode(state), self.kernel.layout, isr_after, unclean))

    def kip101_answer(self, state: FetchState, r: int, ldr: int) -> int | None:
        """The leader `ldr`'s OffsetsForLeaderEpoch answer to broker r for the epoch r asks for,
        by the kip101 rule itself (`truncation.kip101_answer`); None when r has nothing to ask,
        or the leader answers UNDEFINED_EPOCH_OFFSET (r then truncates to its HW)."""
        lay = self.kernel.layout
        answer = kip101_answer(self.kernel.encode(state), lay, r, ldr, cache_at_first_append(lay))
        return None if answer < 0 else int(answer)

    def state_columns(self, state: FetchState) -> dict[str, list[str]]:
        """One column per broker, one for the controller (and the ghost records, if kept)."""
        return broker_columns(state)

    def lanes(self, state: FetchState) -> dict:
        """One lane per broker."""
        return broker_lanes(state)

    def state_to_json(self, state: FetchState) -> Any:
        """The state as readable JSON data (see `model.fetch.json_state`)."""
        return json_state.state_to_json(state)

    def state_from_json(self, data: Any) -> FetchState:
        """Rebuild a state from `state_to_json` output; ValueError when malformed. A state saved
        before rule preferred-replica existed names no preferred replica: under
        preferred-replica=rebalanced it is r1, the first leader, as in every state this model makes."""
        state = json_state.state_from_json(data, self.config.replicas)
        if self.rules["preferred-replica"] == "rebalanced" and "preferred" not in data.get("controller", {}):
            state = state._replace(controller=state.controller._replace(preferred=0))
        return state
