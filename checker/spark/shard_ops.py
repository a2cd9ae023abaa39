"""One shard's share of a breadth-first search: its visited set, and how it expands a frontier.

The Spark engine's tasks (`checker.spark.shard`) each own the states whose fingerprint maps to
them. A task expands its own frontier into successors, keeps those it owns and sends the rest
to their owners, then admits what it owns into its visited set. This module holds what differs
between a model with a compiled kernel (packed rows, the compiled expansion loop, a compiled
visited set) and one without (readable states, `model.successors`, a Python set); the loop
around it is the same for both.

Either way `expand` emits each distinct successor once, with its smallest (parent fingerprint,
action) among this shard's frontier, in ascending parent-fingerprint order. A task's frontier
holds only states it owns, so parents from different tasks never coincide, and admitting the
gathered candidates in ascending parent order gives every new state its smallest (parent,
action) over the whole level: the local engine's tie rule, hence the same traces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..coverage import ANY_ACTOR, empty_counts
from ..fingerprint import fingerprint
from ..invariant import StepProperty, record_broken_steps
from ..kernel.sorted_runs import KEY, WINDOW_SHARE, SortedRuns

if TYPE_CHECKING:
    from ..kernel.visited_set import VisitedSet


CHUNK = 1 << 16
"""Frontier states a task expands at a time: their candidates are on their way to their owners
while the next chunk is expanded, and a level's expansion output is never all in memory at once."""
ROW_COPIES = 8
"""Rows a frontier state's share of a chunk may take while the chunk is expanded and split: its
successors in the expansion's output (grown as needed), then copied to be split by owner, kept
and sent."""


