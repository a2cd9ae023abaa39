"""Shortening a violation found by a random walk before it is shown.

First delta debugging (Zeller's ddmin): drop ever smaller chunks of steps while the rest is
still a behaviour of the model (each step enabled in turn) and still violates the property;
a behaviour that violates it earlier is cut there. Then reordering: a step moves before its
predecessor when it comes first in action order (kind, then replica) and the behaviour stays
valid and violating, which puts independent steps in one order, gathers the steps that
undo each other, and lets delta debugging, run again, drop them. Then, where the bounds allow, a
breadth-first search to the shortened length either confirms that nothing shorter exists or
finds the shortest trace. That search is bounded by the states it stores (`BFS_STATES`), never
by time, so its verdict depends only on the model and the walk, not on the machine. Works on
packed rows and action codes for a model with a kernel, on readable states and action values
otherwise.
"""

from __future__ import annotations

from typing import NamedTuple

from traces.trace import Step, Trace

from ..invariant import StepProperty
from ..local import explore

BFS_STATES = 2_000_000
"""The most distinct states the confirming search may store: it gives up before a level that,
growing from the last as the last grew from the one before, would take it past this number (or
after a level that did). Counting states, not seconds, gives every machine the same verdict."""


class Shortened(NamedTuple):
    """A shortened violation: the trace, the length the walk found, the length delta debugging
    and reordering reached, what the confirming search said ('shortest' when it proved no
    shorter trace exists, 'shorter' when it found one, 'too large' when it gave up), and how
    many moves of a step before its predecessor reordering kept."""

    trace: Trace
    walked: int
    debugged: int
    bfs: str
    reordered: int = 0


class Replay:
    """A model stepped by recorded actions (action codes on packed rows for a model with a
    kernel, action values on readable states otherwise), asked at each step whether a property
    is violated."""

    def __init__(self, model, prop):
        self.model, self.prop = model, prop
        self.step_prop = isinstance(prop, StepProperty)
        kernel = getattr(model, "kernel", None)
        self.kernel = kernel
        if kernel is not None:
            names = kernel.step_property_names if self.step_prop else kernel.invariant_names
            self.mask = 1 << names.index(prop.name)
            self.buffers = kernel.buffers()

    def initial(self):
        state = self.model.initial_states()[0]
        return self.kernel.encode(state) if self.kernel is not None else state

    def step(self, state, action):
        """The state after `action`, or None when it is not enabled."""
        if self.kernel is not None:
            j = self.kernel.search.step(state, self.kernel.layout, action, *self.buffers)
            return None if j < 0 else self.buffers[0][j].copy()
        return next((t for a, t in self.model.successors(state) if a == action), None)

    def violated(self, state) -> bool:
        if self.step_prop:
            return False
        if self.kernel is not None:
            return bool(self.kernel.search.violations(state, self.kernel.layout, self.mask))
        return not self.prop.holds(state)

    def broken(self, before, action, after) -> bool:
        if not self.step_prop:
            return False
        if self.kernel is not None:
            return bool(self.kernel.search.broken_steps(before, action, after, self.kernel.layout, self.mask))
        return not self.prop.holds(before, action, after)

    def violating_prefix(self, actions) -> int | None:
        """The length of the shortest prefix of `actions` that is a behaviour ending in a
        violation; None when some step is not enabled first or nothing is violated."""
        state = self.initial()
        if self.violated(state):
            return 0
        for i, action in enumerate(actions):
            after = self.step(state, action)
            if after is None:
                return None
            if self.broken(state, action, after) or self.violated(after):
                return i + 1
            state = after
        return None

    def trace(self, actions) -> Trace:
        """The readable trace of `actions` (a violating behaviour)."""
        model, state = self.model, self.initial()
        readable = self.kernel.decode if self.kernel is not None else (lambda s: s)
        label = self.kernel.action_value if self.kernel is not None else (lambda a, before: a)
        first, steps = readable(state), []
        for action in actions:
            before, state = state, self.step(state, action)
            steps.append(Step(label(action, before), readable(state)))
        return Trace(model.name, model.variant, dict(model.parameters()), self.prop.name, first, tuple(steps))


def ddmin(replay: Replay, actions: tuple) -> tuple:
    """Delta debugging: the actions with chunks dropped, ever smaller, while what is left is a
    behaviour that violates the property (cut at its first violation)."""
    actions = actions[:replay.violating_prefix(actions)]
    n = 2
    while len(actions) >= 2:
        size = -(-len(actions) // n)
        for start in range(0, len(actions), size):
            rest = actions[:start] + actions[start + size:]
            cut = replay.violating_prefix(rest)
            if cut is not None:
                actions, n = rest[:cut], max(n - 1, 2)
                break
        else:
            if n >= len(actions):
                break
            n = min(2 * n, len(actions))
    return actions


def reorder(replay: Replay, actions: tuple) -> tuple[tuple, int]:
    """Bubble passes over the actions: a step moves before its predecessor when its action
    sorts first and the result is still a violating behaviour (cut at its first violation).
    Returns (the actions, how many moves were kept)."""
    moves, moved = 0, True
    while moved:
        moved = False
        for i in range(len(actions) - 1):
            if actions[i + 1] < actions[i]:
                swapped = actions[:i] + (actions[i + 1], actions[i]) + actions[i + 2:]
                cut = replay.violating_prefix(swapped)
                if cut is not None:
                    actions, moves, moved = swapped[:cut], moves + 1, True
                    break
    return actions, moves


def minimise(replay: Replay, actions: tuple) -> tuple[tuple, int]:
    """Delta debugging and reordering in turn until neither changes the actions; returns
    (the actions, the moves reordering kept)."""
    actions, moves = ddmin(replay, actions), 0
    while True:
        ordered, kept = reorder(replay, actions)
        if not kept:
            return actions, moves
        moves += kept
        actions = ddmin(replay, ordered)


class TooLarge(Exception):
    """The confirming search would pass `BFS_STATES`."""


def state_budget(prop_name: str, max_depth: int, limit: int = BFS_STATES):
    """An `on_level` callback for a search to `max_depth` for `prop_name` that raises TooLarge
    after a level that leaves the search more to do when the next level, growing by the
    last one's ratio of new states to the one before's, would take the states stored past
    `limit` (a level that already did is past it for any growth). Integer counts only: the
    same levels give the same decision on every machine."""
    before = [0]

    def budget(stats, frontier):
        previous, before[0] = before[0], stats.new_states
        if stats.depth >= max_depth or prop_name in stats.violated + stats.reached:
            return
        room = limit - stats.distinct_total
        if room < 0 or previous and stats.new_states * stats.new_states > room * previous:
            raise TooLarge

    return budget


def shorten(model, prop, actions: tuple, symmetry: bool = False) -> Shortened:
    """The walk's violation of `prop` along `actions`, shortened (module docstring)."""
    replay = Replay(model, prop)
    debugged, moves = minimise(replay, tuple(actions))
    try:
        result = explore(model, [prop], stop_at_first=True, max_depth=len(debugged),
                         on_level=state_budget(prop.name, len(debugged)), symmetry=symmetry)
    except TooLarge:
        return Shortened(replay.trace(debugged), len(actions), len(debugged), "too large", moves)
    found = result.violations.get(prop.name)
    if found is None or len(found) >= len(debugged):
        return Shortened(replay.trace(debugged), len(actions), len(debugged), "shortest", moves)
    return Shortened(found, len(actions), len(debugged), "shorter", moves)
