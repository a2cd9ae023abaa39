"""The mutex model's invariant and witness."""

from __future__ import annotations

from checker.invariant import Invariant

from .model import CRITICAL, WAITING


def mutual_exclusion(state) -> bool:
    """At most one process is in the critical section.

    A failure means both processes work on the shared resource at once."""
    return state.pc.count(CRITICAL) < 2


def not_both_waiting(state) -> bool:
    """Not both processes are waiting (reached: both can wait, and without a turn neither may
    ever enter)."""
    return state.pc.count(WAITING) < 2


PROPERTIES = (
    Invariant("mutual-exclusion", "at most one process is in the critical section", mutual_exclusion, symmetric=True),
    Invariant("both-waiting", "both processes wait at once", not_both_waiting, witness=True),
)
