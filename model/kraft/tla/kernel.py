"""What the compiled search needs from variant `tla` of the `kraft` model: its next-state
relation, its renaming of voters, its invariants and its step property."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.reduction import no_conditions as condition_holds  # no conditions: never reduced
from checker.kernel.symmetry import unranked as head_rank  # no cheap order: every renaming is compared on its head
from invariants.kraft import broken_steps, violations
from invariants.kraft_milestones import acked_milestone

from .successors import successors
from .symmetry import permute, permute_head, permute_part

__all__ = ["successors", "permute", "head_rank", "permute_head", "permute_part", "violations", "broken_steps", "milestone", "condition_holds"]


@kernel
def milestone(s, lay, invariant):
    """How far `s` is along the usual story of a violation of the invariant with bit number
    `invariant` (`invariants.kraft.INVARIANTS`): the level of its milestones, which only
    leader-has-acked-values has (`invariants.kraft_milestones`; 0: none)."""
    return acked_milestone(s, lay) if invariant == 0 else 0
