"""Readable `fetch` states to packed rows and back. The readable `FetchState` that traces,
tables, pictures and JSON show is always derived from a packed row by `decode`; the two are
an exact bijection (see `model.fetch.layout` for where each field lives)."""

from __future__ import annotations

import numpy as np

from .bounds import FetchConfig
from .rules import RULE_BOOK
from .layout import (ALIVE, CACHE_SIZE, CHECKPOINT, CLEAN_STOP, CLEAN_STOPS, CONSUMER_HW, CRASHES, C_EPOCH, C_ISR,
                     C_LEADER, C_OFFLINE, DIVERGING, ELR_SET, EPOCH, FETCH_COUNT, FETCH_EPOCH, FETCH_HW, FETCH_KIND,
                     FETCH_LEADER, FETCH_OFFSET, FLUSHED, FetchLayout, HEADER, HW, IDLE, ISR, LAST_LEADER, LEADER, LEO,
                     LOG, NEXT_RECORD_ID, NOT_SENT, PENDING_COUNT, PENDING_SLOTS, REFUSED, REQUEST, REQUEST_SLOTS,
                     RESPONSE, RUNNING, SEND_SLOTS, UNCLEAN_STOP, UNCLEAN_STOPS, fetch_layout, has_elr, has_preferred)
from .state import (APPENDED, FAILED, NO_FETCH, UNSENT, Broker, Controller, FetchRequest, FetchResponse, FetchState,
                    NONE, LeaderAndIsr, Pending, ProduceRequest, ProducerRecord, Record)


def _records(row: np.ndarray, at: int, records) -> None:
    for k, record in enumerate(records):
        row[at + 2 * k:at + 2 * k + 2] = record


def _fetch(row: np.ndarray, at: int, lay: FetchLayout, msg) -> None:
    if isinstance(msg, FetchRequest):
        row[[at + FETCH_KIND, at + FETCH_LEADER, at + FETCH_OFFSET, at + FETCH_EPOCH]] = (REQUEST, *msg)
    elif isinstance(msg, FetchResponse):
        kind = REFUSED if msg.fenced else DIVERGING if msg.diverging >= 0 else RESPONSE
        if kind != RESPONSE and (msg.records or msg.hw):
            raise ValueError("a refused or diverging FETCH answer carries no records and no HW")
        if msg.fenced and msg.diverging >= 0:
            raise ValueError("a FETCH answer is either refused or diverging")
        row[[at + FETCH_KIND, at + FETCH_LEADER, at + FETCH_OFFSET, at + FETCH_HW, at + FETCH_COUNT]] = (
            kind, msg.leader, msg.offset, msg.diverging if kind == DIVERGING else msg.hw, len(msg.records))
        _records(row, at + lay.fetched_at, msg.records)


def _ghost_set(row: np.ndarray, base: int, entries, what: str) -> None:
    for offset, record in entries:
        at = base + 2 * record.id
        if row[at]:
            raise ValueError(f"record {record.id} is {what} twice")
        row[at:at + 2] = (offset + 1, record.epoch)


def _producer(row: np.ndarray, state: FetchState, lay: FetchLayout) -> None:
    """Write the retrying producer's view and its requests in flight, after checking that they
    fit the layout and that an unused slot stays 0 (so the row is unique)."""
    if not lay.retries:
        if state.producer or state.requests:
            raise ValueError("a state with a retrying producer needs a model built with --retries")
        return
    if len(state.producer) != lay.max_records:
        raise ValueError(f"the producer's view has {len(state.producer)} records, the bounds say {lay.max_records}")
    for rid, p in enumerate(state.producer):
        if not UNSENT <= p.status <= FAILED:
            raise ValueError(f"record {rid} has no producer status {p.status}")
        if (p.status == APPENDED) != (p.leader >= 0) or (p.status != APPENDED and p != ProducerRecord(p.status)):
            raise ValueError(f"record {rid}: a leader, epoch and offset belong to an appended record only")
        row[lay.producer_base + SEND_SLOTS * rid:lay.producer_base + SEND_SLOTS * (rid + 1)] = (
            (p.status, p.leader, p.epoch, p.offset, p.record_epoch) if p.status == APPENDED else (p.status, 0, 0, 0, 0))
    if len({q.record for q in state.requests}) != len(state.requests):
        raise ValueError("a record has two produce requests in flight")
    if not all(0 <= q.record < lay.max_records and 0 <= q.leader < lay.replicas for q in state.requests):
        raise ValueError("a produce request names a record or a broker outside the bounds")
    for i, q in enumerate(state.requests):
        row[lay.requests_at + REQUEST_SLOTS * i:lay.requests_at + REQUEST_SLOTS * (i + 1)] = (q.record + 1, q.leader)


