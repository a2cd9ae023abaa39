"""Simulation: random walks through a model, for answers past exhaustive reach (TLC's
-simulate, swarm verification).

Walk number k of a simulation seeded s draws its numbers from `prng.walk_seed(s, k)`, so a
walk is the same on every engine and in every process; `--walks N` runs walks 0..N-1, and the
shortest violation of each property is chosen by (length, walk number), so the result does not
depend on how the walks were shared out. In swarm mode each walk also drops a random subset of
the action kinds (each kind with probability one half), which steers walks into corners that
other walks rarely reach. A step is drawn in two stages, an enabled action kind first and then
one of its steps, in proportion to the walk's weights: uniform walks weigh every step alike,
random (weighted) walks draw their own weight for each kind and each replica's steps of it
(`kernel.walk_weights`), and mixed simulations (the default) alternate the two, since neither
finds every violation sooner: measured on the fetch model, weighted walks hit hw's lost
committed record at 3 replicas 3.4 times as often, uniform ones kip101's and kip279's
strong-isr violations 3 times as often. Every invariant and witness is checked on every state and step.

Steered walks (`checker.simulation.splitting`) may start from a milestone state an earlier walk of their
group reached, with the steps that lead there in front of their own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..fingerprint import fingerprint
from ..coverage import ANY_ACTOR, Coverage
from ..kernel.fingerprint import fingerprint as row_fingerprint
from ..interpreted import safe_point
from ..invariant import StepProperty
from ..kernel.prng import draw, mix, walk_seed
from ..kernel.walk_weights import ACTORS, walk_weights
from .sketch import DistinctSketch
from .splitting import GROUP, Archive, Milestone

SWARM_SALT = np.uint64(0x5157A2D)
"""Mixed into a walk's seed to draw the action kinds it drops in swarm mode."""

BATCH_SECONDS = 0.25
"""How long a batch of walks runs before the time budget and progress are looked at."""


@dataclass(frozen=True)
class Found:
    """The shortest walk found so far that violates one property (reaches it, for a witness):
    its length, its number, and its actions (action codes for a model with a kernel, action
    values otherwise)."""

    length: int
    walk: int
    actions: tuple

    def better_than(self, other: "Found | None") -> bool:
        """Shorter, or as short from a lower-numbered walk: the order that makes the result
        independent of how walks were shared out."""
        return other is None or (self.length, self.walk) < (other.length, other.walk)


@dataclass
class Tally:
    """What a set of walks saw: how many walks, states visited (the state each walk started
    from and every state it reached), the deepest walk, a sketch of the distinct states, per
    property the best violating walk, and the walks' coverage (`checker.coverage`; the walker's
    own, which it fills as it walks)."""

    walks: int = 0
    states: int = 0
    deepest: int = 0
    sketch: DistinctSketch = field(default_factory=DistinctSketch)
    found: dict[str, Found] = field(default_factory=dict)
    coverage: Coverage | None = None
    first_found: dict[str, float] = field(default_factory=dict)
    """Per property found: the seconds into the simulation at which a walk first found it
    (not necessarily the walk shown, which is the shortest)."""
    climbs: np.ndarray | None = None
    """Steered walks (`checker.simulation.splitting`): per milestone level, how many walks climbed to it
    (index 0 unused); the walker's own, which it fills as it walks."""

    def record(self, walk: int, depth: int, violated: list[str], actions: tuple, fps: np.ndarray) -> None:
        """Add one walk's outcome: its depth from the initial state, and the fingerprints of
        the states it visited (from where it started)."""
        self.walks += 1
        self.states += len(fps)
        self.deepest = max(self.deepest, depth)
        self.sketch.add(fps)
        for name in violated:
            candidate = Found(depth, walk, actions)
            if candidate.better_than(self.found.get(name)):
                self.found[name] = candidate

    def merge(self, other: "Tally") -> None:
        """Add what another set of walks saw (Spark tasks' tallies, in any order)."""
        self.walks += other.walks
        self.states += other.states
        self.deepest = max(self.deepest, other.deepest)
        self.sketch.merge(other.sketch)
        for name, found in other.found.items():
            if found.better_than(self.found.get(name)):
                self.found[name] = found
        if other.coverage is not None:
            if self.coverage is None:
                self.coverage = other.coverage
            else:
                self.coverage.merge(other.coverage)
        for name, seconds in other.first_found.items():
            self.first_found[name] = min(seconds, self.first_found.get(name, seconds))
        if other.climbs is not None:
            self.climbs = other.climbs.copy() if self.climbs is None else self.climbs + other.climbs


def dropped_kinds(state, kinds: int, swarm: bool) -> int:
    """The action kinds (a bitmask) a walk starting from generator `state` leaves out: none
    without swarm; each with probability one half with it (all of them would leave nothing to
    do, so then none)."""
    if not swarm:
        return 0
    every = (1 << kinds) - 1
    bits = int(mix(np.uint64(state) ^ SWARM_SALT)) & every
    return 0 if bits == every else bits


