"""Invariants of the `two-phase` model."""

from __future__ import annotations

from checker.invariant import Invariant
from model.two_phase.state import ABORTED, COMMITTED, TwoPhaseState


def consistent(state: TwoPhaseState) -> bool:
    """No resource manager has committed while another has aborted.

    A failure means the transaction was applied on some participants and rolled back on
    others: the atomicity two-phase commit exists to provide is broken."""
    return not (COMMITTED in state.rm and ABORTED in state.rm)


INVARIANTS = (Invariant("consistent", "no RM is committed while another is aborted", consistent),)
