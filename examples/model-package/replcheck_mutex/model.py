"""Two processes and a critical section. Each process loops: it wants in (raising its flag under
flag=on), gives the other the turn (under turn=on), waits until its check passes, enters, and
leaves (lowering its flag). The check passes when the other is not inside (flag=off) or its flag
is down (flag=on), or, under turn=on, when the turn is its own; passing the check and entering
are two steps, as they are two instructions in a real program."""

from __future__ import annotations

from typing import Any, NamedTuple

from checker.model import Lane

from .rules import RULE_BOOK

IDLE, READY, WAITING, PASSED, CRITICAL = range(5)
PCS = ("idle", "ready", "waiting", "passed", "critical")


class MutexState(NamedTuple):
    """Each process's place in its loop, its flag and how often it has entered; whose turn it is."""

    pc: tuple[int, int]
    flag: tuple[int, int]
    entries: tuple[int, int]
    turn: int


def _set(pair: tuple, i: int, value: int) -> tuple:
    return pair[:i] + (value,) + pair[i + 1:]


class MutexModel:
    """Two processes under one rule set (`variant`: a preset, or a preset with rules switched)."""

    name = "mutex"

    def __init__(self, variant: str, max_entries: int):
        rule_set = RULE_BOOK.resolve(variant)
        self.variant, self.rules, self.max_entries = rule_set.name, rule_set.choices, max_entries
        self.flags, self.turns = self.rules["flag"] == "on", self.rules["turn"] == "on"

    def parameters(self) -> dict[str, Any]:
        """How many times each process may enter."""
        return {"max_entries": self.max_entries}

    def initial_states(self) -> list[MutexState]:
        """Both processes idle, flags down, process 0's turn."""
        return [MutexState((IDLE, IDLE), (0, 0), (0, 0), 0)]

    def may_enter(self, s: MutexState, i: int) -> bool:
        """Process i's check passes: the other is not inside (flag=off) or its flag is down
        (flag=on), or the turn is i's (turn=on)."""
        other = 1 - i
        free = s.flag[other] == 0 if self.flags else s.pc[other] != CRITICAL
        return free or (self.turns and s.turn == i)

    def successors(self, s: MutexState):
        """Each process's next step."""
        out = []
        for i in (0, 1):
            pc = s.pc[i]
            if pc == IDLE and s.entries[i] < self.max_entries:
                out.append((("Want", i), s._replace(pc=_set(s.pc, i, READY if self.turns else WAITING),
                                                    flag=_set(s.flag, i, 1) if self.flags else s.flag)))
            elif pc == READY:
                out.append((("GiveTurn", i), s._replace(pc=_set(s.pc, i, WAITING), turn=1 - i)))
            elif pc == WAITING and self.may_enter(s, i):
                out.append((("Check", i), s._replace(pc=_set(s.pc, i, PASSED))))
            elif pc == PASSED:
                out.append((("Enter", i), s._replace(pc=_set(s.pc, i, CRITICAL), entries=_set(s.entries, i,
                                                                                              s.entries[i] + 1))))
            elif pc == CRITICAL:
                out.append((("Leave", i), s._replace(pc=_set(s.pc, i, IDLE), flag=_set(s.flag, i, 0))))
        return out

    def describe_step(self, action, before, after) -> str:
        """The step in words."""
        kind, i = action
        words = {"Want": "wants the critical section" + (" and raises its flag" if self.flags else ""),
                 "GiveTurn": "gives the other process the turn", "Check": "finds it may enter",
                 "Enter": "enters the critical section",
                 "Leave": "leaves the critical section" + (" and lowers its flag" if self.flags else "")}
        return f"p{i} {words[kind]}"

    def action_kinds(self) -> tuple[str, ...]:
        """The step names."""
        return ("Want", "GiveTurn", "Check", "Enter", "Leave")

    def state_to_json(self, s: MutexState) -> Any:
        """The state as JSON data."""
        return {"pc": [PCS[p] for p in s.pc], "flag": list(s.flag), "entries": list(s.entries), "turn": s.turn}

    def state_from_json(self, data: Any) -> MutexState:
        """The state `state_to_json` wrote; ValueError when malformed."""
        try:
            state = MutexState(tuple(PCS.index(p) for p in data["pc"]), tuple(int(f) for f in data["flag"]),
                               tuple(int(e) for e in data["entries"]), int(data["turn"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a mutex state: {exc}") from None
        if len(state.pc) != 2 or len(state.flag) != 2 or len(state.entries) != 2:
            raise ValueError("not a mutex state: two processes expected")
        return state

    def state_columns(self, s: MutexState) -> dict[str, list[str]]:
        """One column per process, and the turn."""
        columns = {f"p{i}": [PCS[s.pc[i]], f"flag {s.flag[i]}", f"entered {s.entries[i]}"] for i in (0, 1)}
        return {**columns, "turn": [f"p{s.turn}"]}

    def lanes(self, s: MutexState) -> dict:
        """One lane per process (no log): where it is, and its flag."""
        return {f"p{i}": Lane((), None, None, False, f"{PCS[s.pc[i]]}, flag {s.flag[i]}")
                for i in (0, 1)}

    def encode(self, s: MutexState) -> bytes:
        """The state as 7 bytes."""
        return bytes([*s.pc, *s.flag, *s.entries, s.turn])

    def decode(self, data: bytes) -> MutexState:
        """The state `encode` wrote."""
        return MutexState(tuple(data[0:2]), tuple(data[2:4]), tuple(data[4:6]), data[6])
