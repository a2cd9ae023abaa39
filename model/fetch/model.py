"""The `fetch` model as the checker sees it."""

from __future__ import annotations

import pickle
from typing import Any

from ..params import ModelError
from . import json_state
from .bounds import FetchConfig
from .controller import controller_notice_failure, controller_notice_restart
from .ghost import update_ghost
from .isr import leader_expand_isr, leader_shrink_isr
from .leadership import become_follower, become_leader
from .lifecycle import checkpoint_hw, crash, flush, restart
from .producer import producer_write
from .replication import follower_apply_response, follower_fetch, leader_serve_fetch
from .state import NO_FETCH, Broker, Controller, FetchState, LeaderAndIsr
from .truncation import VARIANTS
from .words import broker_columns, broker_lanes, describe_step

ACTION_KINDS = ("ProducerWrite", "FollowerFetch", "LeaderServeFetch", "FollowerApplyResponse", "LeaderShrinkIsr",
                "LeaderExpandIsr", "Crash", "Restart", "CheckpointHw", "Flush", "ControllerNoticeFailure",
                "ControllerNoticeRestart", "BecomeLeader", "BecomeFollower")


class FetchModel:
    """FETCH-level Kafka replication for one variant and configuration. With `ghost` the
    state also records acknowledged and committed writes (for the invariants that need them)."""

    name = "fetch"

    def __init__(self, variant: str, config: FetchConfig, ghost: bool = False):
        if config.min_insync_replicas > config.replicas:
            raise ModelError(f"--min-insync-replicas ({config.min_insync_replicas}) cannot exceed --replicas "
                             f"({config.replicas})")
        self.variant, self.config, self.ghost = variant, config, ghost
        v = VARIANTS[variant]
        c = config
        self._actions = (
            lambda s: producer_write(s, c, ghost),
            lambda s: follower_fetch(s, c),
            lambda s: leader_serve_fetch(s, c, v.fenced),
            lambda s: follower_apply_response(s, c),
            lambda s: leader_shrink_isr(s, c),
            lambda s: leader_expand_isr(s, c, v.fenced),
            lambda s: crash(s, c),
            lambda s: restart(s, c),
            lambda s: checkpoint_hw(s, c),
            lambda s: flush(s, c),
            lambda s: controller_notice_failure(s, c),
            lambda s: controller_notice_restart(s, c),
            lambda s: become_leader(s, c),
            lambda s: become_follower(s, c, v),
        )

    def parameters(self) -> dict[str, Any]:
        """Bounds and configuration, by Python name."""
        return self.config._asdict()

    def initial_states(self) -> list[FetchState]:
        """Every broker up with an empty log; the controller has made r1 leader in epoch 0 with
        every replica in the ISR and sent that LeaderAndIsr, which no broker has handled yet."""
        n = self.config.replicas
        everyone = (1 << n) - 1
        first = LeaderAndIsr(0, 0, everyone)
        broker = Broker(True, (), 0, 0, (), 0, -1, -1, 0, (-1,) * n, NO_FETCH, (first,))
        return [FetchState((broker,) * n, Controller(0, 0, everyone, 0), 0, 0)]

    def successors(self, state: FetchState):
        """Every enabled step, with the ghost variables brought up to date after it."""
        for action in self._actions:
            for label, after in action(state):
                yield label, update_ghost(after, self.config) if self.ghost else after

    def action_kinds(self) -> tuple[str, ...]:
        """The step names."""
        return ACTION_KINDS

    def encode(self, state: FetchState) -> bytes:
        """Pickled bytes (a compact codec like the spec model's is still to write)."""
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    def decode(self, data: bytes) -> FetchState:
        """The state `encode` wrote."""
        return pickle.loads(data)

    def describe_step(self, action: tuple, before: FetchState, after: FetchState) -> str:
        """The step in Kafka's words."""
        return describe_step(action, before, after)

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
        """Rebuild a state from `state_to_json` output; ValueError when malformed."""
        return json_state.state_from_json(data, self.config.replicas)