def weighted(weights: str, walk: int) -> bool:
    """Whether walk number `walk` draws its own weights under the simulation's `weights`."""
    return weights == "random" or (weights == "mixed" and walk % 2 == 1)


def weights_of(state, kinds: int, swarm: bool, weighted: bool, table: np.ndarray | None = None) -> np.ndarray:
    """The weight table (`walk_weights`) of the walk whose generator starts at `state`."""
    if table is None:
        table = np.zeros((kinds, ACTORS + 1), np.int64)
    return walk_weights(np.uint64(state), dropped_kinds(state, kinds, swarm), weighted, table)


class KernelWalker:
    """Random walks on a model's packed rows, by the compiled `walk` of its search module."""

    def __init__(self, model, properties, max_depth: int, swarm: bool, seed: int, weights: str = "mixed",
                 steer: str | None = None):
        kernel = model.kernel
        self.kernel, self.search, self.layout = kernel, kernel.search, kernel.layout
        names = {p.name for p in properties}
        self.invariant_names = [n if n in names else None for n in kernel.invariant_names]
        self.step_names = [n if n in names else None for n in kernel.step_property_names]
        self.invariant_mask = sum(1 << i for i, n in enumerate(self.invariant_names) if n)
        self.step_mask = sum(1 << i for i, n in enumerate(self.step_names) if n)
        initial = kernel.encode(model.initial_states()[0])
        self.origin = Milestone(initial, int(row_fingerprint(initial)), ())
        self.max_depth, self.swarm, self.seed, self.weighting = max_depth, swarm, seed, weights
        self.weights = np.zeros((len(kernel.action_kinds), ACTORS + 1), np.int64)
        self.buf = np.zeros((kernel.max_successors, kernel.width), np.int8)
        self.acts = np.zeros(kernel.max_successors, np.int64)
        self.coverage = Coverage(kernel.action_kinds, kernel.acting_replicas(), kernel.guards, kernel.count_guards)
        self.tally = kernel.new_tally()
        self.allowed = np.zeros(kernel.max_successors, np.int64)
        self.path = np.zeros(max(max_depth, 1), np.int64)
        self.fps = np.zeros(max(max_depth, 1) + 1, np.int64)
        target = next((p for p in properties if p.name == steer), None)
        levels = len(target.milestones) if target is not None else 0
        self.steer = kernel.invariant_names.index(steer) if levels else -1
        self.climbs = np.zeros(levels + 1, np.int64) if levels else None
        self.climb_rows = np.zeros((levels + 1, kernel.width), np.int8)
        self.climb_at = np.full(levels + 1, -1, np.int64)
        self.archive: Archive | None = None

    def run(self, walk: int) -> tuple[int, list[str], tuple, np.ndarray]:
        """Walk number `walk`: (steps from the initial state, properties violated at its end,
        its action codes from the initial state when it violated one, the fingerprints of the
        states it visited). A steered walk may start from an archived milestone state
        (`checker.simulation.splitting`)."""
        state = np.uint64(walk_seed(self.seed, walk))
        weights = weights_of(state, len(self.kernel.action_kinds), self.swarm, weighted(self.weighting, walk),
                             self.weights)
        start = self._start(walk, state)
        before = len(start.actions)
        depth, v, broken = self.search.walk(start.row, self.layout, state, self.max_depth - before, weights,
                                            self.invariant_mask, self.step_mask, self.buf, self.acts, self.tally,
                                            self.allowed, self.path, self.fps[1:], self.coverage.fired,
                                            self.coverage.enabled, self.coverage.first, before, self.steer,
                                            self.climb_rows, self.climb_at)
        self.fps[0] = start.fingerprint
        self.coverage.add_tally(self.tally)
        self.tally[:] = 0
        if self.archive is not None:
            self._archive_climbs(start, state)
        violated = [n for i, n in enumerate(self.invariant_names) if n and v >> i & 1]
        violated += [n for i, n in enumerate(self.step_names) if n and broken >> i & 1]
        actions = start.actions + tuple(int(c) for c in self.path[:depth]) if violated else ()
        return before + depth, violated, actions, self.fps[:depth + 1]

    def _start(self, walk: int, state) -> Milestone:
        """The state walk number `walk` starts from: the initial state, or for a steered walk
        one its group's archive chooses (a new group starts a new archive)."""
        if self.steer < 0:
            return self.origin
        group, index = divmod(walk, GROUP)
        if self.archive is None or self.archive.group != group:
            self.archive = Archive(group, self.origin)
        return self.archive.start(index, state)

    def _archive_climbs(self, start: Milestone, state) -> None:
        """Archive the states the last walk climbed to, with the steps that lead to them."""
        for level in np.flatnonzero(self.climb_at >= 0):
            at = int(self.climb_at[level])
            self.climbs[level] += 1
            if len(start.actions) + at >= self.max_depth:
                continue  # no walk could take a step from there
            steps = start.actions + tuple(int(c) for c in self.path[:at])
            self.archive.keep(int(level), Milestone(self.climb_rows[level].copy(), int(self.fps[at]), steps), state)
        self.climb_at[:] = -1


