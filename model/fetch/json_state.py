"""`fetch` states as readable JSON for trace files, and back (with validation)."""

from __future__ import annotations

from typing import Any

from .state import (NO_FETCH, NONE, Broker, Controller, FetchRequest, FetchResponse, FetchState, LeaderAndIsr,
                    Pending, Record, members, replica_set)


def _replica(r: int) -> int | None:
    return None if r == NONE else r


def _message(msg) -> dict | None:
    if isinstance(msg, FetchRequest):
        return {"type": "fetch", "leader": msg.leader, "offset": msg.offset, "epoch": msg.epoch}
    if isinstance(msg, FetchResponse):
        return {"type": "response", "leader": msg.leader, "offset": msg.offset,
                "records": [list(x) for x in msg.records], "hw": msg.hw, "fenced": msg.fenced,
                "diverging": None if msg.diverging < 0 else msg.diverging}
    return None


def state_to_json(state: FetchState) -> dict[str, Any]:
    """The state as JSON data: replica ids 0-based, `null` for no leader, sets as lists."""
    return {
        "brokers": [{
            "alive": b.alive, "log": [list(x) for x in b.log], "flushed": b.flushed, "checkpoint": b.checkpoint,
            "cache": [list(e) for e in b.cache], "hw": b.hw, "epoch": b.epoch, "leader": _replica(b.leader),
            "isr": list(members(b.isr)), "remote": list(b.remote), "fetch": _message(b.fetch),
            "inbox": [{"epoch": q.epoch, "leader": _replica(q.leader), "isr": list(members(q.isr))} for q in b.inbox],
        } for b in state.brokers],
        "controller": {"epoch": state.controller.epoch, "leader": _replica(state.controller.leader),
                       "isr": list(members(state.controller.isr)), "offline": list(members(state.controller.offline))},
        "next_record_id": state.next_record_id,
        "crashes": state.crashes,
        "pending": [{"offset": p.offset, "record": list(p.record), "leader": p.leader, "epoch": p.epoch}
                    for p in state.pending],
        "acked": [[o, list(x)] for o, x in state.acked],
        "committed": [[o, list(x)] for o, x in state.committed],
        "consumer_hw": state.consumer_hw,
    }


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


def _record(value: Any) -> Record:
    first, second = value
    return Record(_int(first), _int(second))


def _optional_offset(value: Any) -> int:
    """An offset, or -1 for null (absent in trace files written before majority quorums)."""
    return -1 if value is None else _int(value)


def _leader(value: Any) -> int:
    return NONE if value is None else _int(value)


def _fetch(value: Any):
    if value is None:
        return NO_FETCH
    if value["type"] == "fetch":
        return FetchRequest(_int(value["leader"]), _int(value["offset"]), _int(value["epoch"]))
    if value["type"] == "response":
        return FetchResponse(_int(value["leader"]), _int(value["offset"]), tuple(_record(x) for x in value["records"]),
                             _int(value["hw"]), bool(value["fenced"]), _optional_offset(value.get("diverging")))
    raise ValueError(f"unknown message type {value['type']!r}")


def state_from_json(data: Any, replicas: int) -> FetchState:
    """Rebuild a state written by `state_to_json` for a partition of `replicas` replicas;
    ValueError naming what is wrong."""
    try:
        brokers = tuple(Broker(
            bool(b["alive"]), tuple(_record(x) for x in b["log"]), _int(b["flushed"]), _int(b["checkpoint"]),
            tuple((_int(e), _int(s)) for e, s in b["cache"]), _int(b["hw"]), _int(b["epoch"]), _leader(b["leader"]),
            replica_set(map(_int, b["isr"])), tuple(map(_int, b["remote"])), _fetch(b["fetch"]),
            tuple(LeaderAndIsr(_int(q["epoch"]), _leader(q["leader"]), replica_set(map(_int, q["isr"])))
                  for q in b["inbox"]),
        ) for b in data["brokers"])
        if len(brokers) != replicas:
            raise ValueError(f"state has {len(brokers)} brokers, the bounds say {replicas}")
        c = data["controller"]
        controller = Controller(_int(c["epoch"]), _leader(c["leader"]), replica_set(map(_int, c["isr"])),
                                replica_set(map(_int, c["offline"])))
        pending = tuple(Pending(_int(p["offset"]), _record(p["record"]), _int(p["leader"]), _int(p["epoch"]))
                        for p in data["pending"])
        return FetchState(brokers, controller, _int(data["next_record_id"]), _int(data["crashes"]), pending,
                          tuple((_int(o), _record(x)) for o, x in data["acked"]),
                          tuple((_int(o), _record(x)) for o, x in data["committed"]), _int(data["consumer_hw"]))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed fetch state ({type(exc).__name__}: {exc})") from None
