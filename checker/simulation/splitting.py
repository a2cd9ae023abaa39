"""Milestone splitting: walks that start again from the furthest milestone states reached so far.

Some violations need a long, exact run of rare steps. kip101's lost committed record at three
replicas takes 20 steps, among them two leader crashes, a restart before the controller notices
the first one, and a fetch answered in the wrong epoch. Along that trace an independent random
walk takes each step with a probability of 0.06 to 0.33, about 10^-15 for the whole trace, and
in 4.5 million walks one took it or any other loss. An invariant's milestones
(`Invariant.milestones`) are the stages its usual violation story passes, each a condition
over one state (for committed-survives: a record is committed; the leader's HW is below it;
a member of the ISR lacks it). The stages are rare too, but each one much less rare given the
one before.

That is what importance splitting uses (RESTART, Villén-Altamirano 1991; its use in statistical
model checking: Jégourel, Legay and Sedwards 2013). When a walk climbs to a level above every
level it has been at, the state where it did, with the steps that led there, goes into an
archive; later walks start from archived states, every other walk from the highest level
reached so far and the rest from each level in turn (level 0 is the initial state). A walk
from an archived state is a walk from the initial state with the archived steps in front, so
what it finds is a real trace, replayed and shortened as any other.

Walks share an archive in groups of `GROUP` consecutive walk numbers, and a group's walks run in
order in one process (one Spark task), from a fresh archive. What a walk does then depends only
on the seed and the walks before it in its group, never on how groups are shared out:
`--walks N --seed s` gives the same walks on either engine and at any number of tasks. The
restart with each group is also a diversification: measured on kip101, groups of 16,384 walks
found the loss more often than groups of 4,096 at five replicas, and than one archive for all
walks (docs/simulation.md has the figures).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..kernel.prng import draw, mix

GROUP = 16_384
"""Walks that share one archive: walk k is number k % GROUP of group k // GROUP."""

CAPACITY = 1_000
"""Archived states kept per level; past it, a new one replaces one drawn at random."""

SALT = np.uint64(0x5711C7)
"""Mixed into a walk's seed to draw where it starts, so its steps are drawn as they would be
from the initial state."""


@dataclass(frozen=True)
class Milestone:
    """A state a walk climbed to: the packed row, its fingerprint, and the action codes that
    lead to it from the initial state."""

    row: np.ndarray
    fingerprint: int
    actions: tuple[int, ...]


class Archive:
    """The milestone states one group of walks has climbed to, by level; level 0 holds the
    initial state only."""

    def __init__(self, group: int, initial: Milestone):
        self.group = group
        self.next = 0
        self.levels: dict[int, list[Milestone]] = {0: [initial]}

    def start(self, index: int, generator) -> Milestone:
        """Where walk number `index` of the group starts: an odd-numbered walk at the highest
        level reached so far, an even-numbered one at each level in turn; within the level, a
        state drawn with `generator` (the walk's own, salted)."""
        if index != self.next:
            raise ValueError(f"walk {index} of group {self.group} runs before walk {self.next}: a group's walks "
                             "run in order")
        self.next += 1
        levels = sorted(self.levels)
        level = levels[-1] if index % 2 else levels[index // 2 % len(levels)]
        states = self.levels[level]
        _, pick = draw(np.uint64(mix(np.uint64(generator) ^ SALT)), len(states))
        return states[int(pick)]

    def keep(self, level: int, milestone: Milestone, generator) -> None:
        """Archive a state a walk climbed to at `level`; when the level is full, it replaces
        one drawn with `generator`."""
        states = self.levels.setdefault(level, [])
        if len(states) < CAPACITY:
            states.append(milestone)
        else:
            _, pick = draw(np.uint64(mix(np.uint64(generator) ^ SALT ^ np.uint64(level))), CAPACITY)
            states[int(pick)] = milestone


def walk_numbers(task: int, tasks: int, walks: int | None, steered: bool) -> Iterator[int]:
    """The walk numbers task `task` of `tasks` runs, in order (of `walks`, or without end):
    walks task, task + tasks, ... when unsteered; whole groups task, task + tasks, ... when
    steered, since a group's walks share an archive."""
    if not steered:
        return iter(range(task, walks, tasks)) if walks is not None else itertools.count(task, tasks)
    starts = itertools.count(task * GROUP, tasks * GROUP)
    if walks is not None:
        starts = itertools.takewhile(lambda start: start < walks, starts)
    return (k for start in starts for k in range(start, start + GROUP if walks is None else min(start + GROUP, walks)))


def groups(walks: int) -> int:
    """How many groups `walks` walks make (the most Spark tasks a steered simulation of that
    many walks can use)."""
    return -(-walks // GROUP)
