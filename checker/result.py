"""What an exploration reports: counts, per-level and per-action figures, verdicts, traces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from traces.trace import Trace

from .stopping import COMPLETE

if TYPE_CHECKING:
    from .coverage import ActionCount, Coverage


@dataclass(frozen=True)
class LevelStats:
    """One BFS level: its depth (in transitions from the initial states), the new distinct
    states found at it, states generated while expanding the previous level, and the running
    totals after it. A distributed engine also reports `task_seconds`: its slowest task's own
    work in the level (waiting for other tasks left out), so the rest of the level's wall time
    is the engine's own overhead. `violated` names the invariants violated so far and `reached` the witnesses
    reached so far (what an interrupted run can still report)."""

    depth: int
    new_states: int
    generated: int
    distinct_total: int
    seconds_total: float
    task_seconds: float = 0.0
    violated: tuple[str, ...] = ()
    reached: tuple[str, ...] = ()


def found_so_far(names, witnesses) -> dict[str, tuple[str, ...]]:
    """LevelStats' `violated` and `reached` for the properties `names` found so far, of which
    `witnesses` are witnesses."""
    return {"violated": tuple(sorted(n for n in names if n not in witnesses)),
            "reached": tuple(sorted(n for n in names if n in witnesses))}


@dataclass
class CheckResult:
    """The outcome of exploring one model instance against a list of properties: invariants
    and witnesses (`invariants` names them all, `witnesses` the witnesses among them).

    `complete` is True when the whole reachable state space was explored. When the search
    stopped earlier, invariants that had not failed and witnesses not reached by then are
    'unknown'.
    """

    model: str
    variant: str | None
    bounds: dict[str, int]
    engine: str
    invariants: list[str]
    witnesses: tuple[str, ...] = ()
    engine_options: dict = field(default_factory=dict)
    symmetry: bool = False
    """One state per orbit under replica renaming was stored: `distinct_states` counts orbits."""
    distinct_states: int = 0
    generated_states: int = 0
    depth: int = 0
    seconds: float = 0.0
    stopped: str = ""
    """Why the search stopped (see `checker.stopping`)."""
    levels: list[LevelStats] = field(default_factory=list)
    actions: dict[str, ActionCount] = field(default_factory=dict)
    violations: dict[str, Trace] = field(default_factory=dict)
    """The shortest trace of each violated invariant and of each reached witness, by name."""
    phase_seconds: dict[str, float] = field(default_factory=dict)
    """A distributed engine's own account of its levels: per phase of a level, the seconds of
    its slowest task, summed over the levels (benchmarks read it; reports do not)."""
    reduction: str = ""
    """How the search was reduced (`--reduce`, `checker.reduce`): empty when it took every step."""
    rules: dict[str, str] = field(default_factory=dict)
    """Every rule's choice (rule -> choice) under the variant, for a model with rules."""
    coverage: "Coverage | None" = None
    """What the search exercised (`checker.coverage.Coverage`), per action kind and replica."""
    relied_on: tuple[str, ...] = ()
    """The actions and events the model's rules and configuration switch on (a model's
    `relied_on()`): a complete run in which one never fired says so (`coverage_warnings`)."""

    @classmethod
    def of(cls, model, properties, engine: str, **options) -> "CheckResult":
        """An empty result of checking `properties` (invariants and witnesses) on `model`."""
        relied_on = getattr(model, "relied_on", None)
        return cls(model.name, model.variant, dict(model.parameters()), engine, [p.name for p in properties],
                   tuple(p.name for p in properties if p.witness), rules=dict(getattr(model, "rules", None) or {}),
                   relied_on=tuple(relied_on()) if relied_on is not None else (), **options)

    @property
    def complete(self) -> bool:
        """The whole reachable state space was explored."""
        return self.stopped == COMPLETE

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

    def verdict(self, name: str) -> str:
        """For an invariant 'violated', 'holds' (only after a complete search) or 'unknown'; for
        a witness 'reachable', 'unreachable' (only after a complete search) or 'unknown'; 'n/a'
        for a property this run did not check because it does not apply to the model."""
        if name not in self.invariants:
            return "n/a"
        found, not_found = ("reachable", "unreachable") if name in self.witnesses else ("violated", "holds")
        if name in self.violations:
            return found
        return not_found if self.complete else "unknown"

    @property
    def ok(self) -> bool:
        """No checked invariant was violated (a reached witness is an answer, not a failure)."""
        return all(name in self.witnesses for name in self.violations)

    @property
    def decided(self) -> bool:
        """Every checked property has a verdict: the search was complete, or found them all."""
        return self.complete or all(name in self.violations for name in self.invariants)
