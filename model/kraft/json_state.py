"""A `kraft` state as plain JSON (what trace files hold) and back."""

from __future__ import annotations

from typing import Any

from .state import ACKED, NIL, RESIGN_REQUESTED, ROLES, WRITTEN, KRaftState

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

_ROLE_IDS = {name: code for code, name in ROLES.items()}
_ACKED = {NIL: None, WRITTEN: "written", ACKED: "acknowledged"}


def _ints(value: Any, what: str):
    """JSON arrays as tuples, whole numbers checked (none negative: states hold no other)."""
    if isinstance(value, list):
        return tuple(_ints(v, what) for v in value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what}: {value!r} is not a whole number")
    return value


def _log(value: Any) -> tuple:
    """A log or a FETCH response's records: (epoch, value) pairs, the value a client value
    (1..m), 0 for a LeaderChange record or -code for a VotersRecord (`model.kraft.voter_sets`)."""
    if not isinstance(value, list):
        raise ValueError(f"log: {value!r} is not a list of entries")
    out = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2 or any(isinstance(x, bool) or not isinstance(x, int)
                                                                for x in pair) or pair[0] < 0:
            raise ValueError(f"log: {pair!r} is not an (epoch, value) entry")
        out.append(tuple(pair))
    return tuple(out)


def _message(value: Any) -> tuple:
    """A message: whole numbers, a FETCH response's records as a log."""
    m = _ints(value[:10], "message") if isinstance(value, list) and value[:1] == [6] else None
    if m is None:
        return _ints(value, "message")
    return (*m, _log(value[10]), _ints(value[11], "message"))


def _voter_op(value: Any) -> int:
    """A leader's pending RemoveVoter: null, the 1-based offset of its record, or "resign-requested"."""
    if value == "resign-requested":
        return RESIGN_REQUESTED
    return 0 if value is None else _ints(value, "voter change")


def to_json(s: KRaftState) -> dict[str, Any]:
    """The state with named roles, voters 1..n (null: none) and messages as arrays."""
    def named(v: int) -> int | None:
        return None if v == NIL else v

    voters = [{"epoch": s.epoch[i], "role": ROLES[s.role[i]], "voted_for": named(s.voted_for[i]),
               "leader": named(s.leader[i]), "pending_fetch": list(s.pending[i]) or None,
               "log": [list(entry) for entry in s.log[i]], "hw": s.hw[i],
               "votes": [k + 1 for k in range(len(s.role)) if s.votes[i] >> k & 1],
               "end_offset": list(s.end_offset[i])} for i in range(len(s.role))]
    if s.flushed:  # a faithful variant's state
        for i, v in enumerate(voters):
            v.update(flushed=s.flushed[i], start_offset=s.start_offset[i],
                     heard=[k + 1 for k in range(len(s.role)) if s.heard[i] >> k & 1], directory=s.directory[i],
                     voter_change={0: None, RESIGN_REQUESTED: "resign-requested"}.get(s.voter_op[i], s.voter_op[i]))
    out = {"voters": voters, "messages": [{"message": _lists(m), "count": c} for m, c in s.messages],
           "acked": [_ACKED[a] for a in s.acked], "elections": s.elections, "restarts": s.restarts}
    if s.flushed:
        out.update(disk_losses=s.disk_losses, voter_changes=s.voter_changes, bootstrap_voters=s.boot)
    return out


def _role(name: Any) -> int:
    """A role by its name; ValueError naming the roles for any other."""
    if name not in _ROLE_IDS:
        raise ValueError(f"unknown role {name!r} (roles: {', '.join(_ROLE_IDS)})")
    return _ROLE_IDS[name]


def _lists(value):
    return [_lists(v) for v in value] if isinstance(value, tuple) else value


def from_json(data: Any, voters: int, values: int) -> KRaftState:
    """Rebuild a state from `to_json`'s output; ValueError when it is not one of `voters`
    voters and `values` values."""
    try:
        vs = data["voters"]
        if len(vs) != voters:
            raise ValueError(f"the state has {len(vs)} voters, the bounds say {voters}")

        def voter(value: Any) -> int:
            if value is None:
                return NIL
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= voters:
                raise ValueError(f"{value!r} is not a voter")
            return value

        acked = tuple({name: code for code, name in _ACKED.items()}[a] for a in data["acked"])
        if len(acked) != values:
            raise ValueError(f"the state has {len(acked)} values, the bounds say {values}")
        return KRaftState(
            tuple(_ints(v["epoch"], "epoch") for v in vs), tuple(_role(v["role"]) for v in vs),
            tuple(voter(v["voted_for"]) for v in vs), tuple(voter(v["leader"]) for v in vs),
            tuple(_ints(v["pending_fetch"] or [], "pending fetch") for v in vs),
            tuple(_log(v["log"]) for v in vs), tuple(_ints(v["hw"], "hw") for v in vs),
            tuple(sum(1 << (voter(k) - 1) for k in v["votes"]) for v in vs),
            tuple(_ints(v["end_offset"], "end offsets") for v in vs),
            tuple(sorted((_message(m["message"]), _ints(m["count"], "count")) for m in data["messages"])),
            acked, _ints(data["elections"], "elections"), _ints(data["restarts"], "restarts"),
            *_faithful(data, vs, voter))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed kraft state: {exc!r}") from None


def _faithful(data: dict, vs: list, voter) -> tuple:
    """The fields only a faithful variant's state has (flushed, start offset, heard, directory,
    disk losses, a leader's pending voter change, voter changes, the bootstrap set), or none for
    the specification's (`tla`) state."""
    if "disk_losses" not in data:
        return ()
    return (tuple(_ints(v["flushed"], "flushed") for v in vs), tuple(_ints(v["start_offset"], "start offset") for v in vs),
            tuple(sum(1 << (voter(k) - 1) for k in v["heard"]) for v in vs),
            tuple(_ints(v["directory"], "directory") for v in vs), _ints(data["disk_losses"], "disk losses"),
            tuple(_voter_op(v["voter_change"]) for v in vs), _ints(data["voter_changes"], "voter changes"),
            _ints(data["bootstrap_voters"], "bootstrap voters"))
