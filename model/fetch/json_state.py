"""`fetch` states as readable JSON for trace files, and back (with validation)."""

from __future__ import annotations

from typing import Any

from .state import (NO_FETCH, NONE, SEND_STATUSES, STOPS, Broker, Controller, FetchRequest, FetchResponse,
                    FetchState, LeaderAndIsr, Pending, ProduceRequest, ProducerRecord, Record, members, replica_set)


def _optional(value: int) -> int | None:
    """A replica id, epoch or offset that may be absent (NONE, NO_EPOCH: -1) as JSON: null."""
    return None if value < 0 else value


def _message(msg) -> dict | None:
    if isinstance(msg, FetchRequest):
        return {"type": "fetch", "leader": msg.leader, "offset": msg.offset, "epoch": msg.epoch}
    if isinstance(msg, FetchResponse):
        return {"type": "response", "leader": msg.leader, "offset": msg.offset,
                "records": [list(x) for x in msg.records], "hw": msg.hw, "fenced": msg.fenced,
                "diverging": _optional(msg.diverging)}
    return None


def state_to_json(state: FetchState) -> dict[str, Any]:
    """The state as JSON data: replica ids 0-based, `null` for no leader, sets as lists. The
    retrying producer's view is written only when there is one (`--retries`), and kip966's
    ELR, last known leader and brokers' last stops, the disk losses, the fencings and the
    preferred replica, only when they say something."""
    data = {
        "brokers": [{
            "alive": b.alive, "log": [list(x) for x in b.log], "flushed": b.flushed, "checkpoint": b.checkpoint,
            "cache": [list(e) for e in b.cache], "hw": b.hw, "epoch": b.epoch, "leader": _optional(b.leader),
            "isr": list(members(b.isr)), "remote": list(b.remote), "fetch": _message(b.fetch),
            "inbox": [{"epoch": q.epoch, "leader": _optional(q.leader), "isr": list(members(q.isr))} for q in b.inbox],
        } for b in state.brokers],
        "controller": {"epoch": state.controller.epoch, "leader": _optional(state.controller.leader),
                       "isr": list(members(state.controller.isr)), "offline": list(members(state.controller.offline))},
        "next_record_id": state.next_record_id,
        "crashes": state.crashes,
        "pending": [{"offset": p.offset, "record": list(p.record), "leader": p.leader, "epoch": p.epoch}
                    for p in state.pending],
        "acked": [[o, list(x)] for o, x in state.acked],
        "committed": [[o, list(x)] for o, x in state.committed],
        "consumer_hw": state.consumer_hw,
    }
    c = state.controller
    if c.elr or c.last_leader != NONE or any(b.last_stop for b in state.brokers):
        data["controller"].update(elr=list(members(c.elr)), last_leader=_optional(c.last_leader))
        for b, entry in zip(state.brokers, data["brokers"]):
            entry["last_stop"] = STOPS[b.last_stop]
    if c.preferred != NONE:
        data["controller"]["preferred"] = c.preferred
    if state.producer:
        data["producer"] = [{"status": SEND_STATUSES[p.status], "leader": _optional(p.leader),
                             "epoch": _optional(p.epoch), "offset": _optional(p.offset),
                             "record_epoch": _optional(p.record_epoch)} for p in state.producer]
        data["requests"] = [{"record": q.record, "leader": q.leader} for q in state.requests]
    if state.disk_losses:
        data["disk_losses"] = state.disk_losses
    if state.fencings:
        data["fencings"] = state.fencings
    return data


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


def _record(value: Any) -> Record:
    first, second = value
    return Record(_int(first), _int(second))


def _optional_int(value: Any) -> int:
    """A replica id, epoch or offset, or -1 (NONE, NO_EPOCH) for null: `_optional` inverted. (A
    diverging offset is absent from trace files written before majority quorums.)"""
    return -1 if value is None else _int(value)


def _producer_record(value: Any) -> ProducerRecord:
    """One record of the producer's view, absent fields null."""
    status = value["status"]
    if status not in SEND_STATUSES:
        raise ValueError(f"unknown producer status {status!r} (one of {', '.join(SEND_STATUSES)})")
    return ProducerRecord(SEND_STATUSES.index(status), _optional_int(value["leader"]), _optional_int(value["epoch"]),
                          _optional_int(value["offset"]), _optional_int(value["record_epoch"]))


def _stop(value: Any) -> int:
    """A broker's last stop by name ('running' when absent: trace files of other variants)."""
    if value not in STOPS:
        raise ValueError(f"unknown last stop {value!r} (one of {', '.join(STOPS)})")
    return STOPS.index(value)


def _fetch(value: Any):
    if value is None:
        return NO_FETCH
    if value["type"] == "fetch":
        return FetchRequest(_int(value["leader"]), _int(value["offset"]), _int(value["epoch"]))
    if value["type"] == "response":
        return FetchResponse(_int(value["leader"]), _int(value["offset"]), tuple(_record(x) for x in value["records"]),
                             _int(value["hw"]), bool(value["fenced"]), _optional_int(value.get("diverging")))
    raise ValueError(f"unknown message type {value['type']!r}")


def state_from_json(data: Any, replicas: int) -> FetchState:
    """Rebuild a state written by `state_to_json` for a partition of `replicas` replicas;
    ValueError naming what is wrong."""
    try:
        brokers = tuple(Broker(
            bool(b["alive"]), tuple(_record(x) for x in b["log"]), _int(b["flushed"]), _int(b["checkpoint"]),
            tuple((_int(e), _int(s)) for e, s in b["cache"]), _int(b["hw"]), _int(b["epoch"]),
            _optional_int(b["leader"]), replica_set(map(_int, b["isr"])), tuple(map(_int, b["remote"])),
            _fetch(b["fetch"]),
            tuple(LeaderAndIsr(_int(q["epoch"]), _optional_int(q["leader"]), replica_set(map(_int, q["isr"])))
                  for q in b["inbox"]),
            _stop(b.get("last_stop", "running")),
        ) for b in data["brokers"])
        if len(brokers) != replicas:
            raise ValueError(f"state has {len(brokers)} brokers, the bounds say {replicas}")
        c = data["controller"]
        controller = Controller(_int(c["epoch"]), _optional_int(c["leader"]), replica_set(map(_int, c["isr"])),
                                replica_set(map(_int, c["offline"])), replica_set(map(_int, c.get("elr", ()))),
                                _optional_int(c.get("last_leader")),
                                _optional_int(c.get("preferred")))  # absent where no replica is preferred
        pending = tuple(Pending(_int(p["offset"]), _record(p["record"]), _int(p["leader"]), _int(p["epoch"]))
                        for p in data["pending"])
        producer = tuple(_producer_record(p) for p in data.get("producer", ()))  # absent without --retries
        requests = tuple(ProduceRequest(_int(q["record"]), _int(q["leader"])) for q in data.get("requests", ()))
        return FetchState(brokers, controller, _int(data["next_record_id"]), _int(data["crashes"]), pending,
                          tuple((_int(o), _record(x)) for o, x in data["acked"]),
                          tuple((_int(o), _record(x)) for o, x in data["committed"]), _int(data["consumer_hw"]),
                          producer, requests, _int(data.get("disk_losses", 0)),  # absent without disk losses
                          _int(data.get("fencings", 0)))  # absent without fencings
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed fetch state ({type(exc).__name__}: {exc})") from None
