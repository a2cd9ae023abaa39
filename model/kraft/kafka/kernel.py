"""What the compiled search needs from the faithful variants of the `kraft` model: their
next-state relation, their renaming of voters, their invariants and their step property."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.steps import code_actor, code_kind
from checker.kernel.symmetry import unranked as head_rank  # no cheap order: every renaming is compared on its head
from checker.kernel.reduction import no_conditions as condition_holds  # no conditions: never reduced
from invariants.kraft import hw_never_goes_back, violations
from invariants.kraft_milestones import acked_milestone

from .kinds import LOSE_DISK, RESTART
from .successors import successors
from .symmetry import permute, permute_head, permute_part

__all__ = ["successors", "permute", "head_rank", "permute_head", "permute_part", "violations", "broken_steps", "milestone", "condition_holds"]


@kernel
def broken_steps(s, code, t, lay, selected):
    """A bitmask of the step properties among `selected` that the step `code` from s to t
    breaks: bit 0, hw-never-goes-back (a Restart or LoseDisk names the voter that came back,
    whose HW is forgotten)."""
    kind = code_kind(code)
    restarted = code_actor(code) - 1 if kind == RESTART or kind == LOSE_DISK else -1
    return 1 if selected & 1 and not hw_never_goes_back(s, t, lay, restarted) else 0


@kernel
def milestone(s, lay, invariant):
    """How far `s` is along the usual story of a violation of the invariant with bit number
    `invariant` (`invariants.kraft.INVARIANTS`): the level of its milestones, which only
    leader-has-acked-values has (`invariants.kraft_milestones`; 0: none)."""
    return acked_milestone(s, lay) if invariant == 0 else 0
