"""What the compiled search needs from the `fetch` model: its next-state relation, its
renaming of replicas, its invariants and its step property."""

from __future__ import annotations

from invariants.fetch import broken_steps, violations

from .successors import successors
from .symmetry import permute

__all__ = ["successors", "permute", "violations", "broken_steps"]