def _elr(row: np.ndarray, state: FetchState, lay: FetchLayout) -> None:
    """Write kip966's ELR block: the controller's ELR and last known leader, and each broker's
    last stop not yet registered (a state of another variant has none of them)."""
    c = state.controller
    stops = [b.last_stop for b in state.brokers]
    if not has_elr(lay):
        if c.elr or c.last_leader != NONE or any(stops):
            raise ValueError("a state with eligible leader replicas needs a kip966 model")
        return
    if not all(RUNNING <= how <= UNCLEAN_STOP for how in stops):
        raise ValueError(f"unknown last stop among {stops}")
    clean = sum(1 << r for r, how in enumerate(stops) if how == CLEAN_STOP)
    unclean = sum(1 << r for r, how in enumerate(stops) if how == UNCLEAN_STOP)
    row[[lay.elr_at + ELR_SET, lay.elr_at + LAST_LEADER, lay.elr_at + CLEAN_STOPS, lay.elr_at + UNCLEAN_STOPS]] = (
        c.elr, c.last_leader + 1, clean, unclean)


def _preferred(row: np.ndarray, state: FetchState, lay: FetchLayout) -> None:
    """Write the partition's preferred replica (rule preferred-replica=rebalanced), which a
    state of another rule set has none of."""
    p = state.controller.preferred
    if not has_preferred(lay):
        if p != NONE:
            raise ValueError("a state with a preferred replica needs rule preferred-replica=rebalanced")
        return
    if not 0 <= p < lay.replicas:
        raise ValueError(f"the preferred replica must be one of the {lay.replicas} replicas, got {p}")
    row[lay.preferred_at] = p


def encode(state: FetchState, lay: FetchLayout) -> np.ndarray:
    """The state as a packed row (see `model.fetch.layout`)."""
    row = np.zeros(lay.width, np.int8)
    c = state.controller
    row[[NEXT_RECORD_ID, CRASHES, C_EPOCH, C_LEADER, C_ISR, C_OFFLINE]] = (
        state.next_record_id, state.crashes, c.epoch, c.leader, c.isr, c.offline)
    if lay.ghost:
        row[[CONSUMER_HW, PENDING_COUNT]] = (state.consumer_hw, len(state.pending))
        for i, p in enumerate(state.pending):
            row[HEADER + PENDING_SLOTS * i:HEADER + PENDING_SLOTS * (i + 1)] = (p.offset, *p.record, p.leader, p.epoch)
        _ghost_set(row, lay.acked_base, state.acked, "acknowledged")
        _ghost_set(row, lay.committed_base, state.committed, "committed")
    elif state.pending or state.acked or state.committed or state.consumer_hw:
        raise ValueError("a state with ghost variables needs a model built with ghost on")
    _producer(row, state, lay)
    _elr(row, state, lay)
    if lay.max_disk_losses:
        row[lay.disks_at] = state.disk_losses
    elif state.disk_losses:
        raise ValueError("a state with disk losses needs a model built with --max-disk-losses")
    if lay.max_fencings:
        row[lay.fencings_at] = state.fencings
    elif state.fencings:
        raise ValueError("a state with fenced brokers needs a model built with --max-fencings")
    _preferred(row, state, lay)
    for r, b in enumerate(state.brokers):
        at = lay.replica_base + r * lay.replica_stride
        row[[at + ALIVE, at + LEO, at + FLUSHED, at + CHECKPOINT, at + HW, at + EPOCH, at + LEADER, at + ISR,
             at + CACHE_SIZE]] = (b.alive, b.leo, b.flushed, b.checkpoint, b.hw, b.epoch, b.leader, b.isr, len(b.cache))
        _records(row, at + LOG, b.log)
        _fetch(row, at, lay, b.fetch)
        _records(row, at + lay.cache_at, b.cache)
        row[at + lay.remote_at:at + lay.remote_at + lay.replicas] = b.remote
        for q in b.inbox:
            slot = at + lay.inbox_at + 2 * q.epoch
            if row[slot] != NOT_SENT:
                raise ValueError(f"two LeaderAndIsr requests of epoch {q.epoch} in one inbox")
            row[slot:slot + 2] = (q.leader + 2, q.isr)
    return row


