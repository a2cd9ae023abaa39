"""Coverage: what a search exercised, per action kind and per acting replica.

For every action kind of the model, and for each replica that takes it (where the kind's first
argument is a replica: the broker that crashes, the leader that shrinks its ISR, the follower
that fetches), a search counts

- **enabled**: the states expanded in which at least one step of the kind was enabled;
- **fired**: the steps of the kind taken (every enabled step is taken in a breadth-first
  search; the successors generated);
- **new**: the steps that were the chosen route to a new distinct state (orbit, with symmetry);
- **first depth**: the depth of the first state a step of the kind reached (the length of the
  shortest behaviour that takes one).

Where the model names its events (`checker.kernel.guards`), it counts how many steps had each
(an unclean election, say) and at which depth the first did. Where it names its guards, and the
run asked for them (`--coverage`, since counting them costs time; `guards_counted` says
whether it did), it also counts how often each guard was tested and how often it was false
(kept a step from being taken): a search in one state of `guard_sample` (the states whose
fingerprint is a multiple of `checker.kernel.guards.GUARD_SAMPLE`), walks at every step. For
an action or event that never fired, `blocked_by` then names its guard that was false every
time it was tested, or else the one false most often.

A simulation keeps the same figures over its walks, with two differences: `enabled` counts the
steps of walks at which the kind was enabled (not states), and there is no `new` (walks keep
no visited set). Its events count the steps a walk could have taken with them (a walk looks
at every enabled step and takes one).

`fired` sums to the run's generated states. The initial states are counted as the pseudo-action
`Init`, which takes no step (fired 0) and finds every initial state (new), so that `new` sums
to the run's distinct states.

Every engine fills one `Coverage` level by level (the compiled search loop counts `fired` and
`enabled` per kind and actor, `checker.kernel.search_template.expand`; the new states' action
codes give `new`), so the figures are the same on every engine and at any partition count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .kernel.guards import FALSE, NO_GUARDS, REACHED, GuardBook, empty_tally
from .kernel.steps import ARG_LIMIT


@dataclass
class ActionCount:
    """How often an action fired (successors generated) and how many of those were the
    chosen route to a new distinct state."""

    fired: int = 0
    new: int = 0


ACTORS = ARG_LIMIT
"""Actor columns: an action's first argument is below 16 (`checker.kernel.steps`)."""
ANY_ACTOR = ACTORS
"""The column of `enabled` and `first` that counts a kind whoever acts."""
INIT = "Init"
"""The pseudo-action of the initial states."""


