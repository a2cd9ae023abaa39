"""Two-phase commit (the classic TLA+ example) with N resource managers (RMs).

It exists to test the checker on its own: TLC and Stateright publish its state counts, so
an engine bug cannot hide behind a Kafka-model bug.
"""

from __future__ import annotations

from typing import Any

from checker.model import Lane

from ..params import Param
from .state import ABORTED, COMMITTED, INIT, PREPARED, RM_STATES, TM_STATES, WORKING, TwoPhaseState

PARAMS = (Param("rms", 3, 1, 10, "number of resource managers"),)


def _set_rm(state: TwoPhaseState, r: int, value: int) -> tuple[int, ...]:
    return state.rm[:r] + (value,) + state.rm[r + 1:]


class TwoPhaseModel:
    """Two-phase commit with `rms` resource managers; messages are never lost or removed."""

    name = "two-phase"
    variant = None

    def __init__(self, rms: int):
        self.rms = rms

    def parameters(self) -> dict[str, int]:
        """The number of resource managers."""
        return {"rms": self.rms}

    def initial_states(self) -> list[TwoPhaseState]:
        """Every RM working, the TM in init, nothing prepared, no messages."""
        return [TwoPhaseState((WORKING,) * self.rms, INIT, 0, 0, 0, 0)]

    def successors(self, s: TwoPhaseState):
        """TM and RM steps of two-phase commit."""
        everyone = (1 << self.rms) - 1
        if s.tm == INIT:
            for r in range(self.rms):
                if s.msg_prepared >> r & 1 and not s.tm_prepared >> r & 1:
                    yield ("TMRcvPrepared", r), s._replace(tm_prepared=s.tm_prepared | 1 << r)
            if s.tm_prepared == everyone:
                yield ("TMCommit",), s._replace(tm=1, msg_commit=1)
            yield ("TMAbort",), s._replace(tm=2, msg_abort=1)
        for r, rm in enumerate(s.rm):
            if rm == WORKING:
                yield ("RMPrepare", r), s._replace(rm=_set_rm(s, r, PREPARED), msg_prepared=s.msg_prepared | 1 << r)
                yield ("RMChooseToAbort", r), s._replace(rm=_set_rm(s, r, ABORTED))
            if s.msg_commit and rm != COMMITTED:
                yield ("RMRcvCommitMsg", r), s._replace(rm=_set_rm(s, r, COMMITTED))
            if s.msg_abort and rm != ABORTED:
                yield ("RMRcvAbortMsg", r), s._replace(rm=_set_rm(s, r, ABORTED))

    def representative(self, s: TwoPhaseState) -> TwoPhaseState:
        """The state standing for s's orbit under renaming RMs (see `model.two_phase.symmetry`)."""
        from .symmetry import representative

        return representative(s)

    def action_kinds(self) -> tuple[str, ...]:
        """The TM and RM step names."""
        return ("TMRcvPrepared", "TMCommit", "TMAbort", "RMPrepare", "RMChooseToAbort", "RMRcvCommitMsg", "RMRcvAbortMsg")

    def encode(self, s: TwoPhaseState) -> bytes:
        """One byte per RM state and for the TM, two per RM set, one per commit/abort flag."""
        return bytes(s.rm + (s.tm, s.tm_prepared & 255, s.tm_prepared >> 8, s.msg_prepared & 255, s.msg_prepared >> 8,
                             s.msg_commit, s.msg_abort))

    def decode(self, data: bytes) -> TwoPhaseState:
        """The state `encode` turned into `data`."""
        n = self.rms
        return TwoPhaseState(tuple(data[:n]), data[n], data[n + 1] | data[n + 2] << 8, data[n + 3] | data[n + 4] << 8,
                             data[n + 5], data[n + 6])

    def describe_step(self, action: tuple, before: TwoPhaseState, after: TwoPhaseState) -> str:
        """The step in two-phase-commit words."""
        kind, *args = action
        rm = f"rm{args[0] + 1}" if args else ""
        return {
            "TMRcvPrepared": f"TM receives '{rm} is prepared'",
            "TMCommit": "TM commits and sends 'commit'",
            "TMAbort": "TM aborts and sends 'abort'",
            "RMPrepare": f"{rm} prepares and sends '{rm} is prepared'",
            "RMChooseToAbort": f"{rm} decides to abort",
            "RMRcvCommitMsg": f"{rm} receives 'commit' and commits",
            "RMRcvAbortMsg": f"{rm} receives 'abort' and aborts",
        }[kind]

    def state_columns(self, s: TwoPhaseState) -> dict[str, list[str]]:
        """One column per RM and one for the TM and the messages in flight."""
        columns = {f"rm{r + 1}": [RM_STATES[x]] for r, x in enumerate(s.rm)}
        sent = [f"rm{r + 1} prepared" for r in range(self.rms) if s.msg_prepared >> r & 1]
        sent += ["commit"] * s.msg_commit + ["abort"] * s.msg_abort
        seen = [f"rm{r + 1}" for r in range(self.rms) if s.tm_prepared >> r & 1]
        columns["tm"] = [TM_STATES[s.tm], "prepared: " + (", ".join(seen) or "-"), "sent: " + (", ".join(sent) or "-")]
        return columns

    def lanes(self, s: TwoPhaseState) -> dict:
        """One lane per RM (no log: just its state), for pictures."""
        return {f"rm{r + 1}": Lane((), None, None, False, RM_STATES[x]) for r, x in enumerate(s.rm)}

    def state_to_json(self, s: TwoPhaseState) -> dict[str, Any]:
        """The state as plain JSON data with named RM and TM states."""
        return {"rm": [RM_STATES[x] for x in s.rm], "tm": TM_STATES[s.tm],
                "tm_prepared": [r for r in range(self.rms) if s.tm_prepared >> r & 1],
                "msg_prepared": [r for r in range(self.rms) if s.msg_prepared >> r & 1],
                "msg_commit": bool(s.msg_commit), "msg_abort": bool(s.msg_abort)}

    def state_from_json(self, data: Any) -> TwoPhaseState:
        """Rebuild a state from `state_to_json` output; raises ValueError when malformed."""
        try:
            rm = tuple(RM_STATES.index(x) for x in data["rm"])
            if len(rm) != self.rms:
                raise ValueError(f"state has {len(rm)} RMs, the bounds say {self.rms}")

            def mask(ids):
                if any(not isinstance(r, int) or not 0 <= r < self.rms for r in ids):
                    raise ValueError("RM ids out of range")
                return sum(1 << r for r in set(ids))

            return TwoPhaseState(rm, TM_STATES.index(data["tm"]), mask(data["tm_prepared"]),
                                 mask(data["msg_prepared"]), int(bool(data["msg_commit"])), int(bool(data["msg_abort"])))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed two-phase state: {exc}") from None
