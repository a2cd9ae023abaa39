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
    it asked the leader about (the epoch of its last record, or under the `fetch` model's
    epoch-cache=first-append its cache's latest), the leader's epoch cache ((epoch, start offset)
    pairs) and LEO, under KIP-101 the leader's answer (None when the leader's log gave none, or
    the leader answered UNDEFINED_EPOCH_OFFSET: the replica then falls back to its own HW), and the
    replica's own epoch cache."""

    rule: str
    point: int
    follower_hw: int
    asked_epoch: int
    leader_cache: tuple
    leader_leo: int
    answer: int | None
    follower_cache: tuple = ()
    ended: str = "agreed"
    ended_at: int = NO_EPOCH

    @property
    def leader_has_epoch(self) -> bool:
        """The leader's log holds records of the epoch the follower asked about."""
        return any(e == self.asked_epoch for e, _ in self.leader_cache)

    def undefined_answer(self) -> bool:
        """Under 0.11 to 2.0's rules the leader could not place the epoch asked, answered
        UNDEFINED_EPOCH_OFFSET, and the follower kept its own HW (as the rule itself says:
        `FetchModel.epoch_answer`)."""
        return self.ended == "unanswered"

    def walk_cut_short(self) -> int | None:
        """Under Kafka 2.0's walk, the leader's epoch at which the walk stopped because the
        follower had no epoch at or below it (`AbstractFetcherThread.getOffsetTruncationState` @
        2.0.0); None when it did not stop so."""
        return self.ended_at if self.ended == "cut-short" else None


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
    if hasattr(model, "asked_epoch"):
        asked = model.asked_epoch(trace.states()[k - 1], r)
    else:
        asked = mine.log[-1].epoch if mine.log else NO_EPOCH
    answer = model.kip101_answer(trace.states()[k - 1], r, ldr) if rule == "kip101" else None
    ended, ended_at = ("agreed", NO_EPOCH)
    if rule in ("kip101", "kip279") and hasattr(model, "epoch_answer"):
        ended, ended_at = model.epoch_answer(trace.states()[k - 1], r, ldr)
    return Truncation(rule, after.replicas[r].leo, mine.hw, asked, theirs.cache, theirs.leo, answer, mine.cache,
                      ended, ended_at)
