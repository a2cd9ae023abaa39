"""What the compiled search needs from the `fetch` model: its next-state relation, its
renaming of replicas, its invariants and its step property, the milestones simulation
steers by, and the conditions a reduced search tests (`--reduce`)."""

from __future__ import annotations

from invariants.fetch import broken_steps, milestone, violations

from .conditions import condition_holds
from .successors import successors
from .symmetry import head_rank, permute, permute_head, permute_part

__all__ = ["successors", "permute", "head_rank", "permute_head", "permute_part", "violations", "broken_steps", "milestone", "condition_holds"]