def empty_counts(kinds: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed (fired[kind, actor], enabled[kind, actor or ANY_ACTOR]) for one expansion."""
    return np.zeros((kinds, ACTORS), np.int64), np.zeros((kinds, ACTORS + 1), np.int64)


def new_counts(kinds: np.ndarray, actors: np.ndarray, n_kinds: int) -> np.ndarray:
    """new[kind, actor]: how many new states each (kind, actor) was the route to, from the
    kind and actor of each new state's action."""
    flat = np.bincount(np.asarray(kinds, np.int64) * ACTORS + np.asarray(actors, np.int64),
                       minlength=n_kinds * ACTORS)
    return flat.reshape(n_kinds, ACTORS)


class Coverage:
    """A search's coverage so far (module docstring). `replica_acts[k]`: kind k's first
    argument is a replica, so its figures are also kept per replica."""

    def __init__(self, kinds: tuple[str, ...], replica_acts: tuple[bool, ...] | None = None,
                 guards: GuardBook = NO_GUARDS, guards_counted: bool = True, guard_sample: int = 1):
        n = len(kinds)
        self.kinds = tuple(kinds)
        self.replica_acts = tuple(replica_acts) if replica_acts is not None else (False,) * n
        self.guards = guards
        self.guards_counted = guards_counted
        """Whether every level's guards were counted (events are counted always)."""
        self.guard_sample = guard_sample
        """Guards were counted in one state of this many (1: in all; a search samples)."""
        self.tally = empty_tally(guards)
        self.tally_first = np.full(len(self.tally), -1, np.int64)
        self.initial = 0
        self.expanded = 0
        self.fired, self.enabled = empty_counts(n)
        self.new = np.zeros((n, ACTORS), np.int64)
        self.first = np.full((n, ACTORS + 1), -1, np.int64)
        self.by_depth: list[list[int]] = []
        """Per depth d >= 1 (index d - 1), the steps of each kind that reached it: the share of
        each action level by level (a search's; walks keep none)."""

    def add_initial(self, states: int) -> None:
        """The initial states (orbits) found: Init's new states."""
        self.initial += states

    def add_steps(self, depth: int, expanded: int, fired: np.ndarray, enabled: np.ndarray,
                  tally: np.ndarray | None = None) -> None:
        """One level's expansion: `expanded` states of depth - 1, whose steps (`fired`,
        `enabled` as `empty_counts` shapes them, `tally` as `empty_tally` does, each summed over
        every part of the level; a one-column tally counts events only) reach depth `depth`."""
        self.expanded += expanded
        taken = np.concatenate([fired, fired.sum(axis=1, keepdims=True)], axis=1)
        self.first[(self.first < 0) & (taken > 0)] = depth
        self.fired += fired
        self.enabled += enabled
        self.by_depth.append(fired.sum(axis=1).tolist())
        if tally is not None:
            self.add_tally(tally)
            self.tally_first[(self.tally_first < 0) & (self.tally[:, REACHED] > 0)] = depth

    def add_tally(self, tally: np.ndarray) -> None:
        """Add a tally of guards and events (`empty_tally`'s shapes: guards and events, or
        events only)."""
        if tally.ndim == 1:
            self.tally[:, REACHED] += tally
        else:
            self.tally += tally

    def took(self, kind: int, actor: int, step: int) -> None:
        """A walk took a step of `kind` by `actor` as its step number `step` (simulation; the
        compiled walk counts the same in place)."""
        self.fired[kind, actor] += 1
        for column in (actor, ANY_ACTOR):
            if self.first[kind, column] < 0 or step < self.first[kind, column]:
                self.first[kind, column] = step

    def merge(self, other: "Coverage") -> None:
        """Add another set of walks' coverage (Spark tasks' walkers, in any order): counts add
        up, first depths are the earlier of the two."""
        for name in ("fired", "enabled", "new", "tally"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("first", "tally_first"):
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(self, name, np.where((mine < 0) | ((theirs >= 0) & (theirs < mine)), theirs, mine))
        self.expanded += other.expanded
        self.initial += other.initial
        self.guards_counted = self.guards_counted and other.guards_counted

    def add_new(self, new: np.ndarray) -> None:
        """One level's new states per (kind, actor) (`new_counts`)."""
        self.new += new

    def actions(self) -> dict[str, ActionCount]:
        """Steps fired and new states per action kind that fired, by name (a result's
        `actions`)."""
        fired, new = self.fired.sum(axis=1), self.new.sum(axis=1)
        return {self.kinds[k]: ActionCount(int(fired[k]), int(new[k]))
                for k in sorted(range(len(self.kinds)), key=lambda k: self.kinds[k]) if fired[k]}

    def never_fired(self) -> list[str]:
        """The action kinds no step of which was taken, in the model's order, then the named
        events no step had."""
        kinds = [name for name, fired in zip(self.kinds, self.fired.sum(axis=1).tolist()) if not fired]
        return kinds + [entry.name for g, entry in enumerate(self.guards.entries)
                        if entry.event and not self.tally[g, REACHED]]

    def row(self, k: int, actor: int = ANY_ACTOR) -> dict[str, Any]:
        """Kind k's figures (for one acting replica, or whoever acts)."""
        fired = self.fired[k].sum() if actor == ANY_ACTOR else self.fired[k, actor]
        new = self.new[k].sum() if actor == ANY_ACTOR else self.new[k, actor]
        first = int(self.first[k, actor])
        return {"enabled": int(self.enabled[k, actor]), "fired": int(fired), "new": int(new),
                "first_depth": first if first >= 0 else None}

    def replicas_of(self, k: int) -> list[int]:
        """The replicas for which kind k has figures of its own (none unless a replica acts)."""
        if not self.replica_acts[k]:
            return []
        return [a for a in range(ACTORS) if self.enabled[k, a] or self.fired[k, a]]

    def guard_rows(self, owner: str) -> list[dict[str, Any]]:
        """The guards of action kind or event `owner`: each one's name, how often it was tested
        and how often it was false, in the order the model declares them (none when the run
        did not count guards)."""
        if not self.guards_counted:
            return []
        return [{"guard": self.guards.entries[g].name, "tested": int(self.tally[g, REACHED]),
                 "false": int(self.tally[g, FALSE])} for g in self.guards.guards_of(owner)]

    def blocked_by(self, owner: str) -> dict[str, Any] | None:
        """What kept `owner` (an action kind or event) from firing: its guard that was false
        every time it was tested (the first such, in declared order), or else the one false most
        often; with `always` saying which. None when none of its guards was ever false."""
        rows = [row for row in self.guard_rows(owner) if row["false"]]
        if not rows:
            return None
        always = [row for row in rows if row["false"] == row["tested"]]
        chosen = always[0] if always else max(rows, key=lambda row: row["false"])
        return {**chosen, "always": bool(always)}

    def events(self) -> dict[str, dict[str, Any]]:
        """Per named event: the steps that had it, the first depth one did, and its guards."""
        found = {}
        for g, entry in enumerate(self.guards.entries):
            if entry.event:
                first = int(self.tally_first[g])
                found[entry.name] = {"fired": int(self.tally[g, REACHED]), "first_depth": first if first >= 0 else None,
                                     "guards": self.guard_rows(entry.name)}
        return found

    def walks_json(self) -> dict[str, Any]:
        """The `coverage` object of `simulate --coverage --json` (see the module docstring):
        per action its enabled steps, steps taken, first step number and guards; per event the
        steps it was possible at."""
        doc = self.to_json()
        for name, row in doc["actions"].items():
            row.pop("new", None)
            for replica in row.get("by_replica", {}).values():
                replica.pop("new", None)
                replica.pop("enabled", None)
        doc["actions"].pop(INIT)
        for name, row in doc["events"].items():
            row["possible"] = row.pop("fired")
            row.pop("first_depth")
        doc.pop("states_expanded")
        doc.pop("initial_states")
        doc.pop("fired_by_depth")
        return doc

    def to_json(self) -> dict[str, Any]:
        """The `coverage` object of a JSON result: states expanded, initial states, per action
        (Init first, then the model's kinds in its order, fired or not) its figures, its guards
        and, when it never fired, what blocked it, and per acting replica (named r1, r2, ...)
        where a replica acts; then the model's named events, likewise."""
        actions: dict[str, Any] = {INIT: {"enabled": None, "fired": 0, "new": self.initial,
                                          "first_depth": 0 if self.initial else None}}
        for k, name in enumerate(self.kinds):
            actions[name] = self.row(k)
            replicas = self.replicas_of(k)
            if replicas:
                actions[name]["by_replica"] = {f"r{a + 1}": self.row(k, a) for a in replicas}
            self._explain(name, actions[name])
        events = self.events()
        for name, row in events.items():
            self._explain(name, row)
        counted = self.guards_counted and bool(len(self.guards))
        return {"states_expanded": self.expanded, "initial_states": self.initial, "guards_counted": counted,
                **({"guard_sample": self.guard_sample} if counted else {}), "actions": actions,
                "events": events, "never_fired": self.never_fired(), "fired_by_depth": self.fired_by_depth()}

    def fired_by_depth(self) -> dict[str, list[int]]:
        """Per action kind that fired, its steps reaching each depth 1, 2, ... (a search's)."""
        columns = list(zip(*self.by_depth)) if self.by_depth else [()] * len(self.kinds)
        return {name: list(column) for name, column in zip(self.kinds, columns) if any(column)}

    def _explain(self, name: str, row: dict[str, Any]) -> None:
        """Add `guards` (where the model names them) and, for what never fired, `blocked_by`."""
        guards = row.get("guards", self.guard_rows(name))
        if guards:
            row["guards"] = guards
        if not row["fired"] and guards:
            row["blocked_by"] = self.blocked_by(name)

    def to_doc(self) -> dict[str, Any]:
        """Every counter, as a checkpoint manifest keeps it (`from_doc` reads it back)."""
        return {"kinds": list(self.kinds), "replica_acts": list(self.replica_acts), "initial": self.initial,
                "expanded": self.expanded, "fired": self.fired.tolist(), "enabled": self.enabled.tolist(),
                "new": self.new.tolist(), "first": self.first.tolist(), "tally": self.tally.tolist(),
                "tally_first": self.tally_first.tolist(), "by_depth": self.by_depth,
                "guards_counted": self.guards_counted, "guard_sample": self.guard_sample}

    @classmethod
    def from_doc(cls, doc: Any, guards: GuardBook | None = None) -> "Coverage":
        """A coverage from `to_doc`, of a model whose guards are `guards` (None: only checked
        for its form, whatever guards it counts); ValueError when `doc` is not one."""
        try:
            coverage = cls(tuple(doc["kinds"]), tuple(bool(b) for b in doc["replica_acts"]), guards or NO_GUARDS)
            n = len(coverage.kinds)
            coverage.initial, coverage.expanded = _count(doc["initial"]), _count(doc["expanded"])
            for name, columns, least in (("fired", ACTORS, 0), ("enabled", ACTORS + 1, 0), ("new", ACTORS, 0),
                                         ("first", ACTORS + 1, -1)):
                array = np.array(doc[name], np.int64)
                if array.shape != (n, columns) or (array < least).any():
                    raise ValueError(name)
                setattr(coverage, name, array)
            tally, first = np.array(doc["tally"], np.int64), np.array(doc["tally_first"], np.int64)
            rows = len(coverage.tally) if guards is not None else len(tally)
            if tally.shape != (rows, 2) or first.shape != (rows,) or (tally < 0).any() or (first < -1).any():
                raise ValueError("tally")
            coverage.tally, coverage.tally_first = tally, first
            by_depth = np.array(doc["by_depth"], np.int64).reshape(-1, n)
            if (by_depth < 0).any():
                raise ValueError("by_depth")
            coverage.by_depth = by_depth.tolist()
            coverage.guards_counted = doc.get("guards_counted", True)
            if not isinstance(coverage.guards_counted, bool):
                raise ValueError("guards_counted")
            coverage.guard_sample = _count(doc.get("guard_sample", 1))
            if coverage.guard_sample < 1:
                raise ValueError("guard_sample")
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"not a coverage record ({exc})") from None
        return coverage


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise ValueError("count")
    return value


def restored_coverage(doc: dict[str, Any], guards: GuardBook) -> Coverage:
    """The coverage a checkpoint kept (`Coverage.to_doc`), for a model whose guards are
    `guards`; CheckpointError when it does not fit them."""
    from .checkpoint.identity import CheckpointError

    try:
        return Coverage.from_doc(doc, guards)
    except ValueError:
        raise CheckpointError("its coverage record does not fit this model's actions and guards") from None