def chunk_states(window: int | None, width: int) -> int:
    """Frontier states a task expands at a time: `CHUNK`, or under a memory budget (stores of
    `window` bytes) as many as keep `ROW_COPIES` packed rows of `width` bytes a state within one
    window, and at least 1,024; so that expanding a chunk is bounded by the budget as the stores
    are."""
    if window is None:
        return CHUNK
    return min(CHUNK, max(1024, window // (ROW_COPIES * width)))


class Candidates(NamedTuple):
    """Successors found by one shard for one owner: fingerprints, their chosen parents'
    fingerprints, the action codes that reached them, and the states (packed rows for a kernel
    model, encoded bytes otherwise). In ascending parent order. Their invariants are checked
    by the owner, on those it admits as new (most candidates are not)."""

    fps: np.ndarray
    parents: np.ndarray
    codes: np.ndarray
    states: np.ndarray | list

    DTYPES = (np.int64, np.int64, np.uint16)
    """The types of `fps`, `parents` and `codes`, as sent between shards."""

    def take(self, at: np.ndarray) -> "Candidates":
        """The candidates at positions `at`, in that order."""
        return Candidates(self.fps[at], self.parents[at], self.codes[at], take_states(self.states, at))

    def part(self, lo: int, hi: int) -> "Candidates":
        """The candidates from position `lo` to `hi` (views, not copies)."""
        return Candidates(self.fps[lo:hi], self.parents[lo:hi], self.codes[lo:hi], self.states[lo:hi])


def joined_states(parts: list):
    """States of several parts one after the other (packed rows, or lists of encoded states)."""
    return np.concatenate(parts) if isinstance(parts[0], np.ndarray) else [s for part in parts for s in part]


def take_states(states, at: np.ndarray):
    """The states at positions `at` of `states` (packed rows, or a list of encoded states)."""
    return states[at] if isinstance(states, np.ndarray) else [states[i] for i in at.tolist()]


STATES = "states"
"""The column of a store (`SortedRuns`) that holds states."""


def states_column(states) -> np.ndarray:
    """States as a column of a store: packed rows as they are, encoded states as an object array
    (a store of those never spills: only a kernel shard has a window)."""
    if isinstance(states, np.ndarray):
        return states
    column = np.empty(len(states), object)
    column[:] = states
    return column


def states_of(column: np.ndarray):
    """The states of a store's column: packed rows, or the list of encoded states."""
    return column.tolist() if column.dtype == object else column


def frontier_records(fps: np.ndarray, states) -> dict[str, np.ndarray]:
    """Frontier states as records of a store, keyed by fingerprint."""
    return {KEY: fps, STATES: states_column(states)}


def candidate_records(block: Candidates) -> dict[str, np.ndarray]:
    """Candidates as records of a store, keyed by their parent's fingerprint."""
    return {KEY: block.parents, "fps": block.fps, "codes": block.codes, STATES: states_column(block.states)}


def candidates_of(records: dict[str, np.ndarray]) -> Candidates:
    """The candidates of records read back from a store."""
    return Candidates(records["fps"], records[KEY], records["codes"], states_of(records[STATES]))


class Expanded(NamedTuple):
    """A frontier's expansion: its distinct successors (`Candidates`), the successors generated,
    the steps fired per action kind and actor and the states in which each was enabled
    (`checker.coverage.empty_counts`), the guards' tally (`checker.kernel.guards`), and per
    broken step property the smallest (parent
    fingerprint, action) of a step that breaks it."""

    candidates: Candidates
    generated: int
    fired: np.ndarray
    enabled: np.ndarray
    tally: np.ndarray
    broken: dict


def shard_ops(model, properties, symmetry: bool, memory_budget: int | None = None, scratch: str | None = None):
    """The shard operations for `model`: compiled when it has a kernel, with a visited set
    that spills sorted runs to `scratch` past `memory_budget` bytes when one is given."""
    if getattr(model, "kernel", None) is not None:
        return KernelShard(model, properties, symmetry, memory_budget, scratch)
    return PlainShard(model, properties, symmetry)


class KernelShard:
    """A shard of a model with a compiled kernel: packed rows, a compiled visited set (one
    fingerprint per orbit under replica renaming with `symmetry`), bounded by `memory_budget`
    bytes with the rest in sorted runs under `scratch` (`kernel.spilled_set`) when a budget is
    given."""

    def __init__(self, model, properties, symmetry: bool, memory_budget: int | None = None,
                 scratch: str | None = None):
        from ..kernel.expansion import visited_room
        from ..kernel.symmetry import permutations
        from ..kernel.traces import Reducer
        from ..kernel.visited_set import VisitedSet

        self.model, self.kernel = model, model.kernel
        kernel = self.kernel
        self.invariant_names = [p.name for p in properties if not isinstance(p, StepProperty)]
        self.inv_mask = sum(1 << kernel.invariant_names.index(n) for n in self.invariant_names)
        self.step_mask = sum(1 << kernel.step_property_names.index(p.name)
                             for p in properties if isinstance(p, StepProperty))
        self.perms = permutations(kernel.replicas, symmetry)
        self.reducer = Reducer(kernel, self.perms)
        if memory_budget is None:
            self.visited = VisitedSet(1 << 16, visited_room(kernel))
        else:
            from ..kernel.spilled_set import SpilledSet

            self.visited = SpilledSet(visited_room(kernel), memory_budget, scratch)
        self.kinds = len(kernel.action_kinds)
        self.width = kernel.width
        self.window = None if memory_budget is None else max(1, memory_budget // WINDOW_SHARE)
        self.chunk = chunk_states(self.window, self.width)
        self.scratch = scratch

    def __len__(self) -> int:
        return len(self.visited)

    def store(self) -> SortedRuns:
        """An empty store of records (a frontier, a level's candidates): in memory up to a
        quarter of the memory budget, in sorted runs under the scratch directory beyond it."""
        return SortedRuns(self.window, self.scratch)

    def initial(self) -> tuple[np.ndarray, np.ndarray]:
        """(fingerprints, rows) of the initial states' representatives, each once."""
        rows = {}
        for state in self.model.initial_states():
            row = self.reducer.representative(self.kernel.encode(state))
            rows.setdefault(self.reducer.fingerprint(row), row)
        fps = np.array(sorted(rows), np.int64)
        return fps, np.array([rows[fp] for fp in fps.tolist()], np.int8).reshape(len(fps), self.kernel.width)

    def violated(self, states: np.ndarray) -> dict[str, np.ndarray]:
        """Per checked invariant, a mask of the `states` that violate it."""
        masks = np.zeros(len(states), np.int64)
        self.kernel.search.violated_rows(np.require(states, np.int8, ["C"]), self.kernel.layout, self.inv_mask, masks)
        names = self.kernel.invariant_names
        return {name: (masks >> names.index(name)) & 1 == 1 for name in self.invariant_names}

    def level_set(self, frontier: int) -> VisitedSet:
        """An empty set of the successors seen in one level, for a frontier of this size."""
        from ..kernel.expansion import visited_room
        from ..kernel.visited_set import VisitedSet

        room = visited_room(self.kernel)
        return VisitedSet(2 * frontier + room, room)

    def expand(self, fps: np.ndarray, states: np.ndarray, seen: VisitedSet) -> Expanded:
        """Every successor of the frontier (`fps`, packed rows `states`) not in `seen` (the
        level's successors so far), which it joins."""
        from ..kernel.expansion import expand_all

        out = expand_all(self.kernel, states, fps, 0, self.step_mask, self.perms, seen)  # invariants: on admission
        broken = {name: (int(fps[out.step_parent[bit]]), int(out.step_code[bit]))
                  for bit, name in enumerate(self.kernel.step_property_names) if out.step_parent[bit] >= 0}
        return Expanded(Candidates(out.fps, fps[out.parent], out.code, out.rows),
                        out.generated, out.fired, out.enabled, out.tally, broken)

    def known(self, fps: np.ndarray) -> np.ndarray:
        """Which of `fps` this shard has visited."""
        return self.visited.contains_all(fps)

    def admit(self, fps: np.ndarray) -> np.ndarray:
        """Visit `fps` in order; a mask of those that were new."""
        return self.visited.admit(fps)

    def kind_of(self, codes: np.ndarray) -> np.ndarray:
        """The action kind index of each action code."""
        from ..kernel.steps import kind_of

        return kind_of(codes)

    def tally(self):
        """An empty tally of the model's events, and of its guards when the kernel counts them."""
        return self.kernel.new_tally()

    def actor_of(self, codes: np.ndarray) -> np.ndarray:
        """The acting replica (first argument) of each action code."""
        from ..kernel.steps import actor_of

        return actor_of(codes)

    def empty(self) -> np.ndarray:
        """A frontier with no states."""
        return np.zeros((0, self.kernel.width), np.int8)


class PlainShard:
    """A shard of a model without a kernel: readable states, encoded with `model.encode`,
    fingerprinted with `hash`; action codes are action kind indices."""

    def __init__(self, model, properties, symmetry: bool):
        from ..local import representative_of

        self.model = model
        self.invariants = [p for p in properties if not isinstance(p, StepProperty)]
        self.invariant_names = [p.name for p in self.invariants]
        self.step_properties = [p for p in properties if isinstance(p, StepProperty)]
        self.reduce = representative_of(model, symmetry) or (lambda state: state)
        self.kind_names = model.action_kinds()
        self.kinds = len(self.kind_names)
        self.width = None
        self.chunk = CHUNK
        self.visited: set[int] = set()

    def __len__(self) -> int:
        return len(self.visited)

    def store(self) -> SortedRuns:
        """An empty store of records (a frontier, a level's candidates), all in memory."""
        return SortedRuns(None, None)

    def initial(self) -> tuple[np.ndarray, list]:
        """(fingerprints, encoded states) of the initial states' representatives, each once."""
        states = {}
        for state in self.model.initial_states():
            state = self.reduce(state)
            states.setdefault(fingerprint(state), state)
        fps = sorted(states)
        return np.array(fps, np.int64), [self.model.encode(states[fp]) for fp in fps]

    def violated(self, states: list) -> dict[str, np.ndarray]:
        """Per checked invariant, a mask of the (encoded) `states` that violate it."""
        decoded = [self.model.decode(s) for s in states]
        return {inv.name: np.array([not inv.holds(s) for s in decoded], bool) for inv in self.invariants}

    def level_set(self, frontier: int) -> set[int]:
        """An empty set of the successors seen in one level."""
        return set()

    def expand(self, fps: np.ndarray, states: list, seen: set[int]) -> Expanded:
        """Every successor of the frontier (`fps`, encoded `states`) not in `seen` (the level's
        successors so far), which it joins; in ascending parent order, each parent's actions in
        ascending order, so a successor's first route is its smallest (parent fingerprint,
        action)."""
        model, reduce, kinds = self.model, self.reduce, {name: i for i, name in enumerate(self.kind_names)}
        out_fps, parents, codes, out_states = [], [], [], []
        fired, enabled = empty_counts(self.kinds)
        broken: dict = {}
        generated = 0
        for i in np.argsort(fps, kind="stable").tolist():
            fp, state = int(fps[i]), model.decode(states[i])
            steps = sorted(model.successors(state), key=lambda step: step[0])
            for kind in {kinds[action[0]] for action, _ in steps}:
                enabled[kind, 0] += 1
                enabled[kind, ANY_ACTOR] += 1
            for action, succ in steps:
                generated += 1
                fired[kinds[action[0]], 0] += 1
                if self.step_properties:
                    record_broken_steps(self.step_properties, fp, state, action, succ, broken)
                succ = reduce(succ)
                succ_fp = fingerprint(succ)
                if succ_fp in seen:
                    continue
                seen.add(succ_fp)
                out_fps.append(succ_fp)
                parents.append(fp)
                codes.append(kinds[action[0]])
                out_states.append(model.encode(succ))
        columns = (np.array(values, dtype) for values, dtype in zip((out_fps, parents, codes), Candidates.DTYPES))
        candidates = Candidates(*columns, out_states)
        return Expanded(candidates, generated, fired, enabled, self.tally(), broken)

    def known(self, fps: np.ndarray) -> np.ndarray:
        """Which of `fps` this shard has visited."""
        return np.array([fp in self.visited for fp in fps.tolist()], bool)

    def admit(self, fps: np.ndarray) -> np.ndarray:
        """Visit `fps` in order; a mask of those that were new."""
        new = np.zeros(len(fps), bool)
        for k, fp in enumerate(fps.tolist()):
            if fp not in self.visited:
                self.visited.add(fp)
                new[k] = True
        return new

    def kind_of(self, codes: np.ndarray) -> np.ndarray:
        """The action kind index of each action code (they are the same here)."""
        return codes

    def tally(self):
        """An empty tally: a model without a kernel names no guards."""
        from ..kernel.guards import NO_GUARDS, empty_tally

        return empty_tally(NO_GUARDS)

    def actor_of(self, codes: np.ndarray) -> np.ndarray:
        """The acting replica of each action code: not known here (a model without a kernel
        has no per-replica coverage), so 0."""
        return np.zeros(len(codes), np.int64)

    def empty(self) -> list:
        """A frontier with no states."""
        return []
