"""What the compiled search needs from the `spec` model: its next-state relation, its
renaming of replicas, and its invariants (it has no step properties)."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.reduction import no_conditions as condition_holds  # no conditions: never reduced
from invariants.spec import violations

from .successors import successors
from .symmetry import head_rank, permute, permute_head, permute_part

__all__ = ["successors", "permute", "head_rank", "permute_head", "permute_part", "violations", "broken_steps", "milestone", "condition_holds"]


@kernel
def broken_steps(s, code, t, lay, selected):
    """The `spec` model has no step properties: no step breaks one."""
    return 0


@kernel
def milestone(s, lay, invariant):
    """The `spec` model's invariants have no milestones for simulation to steer by: level 0."""
    return 0
