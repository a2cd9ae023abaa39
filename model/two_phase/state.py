"""A two-phase commit state: the resource managers', the transaction manager's and the
messages sent."""

from __future__ import annotations

from typing import NamedTuple

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
RM_STATES = ("working", "prepared", "committed", "aborted")
INIT = 0
TM_STATES = ("init", "committed", "aborted")


class TwoPhaseState(NamedTuple):
    """RM states, TM state, the RMs the TM has seen prepared (bitmask), and the messages ever
    sent: "r is prepared" (bitmask), "commit" and "abort" (0 or 1)."""

    rm: tuple[int, ...]
    tm: int
    tm_prepared: int
    msg_prepared: int
    msg_commit: int
    msg_abort: int
