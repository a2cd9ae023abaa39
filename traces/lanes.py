"""Per-replica lanes of a trace: at every step, each replica's log cells, HW, LEO and role,
and which committed records a step destroyed.

A model offers `lanes(state)`: one `Lane` per replica (or per participant). The functions here
are generic over that view; the pictures (`traces.picture`), the step changes
(`traces.changes`) and the explanation (`traces.explain`) are built on them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checker.model import Lane


EPOCH = re.compile(r"e\d+|-")


@dataclass(frozen=True)
class Role:
    """A lane's caption split in two: its leader epoch (`e2`, or None when it has none) and its
    role (`leader`, `follows r1`, `crashed`; empty when it only says `no leader`). A caption
    that does not start with an epoch (a two-phase RM's `prepared`) is all role."""

    epoch: str | None
    text: str


def role(lane: Lane) -> Role:
    """The lane's epoch and role, without the placeholders (`-`, `no leader`) that say nothing:
    pictures show leadership as one badge instead of repeating `- no leader` in every lane."""
    head, _, rest = lane.caption.partition(" ")
    epoch, text = (None if head == "-" else head, rest) if EPOCH.fullmatch(head) else (None, lane.caption)
    return Role(epoch, "" if text == "no leader" else text)


@dataclass(frozen=True)
class Loss:
    """A committed record destroyed at a step: replica `lane` lost `record` at `offset`, which
    `leader` had committed (the offset was below its HW `hw`)."""

    step: int
    lane: str
    offset: int
    record: str
    leader: str
    hw: int


def committed(lanes: dict[str, Lane]) -> dict[tuple[int, str], tuple[str, int]]:
    """(offset, record) -> (leader, its HW) for every record below the HW of a replica that
    presumes leadership: what consumers may already have read."""
    out = {}
    for name, lane in lanes.items():
        if lane.leader and lane.hw:
            for offset, record in enumerate(lane.cells[:lane.hw]):
                out.setdefault((offset, record), (name, lane.hw))
    return out


def losses(states_lanes: list[dict[str, Lane]]) -> list[Loss]:
    """Every committed record (one that was below a leader's HW at any earlier step, even if
    that leader has crashed since) that a step truncated or overwrote on some replica."""
    found = []
    exposed: dict = {}
    for step in range(1, len(states_lanes)):
        before, after = states_lanes[step - 1], states_lanes[step]
        for key, value in committed(before).items():
            exposed.setdefault(key, value)
        for name, lane in before.items():
            kept = after[name].cells
            for offset, record in enumerate(lane.cells):
                if (offset >= len(kept) or kept[offset] != record) and (offset, record) in exposed:
                    leader, hw = exposed[(offset, record)]
                    found.append(Loss(step, name, offset, record, leader, hw))
    return found
