"""How a replica chose its truncation point when it became follower, in terms of the variant's
rule: its own HW (before Kafka 0.11), the leader's answer to "where does the epoch of my last
record end?" (KIP-101), or the epoch walk to the last record both logs share (KIP-279, kept
by KIP-320)."""

from __future__ import annotations

from typing import NamedTuple

from model.spec.state import NO_EPOCH

from .partition import PartitionView

RULES = {"hw": "hw", "kip101": "kip101", "kip279": "kip279", "kip320": "kip279"}
"""The truncation rule each variant uses (KIP-320 keeps KIP-279's and adds fencing)."""


class Truncation(NamedTuple):
    """Where a replica truncated on becoming follower and what that offset came from: the rule
    ('hw', 'kip101' or 'kip279'), the offset (its LEO afterwards), its own HW, the epoch it
    asked the leader about (the epoch of its last record), the leader's epoch cache
    ((epoch, start offset) pairs) and LEO, and under KIP-101 the leader's answer: where the
    first epoch above the one asked starts in its log, or its LEO (None when the `spec` model's
    rule found no answer in the leader's log and fell back to the replica's own HW)."""

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


def truncation(model: str, variant: str, before: PartitionView, after: PartitionView, r: int, ldr: int) -> Truncation:
    """How replica r chose its truncation point when it became follower of `ldr` (`before` and
    `after` are the states around that step)."""
    rule = RULES[variant]
    mine, theirs = before.replicas[r], before.replicas[ldr]
    asked = mine.log[-1].epoch if mine.log else NO_EPOCH
    answer = min((start for e, start in theirs.cache if e > asked), default=theirs.leo)
    if model == "spec" and (not theirs.log or (theirs.log[-1].epoch != asked and answer == theirs.leo)):
        answer = None
    return Truncation(rule, after.replicas[r].leo, mine.hw, asked, theirs.cache, theirs.leo, answer)