class PlainWalker:
    """Random walks on a model's readable states (a model without a kernel, whose invariants
    have no milestones: its walks are never steered)."""

    climbs = None

    def __init__(self, model, properties, max_depth: int, swarm: bool, seed: int, weights: str = "mixed",
                 steer: str | None = None):
        self.model, self.max_depth, self.swarm, self.seed, self.weighting = model, max_depth, swarm, seed, weights
        self.invariants = [p for p in properties if not isinstance(p, StepProperty)]
        self.steps = [p for p in properties if isinstance(p, StepProperty)]
        self.kinds = {kind: i for i, kind in enumerate(model.action_kinds())}
        self.coverage = Coverage(tuple(self.kinds))

    def run(self, walk: int) -> tuple[int, list[str], tuple, np.ndarray]:
        """As `KernelWalker.run`, with action values for actions."""
        state = np.uint64(walk_seed(self.seed, walk))
        weights = weights_of(state, len(self.kinds), self.swarm, weighted(self.weighting, walk))
        s = self.model.initial_states()[0]
        fps, actions = [fingerprint(s)], []
        violated = [p.name for p in self.invariants if not p.holds(s)]
        while not violated and len(actions) < self.max_depth:
            steps = list(self.model.successors(s))
            for kind in {self.kinds[a[0]] for a, _ in steps}:
                self.coverage.enabled[kind, ANY_ACTOR] += 1
            options = [(a, t) for a, t in steps if weights[self.kinds[a[0]], ACTORS]]
            if not options:
                break
            kinds = sorted({self.kinds[a[0]] for a, _ in options})
            state, kind = weighted_pick(state, kinds, [weights[k, ACTORS] for k in kinds])
            options = [(a, t) for a, t in options if self.kinds[a[0]] == kind]
            state, (action, t) = weighted_pick(state, options, [weights[kind, actor_of(a)] for a, _ in options])
            violated = [p.name for p in self.steps if not p.holds(s, action, t)]
            self.coverage.took(kind, 0, len(actions) + 1)
            s = t
            actions.append(action)
            fps.append(fingerprint(s))
            violated += [p.name for p in self.invariants if not p.holds(s)]
        return len(actions), violated, tuple(actions) if violated else (), np.array(fps, np.int64)


def actor_of(action: tuple) -> int:
    """The weight column of an action value: its first argument when that is a small int (a
    replica or record number), else 0."""
    first = action[1] if len(action) > 1 else 0
    return first if isinstance(first, int) and 0 <= first < ACTORS else 0


def weighted_pick(state, items: list, weights: list) -> tuple:
    """(next generator state, one of `items`), drawn in proportion to `weights` as the
    compiled walk draws."""
    state, pick = draw(np.uint64(state), int(sum(weights)))
    pick = int(pick)
    for item, weight in zip(items, weights):
        if pick < weight:
            break
        pick -= weight
    return np.uint64(state), item


def walker(model, properties, max_depth: int, swarm: bool, seed: int, weights: str = "mixed",
           steer: str | None = None):
    """The walker for this model: compiled when it has a kernel; steered by the milestones of
    the invariant named `steer` (None: not steered)."""
    kind = KernelWalker if getattr(model, "kernel", None) is not None else PlainWalker
    return kind(model, properties, max_depth, swarm, seed, weights, steer)


def run_walks(walk: Callable, numbers, deadline: float | None, tally: Tally,
              on_batch: Callable[[Tally], None] | None = None, started: float | None = None) -> Tally:
    """Run `walk` (a walker's `run`) for each walk number from the iterable `numbers`, until it
    is exhausted or, with a `deadline` (time.monotonic), the deadline passes; `on_batch(tally)`
    about every `BATCH_SECONDS`. The time each property was first found is counted from
    `started` (time.monotonic; default now)."""
    started = time.monotonic() if started is None else started
    batch_end = time.monotonic() + BATCH_SECONDS
    for number in numbers:
        depth, violated, actions, fps = walk(number)
        safe_point()
        tally.record(number, depth, violated, actions, fps)
        now = time.monotonic()
        for name in violated:
            tally.first_found.setdefault(name, now - started)
        if now >= batch_end:
            if on_batch is not None:
                on_batch(tally)
            if deadline is not None and now >= deadline:
                break
            batch_end = now + BATCH_SECONDS
    return tally
