"""What an exploration reports: counts, per-level and per-action figures, verdicts, traces."""

from __future__ import annotations

from dataclasses import dataclass, field

from traces.trace import Trace


@dataclass(frozen=True)
class LevelStats:
    """One BFS level: its depth (in transitions from the initial states), the new distinct
    states found at it, states generated while expanding the previous level, and the running
    totals after it. A distributed engine also reports `task_seconds`: its slowest expand task
    plus its slowest merge task, so the rest of the level's wall time is the engine's own
    overhead. `violated` names the properties violated so far (what an interrupted run can
    still report)."""

    depth: int
    new_states: int
    generated: int
    distinct_total: int
    seconds_total: float
    task_seconds: float = 0.0
    violated: tuple[str, ...] = ()


@dataclass
class ActionCount:
    """How often an action fired (successors generated) and how many of those were the
    chosen route to a new distinct state."""

    fired: int = 0
    new: int = 0


@dataclass
class CheckResult:
    """The outcome of exploring one model instance against a list of invariants.

    `complete` is True when the whole reachable state space was explored. When the search
    stopped at the first violation, invariants that had not failed by then are 'unknown'.
    """

    model: str
    variant: str | None
    bounds: dict[str, int]
    engine: str
    invariants: list[str]
    engine_options: dict = field(default_factory=dict)
    symmetry: bool = False
    """One state per orbit under replica renaming was stored: `distinct_states` counts orbits."""
    distinct_states: int = 0
    generated_states: int = 0
    depth: int = 0
    seconds: float = 0.0
    complete: bool = False
    levels: list[LevelStats] = field(default_factory=list)
    actions: dict[str, ActionCount] = field(default_factory=dict)
    violations: dict[str, Trace] = field(default_factory=dict)

    @property
    def states_per_second(self) -> float:
        """Distinct states found per second of search."""
        return self.distinct_states / self.seconds if self.seconds > 0 else 0.0

    @property
    def collision_probability(self) -> float:
        """TLC's optimistic estimate of the chance that two distinct states shared a 64-bit
        fingerprint, so that one of them was never explored."""
        n = self.distinct_states
        return n * (n - 1) / 2 / 2.0 ** 64

    def verdict(self, invariant: str) -> str:
        """'violated', 'holds' (only after a complete search) or 'unknown'."""
        if invariant in self.violations:
            return "violated"
        return "holds" if self.complete else "unknown"

    @property
    def ok(self) -> bool:
        """No checked invariant was violated."""
        return not self.violations
