"""How a replica chose its truncation point when it became follower, in terms of the rule the
model applied: its own HW (before Kafka 0.11), the leader's answer to "where does the epoch of
my last record end?" (KIP-101), or the epoch walk to the last record both logs share (KIP-279,
kept by KIP-320 and later). The rule and the leader's answer are asked of the model itself
(`truncation_rule`, `kip101_answer`), never restated here."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from model.registry import build_model
from model.spec.state import NO_EPOCH

from .partition import PartitionView
from .trace import Trace


class Truncation(NamedTuple):
    """Where a replica truncated on becoming follower and what that offset came from: the rule
    ('hw', 'kip101', 'kip279' or 'none'), the offset (its LEO afterwards), its own HW, the epoch
    it asked the leader about (the epoch of its last record), the leader's epoch cache
    ((epoch, start offset) pairs) and LEO, and under KIP-101 the leader's answer (None when the
    leader's log gave none: the `spec` model's rule then falls back to the replica's own HW)."""

    rule: str
    point: int
    follower_hw: int
    asked_epoch: int
    leader_cache: tuple
    leader_leo: int
    answer: int | None

    @property
    def leader_has_epoch(self) -> bool:
        """The leader's log holds records of the epoch the follower asked about."""
        return any(e == self.asked_epoch for e, _ in self.leader_cache)


@lru_cache(maxsize=8)
def _model(name: str, variant: str | None, bounds: tuple):
    return build_model(name, variant, ghost=True, **dict(bounds))


def model_of(trace: Trace):
    """The model (with ghost variables, so any of the trace's states encodes) that made the
    trace: its rules answer for the trace's steps."""
    return _model(trace.model, trace.variant, tuple(sorted(trace.bounds.items())))


def truncation(trace: Trace, k: int, views: list[PartitionView], r: int, ldr: int) -> Truncation:
    """How replica r chose its truncation point when it became follower of `ldr` at step k
    (`views` are the trace's states as partition views)."""
    model = model_of(trace)
    rule = model.truncation_rule()
    before, after = views[k - 1], views[k]
    mine, theirs = before.replicas[r], before.replicas[ldr]
    asked = mine.log[-1].epoch if mine.log else NO_EPOCH
    answer = model.kip101_answer(trace.states()[k - 1], r, ldr) if rule == "kip101" else None
    return Truncation(rule, after.replicas[r].leo, mine.hw, asked, theirs.cache, theirs.leo, answer)