def _pairs(v: list, at: int, count: int) -> tuple:
    return tuple((v[at + 2 * k], v[at + 2 * k + 1]) for k in range(count))


def _message(v: list, at: int, lay: FetchLayout):
    kind = v[at + FETCH_KIND]
    if kind == IDLE:
        return NO_FETCH
    if kind == REQUEST:
        return FetchRequest(v[at + FETCH_LEADER], v[at + FETCH_OFFSET], v[at + FETCH_EPOCH])
    records = tuple(Record(*pair) for pair in _pairs(v, at + lay.fetched_at, v[at + FETCH_COUNT]))
    if kind == DIVERGING:
        return FetchResponse(v[at + FETCH_LEADER], v[at + FETCH_OFFSET], records, 0, False, v[at + FETCH_HW])
    return FetchResponse(v[at + FETCH_LEADER], v[at + FETCH_OFFSET], records, v[at + FETCH_HW], kind == REFUSED)


def _ghost_entries(v: list, base: int, lay: FetchLayout) -> tuple:
    return tuple(sorted((v[base + 2 * rid] - 1, Record(rid, v[base + 2 * rid + 1]))
                        for rid in range(lay.max_records) if v[base + 2 * rid]))


def _producer_view(v: list, lay: FetchLayout) -> tuple[tuple, tuple]:
    """The producer's view of every record, and its requests in flight (both empty without
    retries)."""
    if not lay.retries:
        return (), ()
    sends = (v[lay.producer_base + SEND_SLOTS * rid:lay.producer_base + SEND_SLOTS * (rid + 1)]
             for rid in range(lay.max_records))
    producer = tuple(ProducerRecord(*slots) if slots[0] == APPENDED else ProducerRecord(slots[0]) for slots in sends)
    entries = (v[lay.requests_at + REQUEST_SLOTS * i:lay.requests_at + REQUEST_SLOTS * (i + 1)]
               for i in range(lay.max_records))
    return producer, tuple(ProduceRequest(rid - 1, leader) for rid, leader in entries if rid)


