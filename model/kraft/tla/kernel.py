"""What the compiled search needs from variant `tla` of the `kraft` model: its next-state
relation, its renaming of voters, its invariants and its step property."""

from __future__ import annotations

from checker.kernel.jit import kernel
from invariants.kraft import broken_steps, violations

from .successors import successors
from .symmetry import permute, permute_head

__all__ = ["successors", "permute", "permute_head", "violations", "broken_steps", "milestone"]


@kernel
def milestone(s, lay, invariant):
    """Variant `tla`'s invariants have no milestones for simulation to steer by: level 0."""
    return 0
