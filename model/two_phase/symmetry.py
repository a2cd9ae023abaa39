"""Symmetry of two-phase commit: resource managers are interchangeable.

An RM is characterised by its own state, whether the TM has recorded it as prepared, and
whether its "prepared" message was sent; the orbit of a state under renaming RMs is the
multiset of those triples (with the TM's state and the commit/abort messages). The
representative lists the RMs in sorted order of their triples.
"""

from __future__ import annotations

from typing import Sequence

from .state import TwoPhaseState


def _bits(flags) -> int:
    return sum(flag << r for r, flag in enumerate(flags))


def representative(s: TwoPhaseState) -> TwoPhaseState:
    """The state of s's orbit whose RMs are in sorted order of (state, seen prepared by the TM,
    'prepared' message sent): equal for every renaming of the RMs, different across orbits."""
    triples = sorted((rm, s.tm_prepared >> r & 1, s.msg_prepared >> r & 1) for r, rm in enumerate(s.rm))
    return TwoPhaseState(tuple(t[0] for t in triples), s.tm, _bits(t[1] for t in triples),
                         _bits(t[2] for t in triples), s.msg_commit, s.msg_abort)


def renamed(s: TwoPhaseState, perm: Sequence[int]) -> TwoPhaseState:
    """s with RM r renamed perm[r]."""
    rm = [0] * len(s.rm)
    for r, state in enumerate(s.rm):
        rm[perm[r]] = state

    def move(mask: int) -> int:
        return sum((mask >> r & 1) << perm[r] for r in range(len(perm)))

    return TwoPhaseState(tuple(rm), s.tm, move(s.tm_prepared), move(s.msg_prepared), s.msg_commit, s.msg_abort)