def decode(row, lay: FetchLayout) -> FetchState:
    """The readable state a packed row stands for."""
    v = row.tolist() if hasattr(row, "tolist") else list(row)
    kip966 = has_elr(lay)
    clean, unclean = (v[lay.elr_at + CLEAN_STOPS], v[lay.elr_at + UNCLEAN_STOPS]) if kip966 else (0, 0)
    brokers = []
    for r in range(lay.replicas):
        at = lay.replica_base + r * lay.replica_stride
        log = tuple(Record(*pair) for pair in _pairs(v, at + LOG, v[at + LEO]))
        inbox = tuple(LeaderAndIsr(e, v[at + lay.inbox_at + 2 * e] - 2, v[at + lay.inbox_at + 2 * e + 1])
                      for e in range(lay.max_epoch + 1) if v[at + lay.inbox_at + 2 * e] != NOT_SENT)
        remote = tuple(v[at + lay.remote_at:at + lay.remote_at + lay.replicas])
        brokers.append(Broker(v[at + ALIVE] == 1, log, v[at + FLUSHED], v[at + CHECKPOINT],
                              _pairs(v, at + lay.cache_at, v[at + CACHE_SIZE]), v[at + HW], v[at + EPOCH],
                              v[at + LEADER], v[at + ISR], remote, _message(v, at, lay), inbox,
                              CLEAN_STOP if clean >> r & 1 else UNCLEAN_STOP if unclean >> r & 1 else RUNNING))
    controller = Controller(v[C_EPOCH], v[C_LEADER], v[C_ISR], v[C_OFFLINE],
                            *((v[lay.elr_at + ELR_SET], v[lay.elr_at + LAST_LEADER] - 1) if kip966 else (0, NONE)),
                            v[lay.preferred_at] if has_preferred(lay) else NONE)
    producer, requests = _producer_view(v, lay)
    disks = v[lay.disks_at] if lay.max_disk_losses else 0
    fenced = v[lay.fencings_at] if lay.max_fencings else 0
    if not lay.ghost:
        return FetchState(tuple(brokers), controller, v[NEXT_RECORD_ID], v[CRASHES], producer=producer,
                          requests=requests, disk_losses=disks, fencings=fenced)
    pending = tuple(Pending(v[at], Record(v[at + 1], v[at + 2]), v[at + 3], v[at + 4])
                    for at in (HEADER + PENDING_SLOTS * i for i in range(v[PENDING_COUNT])))
    return FetchState(tuple(brokers), controller, v[NEXT_RECORD_ID], v[CRASHES], pending,
                      _ghost_entries(v, lay.acked_base, lay), _ghost_entries(v, lay.committed_base, lay),
                      v[CONSUMER_HW], producer, requests, disks, fenced)


def fitting_layout(*states: FetchState) -> FetchLayout:
    """A ghost-keeping layout large enough to hold every one of `states`, for evaluating
    predicates on readable states whose bounds are not at hand (with the ELR block of rule elr=on when
    any state has something in it, and the preferred replica's slot when any state names one)."""
    ids, epochs, lengths, caches = [0], [1], [1], [0]
    for state in states:
        c = state.controller
        ids += [state.next_record_id, len(state.producer)] + [x.id + 1 for _, x in state.acked + state.committed] + \
            [p.record.id + 1 for p in state.pending]
        epochs += [c.epoch] + [p.epoch for p in state.pending] + [x.epoch for _, x in state.acked + state.committed]
        epochs += [e for p in state.producer for e in (p.epoch, p.record_epoch)]
        for b in state.brokers:
            records = b.log + (b.fetch.records if isinstance(b.fetch, FetchResponse) else ())
            ids += [x.id + 1 for x in records]
            epochs += [b.epoch] + [x.epoch for x in records] + [e for e, _ in b.cache] + [q.epoch for q in b.inbox]
            lengths += [len(b.log), len(records) - len(b.log)]
            caches.append(len(b.cache))
    config = FetchConfig(len(states[0].brokers), max(lengths), max(ids), max(max(epochs), max(caches) - 1),
                         max(s.crashes for s in states), "all", 1, False, "sync",
                         retries=any(s.producer for s in states), max_disk_losses=max(s.disk_losses for s in states),
                         max_fencings=max(s.fencings for s in states))
    elr = any(s.controller.elr or s.controller.last_leader != NONE or any(b.last_stop for b in s.brokers)
              for s in states)
    preferred = any(s.controller.preferred != NONE for s in states)
    rules = {**RULE_BOOK.presets["kip966" if elr else "hw"], "preferred-replica": "rebalanced" if preferred else "left-out"}
    return fetch_layout(config, rules, ghost=True)
