"""The `fetch` model's packed state: one row of int8 slots, read and written through the named
accessors below and those both Kafka models share (`model.kafka_accessors`, re-exported here:
a broker's HW, epoch, leader, ISR, LEO and log), the only code that knows offsets.

    header      next_record_id, crashes, controller (epoch, leader, ISR, offline), and the
                ghost consumer HW and number of pending acks=all writes
    ghost       (only with ghost on; no slots otherwise) pending writes in append order, each
                (offset, record id, record epoch, leader, epoch); then, per record id, whether
                it was acknowledged and whether it was committed, each as (offset + 1, record
                epoch), 0 meaning "no"
    producer    (only with --retries; no slots otherwise) per record id its status, and while
                it is APPENDED the answering leader, its epoch, the offset and the record's
                epoch; then the produce requests in flight in send order, each (record id + 1,
                leader), 0 meaning "none"
    elr         (only under kip966; no slots otherwise) the controller's eligible leader
                replicas (a replica set), its last known leader + 1 (0: none), and the brokers
                whose last stop was clean, and those whose last stop was unclean, that the
                controller has not yet seen register again (two replica sets)
    disks       (only with --max-disk-losses above 0; no slot otherwise) how many brokers have
                restarted on an empty disk
    fencings    (only with --max-fencings above 0; no slot otherwise) how many times the
                controller has fenced a live broker
    preferred   (only under rule preferred-replica=rebalanced; no slot otherwise) the partition's
                preferred replica, the first in its assignment (renamed with the replicas, so
                symmetry reduction stays sound)
    broker      alive, LEO, flushed, HW checkpoint, HW, epoch, leader, ISR; the in-flight fetch
                (kind, leader, offset, epoch, HW or the agreeing end of a diverging log,
                record count); the epoch cache's size; then
                the log ((id, epoch) per offset), the fetched records, the epoch cache
                ((epoch, start offset) per entry), the remote LEO of every replica, and the
                inbox: per leader epoch one (leader + 2, ISR) pair, 0 meaning "no request"

Replica ids are 0..N-1 and NONE is -1; replica sets are bitmasks. Every slot past a log's LEO,
past the cache's size, past the fetched records, of an absent message, request or ghost
entry, is 0, so each state has exactly one row. Bounds, configuration and variant travel at
run time in `FetchLayout`, so one compiled kernel serves every one of them.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from checker.kernel.bits import popcount
from checker.kernel.jit import kernel

from ..kafka_accessors import (NEXT_RECORD_ID, append, block_at, count_write, epoch, hw, isr, leader,  # noqa: F401
                               leo, member, next_record_id, record_epoch, record_id, same_record, set_hw, set_isr,
                               set_view, truncate)
from .bounds import FetchConfig
from .rules import RULES
from .state import APPENDED, NONE

CRASHES, C_EPOCH, C_LEADER, C_ISR, C_OFFLINE, CONSUMER_HW, PENDING_COUNT, HEADER = range(1, 9)  # after NEXT_RECORD_ID
PENDING_OFFSET, PENDING_RECORD_ID, PENDING_RECORD_EPOCH, PENDING_LEADER, PENDING_EPOCH, PENDING_SLOTS = range(6)
"""The slots of one pending write, and how many there are."""
SEND_STATUS, SEND_LEADER, SEND_EPOCH, SEND_OFFSET, SEND_RECORD_EPOCH, SEND_SLOTS = range(6)
"""The slots of the producer's view of one record, and how many there are."""
REQUEST_RECORD, REQUEST_LEADER, REQUEST_SLOTS = range(3)
"""The slots of one produce request in flight, and how many there are."""
ALIVE, LEO, FLUSHED, CHECKPOINT, HW, EPOCH, LEADER, ISR = range(8)
FETCH_KIND, FETCH_LEADER, FETCH_OFFSET, FETCH_EPOCH, FETCH_HW, FETCH_COUNT, CACHE_SIZE, LOG = range(8, 16)
IDLE, REQUEST, RESPONSE, REFUSED, DIVERGING = range(5)
"""The kinds of a follower's fetch slot: nothing in flight, its FETCH, the leader's answer
with records and HW, the leader's refusal, or (majority quorum) the leader's answer that the
follower's log diverges from its own, with the offset up to which the two agree (carried in
the slot where a response carries the HW)."""
NOT_SENT = 0
"""An inbox leader slot's value for an epoch with no request waiting."""

ACKS = ("0", "1", "all")
ACKS_0, ACKS_1, ACKS_ALL = range(3)
ELR_SET, LAST_LEADER, CLEAN_STOPS, UNCLEAN_STOPS, ELR_SLOTS = range(5)
"""The slots of the ELR block (rule elr=on only), and how many there are."""
RUNNING, CLEAN_STOP, UNCLEAN_STOP = range(3)
"""How a broker last stopped, as far as the controller has yet to learn: it has registered
since (or never stopped), it shut down cleanly, or it crashed (no clean-shutdown marker)."""
QUORUMS = ("isr", "majority", "majority-naive")
ISR_QUORUM, MAJORITY, MAJORITY_NAIVE = range(3)


class FetchLayout(NamedTuple):
    """Bounds, configuration (acks as an index into `ACKS`, flags as 0/1, the quorum as an index
    into `QUORUMS`), the choice of each protocol rule (an index into the rule's choices in
    `model.fetch.rules`: `truncation` to `elr`), whether ghost variables are kept, and where
    things are (block offsets, and inside a broker block the start of each array)."""

    replicas: int
    log_size: int
    max_records: int
    max_epoch: int
    max_crashes: int
    max_disk_losses: int
    controlled_shutdown: int
    max_fencings: int
    acks: int
    min_insync: int
    unclean: int
    flush_async: int
    quorum: int
    retries: int
    max_in_flight: int
    idempotence: int
    truncation: int
    epoch_cache: int
    fetch_fencing: int
    bounce: int
    preferred_replica: int
    isr_expansion: int
    broker_epochs: int
    leader_epoch_bump: int
    hw_advance: int
    elr: int
    ghost: int
    width: int
    acked_base: int
    committed_base: int
    producer_base: int
    requests_at: int
    elr_at: int
    disks_at: int
    fencings_at: int
    preferred_at: int
    replica_base: int
    replica_stride: int
    fetched_at: int
    cache_at: int
    remote_at: int
    inbox_at: int

    VIEW_AT, LEO_AT, LOG_AT = HW, LEO, LOG
    """Where a broker's view, LEO and log start in its block (see `model.kafka_accessors`)."""


assert FetchLayout._fields[FetchLayout._fields.index("truncation"):][:len(RULES)] == tuple(rule.key for rule in RULES)


def fetch_layout(config: FetchConfig, rules: Mapping[str, str], ghost: bool) -> FetchLayout:
    """The layout for this configuration, rule choices (rule -> choice, every rule of
    `model.fetch.rules`) and ghost choice; rows are padded to a multiple of 8 bytes."""
    records = config.max_records if ghost else 0
    sends = config.max_records if config.retries else 0
    epochs = config.max_epoch + 1
    acked_base = HEADER + PENDING_SLOTS * records
    committed_base = acked_base + 2 * records
    producer_base = committed_base + 2 * records
    requests_at = producer_base + SEND_SLOTS * sends
    elr_at = requests_at + REQUEST_SLOTS * sends
    disks_at = elr_at + (ELR_SLOTS if rules["elr"] == "on" else 0)
    fencings_at = disks_at + (1 if config.max_disk_losses else 0)
    preferred_at = fencings_at + (1 if config.max_fencings else 0)
    replica_base = preferred_at + (1 if rules["preferred-replica"] == "rebalanced" else 0)
    fetched_at = LOG + 2 * config.log_size
    cache_at = fetched_at + 2 * config.log_size
    remote_at = cache_at + 2 * epochs
    inbox_at = remote_at + config.replicas
    stride = inbox_at + 2 * epochs
    width = -(-(replica_base + config.replicas * stride) // 8) * 8
    return FetchLayout(config.replicas, config.log_size, config.max_records, config.max_epoch, config.max_crashes,
                       config.max_disk_losses, int(config.controlled_shutdown), config.max_fencings,
                       ACKS.index(config.acks), config.min_insync_replicas,
                       int(config.unclean_leader_election), int(config.flush == "async"), QUORUMS.index(config.quorum),
                       int(config.retries), config.max_in_flight, int(config.idempotence),
                       *(rule.index(rules[rule.name]) for rule in RULES),
                       int(ghost), width, acked_base, committed_base, producer_base, requests_at, elr_at, disks_at,
                       fencings_at, preferred_at, replica_base, stride, fetched_at, cache_at, remote_at, inbox_at)


# ----- replica sets (and `member`, shared) --------------------------------------------------------


@kernel
def size(replicas):
    """How many replicas the replica set (bitmask) holds."""
    return popcount(replicas)


# ----- crashes (producer writes: shared) ----------------------------------------------------------


@kernel
def crashes(s, lay):
    """How many broker crashes this behaviour has had."""
    return s[CRASHES]


@kernel
def count_crash(t, lay):
    """One more broker crash has happened."""
    t[CRASHES] += 1


@kernel
def disk_losses(s, lay):
    """How many brokers have restarted on an empty disk in this behaviour (0 when the bounds
    allow none, and the row has no slot for it)."""
    return s[lay.disks_at] if lay.max_disk_losses else 0


@kernel
def count_disk_loss(t, lay):
    """One more broker has restarted on an empty disk (only when the bounds allow it)."""
    t[lay.disks_at] += 1


@kernel
def fencings(s, lay):
    """How many times the controller has fenced a live broker in this behaviour (0 when the
    bounds allow none, and the row has no slot for it)."""
    return s[lay.fencings_at] if lay.max_fencings else 0


@kernel
def count_fencing(t, lay):
    """The controller has fenced a live broker once more (only when the bounds allow it)."""
    t[lay.fencings_at] += 1


@kernel
def has_preferred(lay):
    """The row has the preferred replica's slot: rule preferred-replica=rebalanced."""
    return lay.preferred_at != lay.replica_base


@kernel
def preferred(s, lay):
    """The partition's preferred replica, the first in its assignment (NONE when the rule set
    models none)."""
    return s[lay.preferred_at] if has_preferred(lay) else NONE


# ----- the controller's record --------------------------------------------------------------------


@kernel
def controller_epoch(s, lay):
    """The leader epoch in the controller's record."""
    return s[C_EPOCH]


@kernel
def controller_leader(s, lay):
    """The leader in the controller's record (NONE: the partition is offline)."""
    return s[C_LEADER]


@kernel
def controller_isr(s, lay):
    """The ISR in the controller's record."""
    return s[C_ISR]


@kernel
def controller_offline(s, lay):
    """The brokers the controller has noticed are dead."""
    return s[C_OFFLINE]


@kernel
def set_controller(t, lay, epoch, leader, isr, offline):
    """The controller's record becomes (epoch, leader, ISR, offline brokers)."""
    t[C_EPOCH] = epoch
    t[C_LEADER] = leader
    t[C_ISR] = isr
    t[C_OFFLINE] = offline


@kernel
def set_controller_isr(t, lay, isr):
    """The controller's record gets a new ISR (same epoch and leader)."""
    t[C_ISR] = isr


@kernel
def set_controller_offline(t, lay, offline):
    """The controller's set of brokers noticed dead becomes `offline`."""
    t[C_OFFLINE] = offline


# ----- eligible leader replicas (KIP-966; kip966 only) --------------------------------------------


@kernel
def has_elr(lay):
    """The row has the ELR block: the variant is kip966."""
    return lay.disks_at != lay.elr_at


@kernel
def elr(s, lay):
    """The controller's eligible leader replicas: replicas out of the ISR that hold every
    committed record, since they left it while the ISR was below min.insync.replicas."""
    return s[lay.elr_at + ELR_SET]


@kernel
def set_elr(t, lay, replicas):
    """The controller's ELR becomes `replicas`."""
    t[lay.elr_at + ELR_SET] = replicas


@kernel
def last_known_leader(s, lay):
    """The leader the partition had when its ISR last became empty (NONE: none kept)."""
    return s[lay.elr_at + LAST_LEADER] - 1


@kernel
def set_last_known_leader(t, lay, r):
    """The controller keeps r as the last known leader (NONE: forgets it)."""
    t[lay.elr_at + LAST_LEADER] = r + 1


@kernel
def last_stop(s, lay, r):
    """How broker r last stopped, until the controller sees it register again: RUNNING,
    CLEAN_STOP or UNCLEAN_STOP (always RUNNING outside kip966, which has no such record)."""
    if not has_elr(lay):
        return RUNNING
    if member(s[lay.elr_at + CLEAN_STOPS], r):
        return CLEAN_STOP
    return UNCLEAN_STOP if member(s[lay.elr_at + UNCLEAN_STOPS], r) else RUNNING


@kernel
def set_last_stop(t, lay, r, how):
    """Broker r's last stop becomes `how` (RUNNING: the controller saw it register)."""
    bit = 1 << r
    t[lay.elr_at + CLEAN_STOPS] = (t[lay.elr_at + CLEAN_STOPS] & ~bit) | (bit if how == CLEAN_STOP else 0)
    t[lay.elr_at + UNCLEAN_STOPS] = (t[lay.elr_at + UNCLEAN_STOPS] & ~bit) | (bit if how == UNCLEAN_STOP else 0)


# ----- one broker: disk and memory ----------------------------------------------------------------


@kernel
def alive(s, lay, r):
    """Broker r is up."""
    return s[block_at(lay, r) + ALIVE] == 1


@kernel
def set_alive(t, lay, r, up):
    """Broker r goes up (True) or down (False)."""
    t[block_at(lay, r) + ALIVE] = 1 if up else 0


@kernel
def flushed(s, lay, r):
    """How many of broker r's records are on disk (the rest are in the page cache)."""
    return s[block_at(lay, r) + FLUSHED]


@kernel
def set_flushed(t, lay, r, value):
    """The first `value` records of broker r's log are on disk."""
    t[block_at(lay, r) + FLUSHED] = value


@kernel
def checkpoint(s, lay, r):
    """The HW broker r last wrote to its checkpoint file."""
    return s[block_at(lay, r) + CHECKPOINT]


@kernel
def set_checkpoint(t, lay, r, value):
    """Broker r's HW checkpoint file holds `value`."""
    t[block_at(lay, r) + CHECKPOINT] = value


# ----- a broker's log (the rest is shared) --------------------------------------------------------


@kernel
def has_record(s, lay, r, offset, rid, repoch):
    """Broker r's log holds record (rid, repoch) at `offset`."""
    return offset < leo(s, lay, r) and record_id(s, lay, r, offset) == rid and record_epoch(s, lay, r, offset) == repoch


# ----- a broker's leader-epoch cache --------------------------------------------------------------


@kernel
def cache_size(s, lay, r):
    """How many (epoch, start offset) entries broker r's leader-epoch cache holds."""
    return s[block_at(lay, r) + CACHE_SIZE]


@kernel
def cache_epoch(s, lay, r, i):
    """The leader epoch of entry i of broker r's epoch cache."""
    return s[block_at(lay, r) + lay.cache_at + 2 * i]


@kernel
def cache_start(s, lay, r, i):
    """The first offset of entry i's epoch in broker r's log."""
    return s[block_at(lay, r) + lay.cache_at + 2 * i + 1]


@kernel
def cache_push(t, lay, r, e, start):
    """Broker r's epoch cache gets entry (e, start) at its end. Epochs in a cache only grow,
    so it never holds more than max_epoch + 1 entries."""
    at = block_at(lay, r)
    i = t[at + CACHE_SIZE]
    if i > lay.max_epoch:
        raise ValueError("leader-epoch cache overflow: more entries than epochs")
    t[at + lay.cache_at + 2 * i] = e
    t[at + lay.cache_at + 2 * i + 1] = start
    t[at + CACHE_SIZE] = i + 1


@kernel
def cache_trim(t, lay, r, k):
    """Broker r's epoch cache drops the entries that start at offset k or later (its log was
    cut to k records)."""
    at = block_at(lay, r)
    keep = 0
    while keep < t[at + CACHE_SIZE] and t[at + lay.cache_at + 2 * keep + 1] < k:
        keep += 1
    for i in range(2 * keep, 2 * t[at + CACHE_SIZE]):
        t[at + lay.cache_at + i] = 0
    t[at + CACHE_SIZE] = keep


# ----- remote LEOs (leader side) ------------------------------------------------------------------


@kernel
def remote_leo(s, lay, r, f):
    """The LEO leader r knows of replica f: the offset of f's latest FETCH (-1 unknown), whether
    or not f has registered a new incarnation since (see `mark_remote_stale`)."""
    raw = s[block_at(lay, r) + lay.remote_at + f]
    return raw if raw >= -1 else STALE - raw


@kernel
def remote_fresh(s, lay, r, f):
    """Leader r's remote LEO of replica f may count for an ISR expansion: it came from a FETCH f
    made outside r's ISR, of f's current registration (KIP-903: the leader keeps the broker epoch
    of each follower's FETCH)."""
    return s[block_at(lay, r) + lay.remote_at + f] >= 0


STALE = -3
"""A remote LEO that counts for no expansion is stored as STALE - LEO (-3 and below). Not -2: a
readable state holds the raw value, and Python hashes -1 and -2 alike, so an unknown LEO (-1)
and a stale 0 would give two states one hash."""


@kernel
def mark_remote_stale_at(t, lay, r, f):
    """Leader r's remote LEO of replica f no longer counts for an ISR expansion until f's next
    FETCH: f left r's ISR since it reported it, or registered again with a new broker epoch. The
    value is kept (the HW still counts it); it is stored as STALE - LEO, so that the row needs no
    extra slot."""
    at = block_at(lay, r) + lay.remote_at + f
    if t[at] >= 0:
        t[at] = STALE - t[at]


@kernel
def mark_remote_stale(t, lay, f):
    """Replica f registered with the controller again, with a new broker epoch: every leader's
    remote LEO of f now comes from f's previous incarnation (a broker epoch that is no longer
    f's) and counts for no expansion (`mark_remote_stale_at`)."""
    for r in range(lay.replicas):
        mark_remote_stale_at(t, lay, r, f)


@kernel
def known_leo(s, lay, r, f):
    """The LEO leader r counts for replica f: its own LEO for itself, else f's remote LEO (an
    unknown one counts as 0)."""
    return leo(s, lay, r) if f == r else max(remote_leo(s, lay, r, f), 0)


@kernel
def set_remote_leo(t, lay, r, f, value):
    """Leader r records `value` as replica f's remote LEO."""
    t[block_at(lay, r) + lay.remote_at + f] = value


# ----- the one in-flight fetch of a follower ------------------------------------------------------


@kernel
def fetch_kind(s, lay, f):
    """What is in follower f's fetch slot: IDLE, REQUEST, RESPONSE, REFUSED or DIVERGING."""
    return s[block_at(lay, f) + FETCH_KIND]


@kernel
def fetch_leader(s, lay, f):
    """The leader f's in-flight FETCH went to (or its answer came from)."""
    return s[block_at(lay, f) + FETCH_LEADER]


@kernel
def fetch_offset(s, lay, f):
    """The fetch offset of f's in-flight FETCH (or of the one it answers)."""
    return s[block_at(lay, f) + FETCH_OFFSET]


@kernel
def fetch_epoch(s, lay, f):
    """The leader epoch f's in-flight FETCH carries."""
    return s[block_at(lay, f) + FETCH_EPOCH]


@kernel
def fetch_hw(s, lay, f):
    """The leader's HW attached to the response f has in flight."""
    return s[block_at(lay, f) + FETCH_HW]


@kernel
def diverging_end(s, lay, f):
    """The offset up to which f's log agrees with the leader's, carried by a DIVERGING answer."""
    return s[block_at(lay, f) + FETCH_HW]


@kernel
def fetched_count(s, lay, f):
    """How many records the response f has in flight carries."""
    return s[block_at(lay, f) + FETCH_COUNT]


@kernel
def fetched_id(s, lay, f, i):
    """The id of the i-th record of f's in-flight response."""
    return s[block_at(lay, f) + lay.fetched_at + 2 * i]


@kernel
def fetched_epoch(s, lay, f, i):
    """The leader epoch of the i-th record of f's in-flight response."""
    return s[block_at(lay, f) + lay.fetched_at + 2 * i + 1]


@kernel
def clear_fetch(t, lay, f):
    """Follower f has nothing in flight."""
    at = block_at(lay, f)
    for i in range(FETCH_KIND, FETCH_COUNT + 1):
        t[at + i] = 0
    for i in range(2 * lay.log_size):
        t[at + lay.fetched_at + i] = 0


@kernel
def send_fetch(t, lay, f, ldr, offset, e):
    """Follower f sends FETCH(offset, its leader epoch e) to `ldr`."""
    clear_fetch(t, lay, f)
    at = block_at(lay, f)
    t[at + FETCH_KIND] = REQUEST
    t[at + FETCH_LEADER] = ldr
    t[at + FETCH_OFFSET] = offset
    t[at + FETCH_EPOCH] = e


@kernel
def refuse_fetch(t, lay, f, ldr, offset):
    """`ldr` answers f's FETCH at `offset` with an error (not leader, or fenced)."""
    clear_fetch(t, lay, f)
    at = block_at(lay, f)
    t[at + FETCH_KIND] = REFUSED
    t[at + FETCH_LEADER] = ldr
    t[at + FETCH_OFFSET] = offset


@kernel
def diverge_fetch(t, lay, f, ldr, offset, end):
    """`ldr` answers f's FETCH at `offset`: f's log diverges from its own, and the two agree up
    to offset `end` (KRaft's DivergingEpoch answer)."""
    clear_fetch(t, lay, f)
    at = block_at(lay, f)
    t[at + FETCH_KIND] = DIVERGING
    t[at + FETCH_LEADER] = ldr
    t[at + FETCH_OFFSET] = offset
    t[at + FETCH_HW] = end


@kernel
def answer_fetch(t, lay, f, ldr, offset):
    """`ldr` answers f's FETCH at `offset` with the records of its log from that offset on and
    its current HW."""
    clear_fetch(t, lay, f)
    at = block_at(lay, f)
    t[at + FETCH_KIND] = RESPONSE
    t[at + FETCH_LEADER] = ldr
    t[at + FETCH_OFFSET] = offset
    t[at + FETCH_HW] = hw(t, lay, ldr)
    count = max(leo(t, lay, ldr) - offset, 0)
    t[at + FETCH_COUNT] = count
    for i in range(count):
        t[at + lay.fetched_at + 2 * i] = record_id(t, lay, ldr, offset + i)
        t[at + lay.fetched_at + 2 * i + 1] = record_epoch(t, lay, ldr, offset + i)


# ----- LeaderAndIsr requests waiting in a broker's inbox ------------------------------------------


@kernel
def has_request(s, lay, r, e):
    """Broker r has epoch e's LeaderAndIsr request waiting."""
    return s[block_at(lay, r) + lay.inbox_at + 2 * e] != NOT_SENT


@kernel
def request_leader(s, lay, r, e):
    """The leader named by the epoch-e request in broker r's inbox (NONE: offline)."""
    return s[block_at(lay, r) + lay.inbox_at + 2 * e] - 2


@kernel
def request_isr(s, lay, r, e):
    """The ISR sent with the epoch-e request in broker r's inbox."""
    return s[block_at(lay, r) + lay.inbox_at + 2 * e + 1]


@kernel
def deliver(t, lay, r, e, ldr, replicas):
    """LeaderAndIsr(epoch e, leader, ISR) is put in broker r's inbox."""
    at = block_at(lay, r) + lay.inbox_at + 2 * e
    t[at] = ldr + 2
    t[at + 1] = replicas


@kernel
def drop_requests_up_to(t, lay, r, e):
    """Broker r forgets the requests of epoch e and earlier (no longer worth handling); e = -1
    keeps them all, e = max_epoch empties the inbox."""
    at = block_at(lay, r) + lay.inbox_at
    for i in range(2 * (e + 1)):
        t[at + i] = 0


# ----- the retrying producer's view and its requests in flight (only with --retries) --------------


@kernel
def producer_records(lay):
    """How many records the producer's view tracks (0 without --retries)."""
    return lay.max_records if lay.retries else 0


@kernel
def _send(lay, rid):
    return lay.producer_base + SEND_SLOTS * rid


@kernel
def send_status(s, lay, rid):
    """Where record rid stands with the producer (UNSENT, SENT, APPENDED, ACKED or FAILED)."""
    return s[_send(lay, rid) + SEND_STATUS]


@kernel
def answer_leader(s, lay, rid):
    """The leader that appended APPENDED record rid (or found it a duplicate)."""
    return s[_send(lay, rid) + SEND_LEADER]


@kernel
def answer_epoch(s, lay, rid):
    """That leader's epoch when it handled the request."""
    return s[_send(lay, rid) + SEND_EPOCH]


@kernel
def answer_offset(s, lay, rid):
    """The offset of APPENDED record rid in that leader's log."""
    return s[_send(lay, rid) + SEND_OFFSET]


@kernel
def answer_record_epoch(s, lay, rid):
    """The epoch of APPENDED record rid in that leader's log."""
    return s[_send(lay, rid) + SEND_RECORD_EPOCH]


@kernel
def set_send_status(t, lay, rid, status):
    """Record rid becomes `status` (any status but APPENDED: its answer's slots are cleared)."""
    at = _send(lay, rid)
    t[at + SEND_STATUS] = status
    for i in range(SEND_LEADER, SEND_SLOTS):
        t[at + i] = 0


@kernel
def set_appended(t, lay, rid, ldr, e, offset, repoch):
    """Record rid is APPENDED: `ldr`, leading epoch e, holds it at `offset` with epoch `repoch`."""
    at = _send(lay, rid)
    t[at + SEND_STATUS] = APPENDED
    t[at + SEND_LEADER] = ldr
    t[at + SEND_EPOCH] = e
    t[at + SEND_OFFSET] = offset
    t[at + SEND_RECORD_EPOCH] = repoch


@kernel
def _request(lay, i):
    return lay.requests_at + REQUEST_SLOTS * i


@kernel
def produce_request_count(s, lay):
    """How many produce requests are in flight (each record at most once)."""
    count = 0
    while count < producer_records(lay) and s[_request(lay, count) + REQUEST_RECORD] != 0:
        count += 1
    return count


@kernel
def produce_request_record(s, lay, i):
    """The record of the i-th produce request in flight (in send order)."""
    return s[_request(lay, i) + REQUEST_RECORD] - 1


@kernel
def produce_request_leader(s, lay, i):
    """The broker the i-th produce request in flight was sent to."""
    return s[_request(lay, i) + REQUEST_LEADER]


@kernel
def queue_produce_request(t, lay, rid, ldr):
    """A produce request for record rid is sent to `ldr`, after those already in flight."""
    at = _request(lay, produce_request_count(t, lay))
    t[at + REQUEST_RECORD] = rid + 1
    t[at + REQUEST_LEADER] = ldr


@kernel
def drop_produce_request(t, lay, i):
    """The i-th produce request in flight is gone (handled or lost); later ones move up."""
    last = produce_request_count(t, lay) - 1
    for k in range(_request(lay, i), _request(lay, last)):
        t[k] = t[k + REQUEST_SLOTS]
    for k in range(_request(lay, last), _request(lay, last + 1)):
        t[k] = 0


# ----- ghost variables ----------------------------------------------------------------------------


@kernel
def ghost_records(lay):
    """How many record ids the ghost acked and committed sets track (0 without ghost)."""
    return lay.max_records if lay.ghost else 0


@kernel
def consumer_hw(s, lay):
    """The highest HW consumers have seen on a true leader."""
    return s[CONSUMER_HW]


@kernel
def set_consumer_hw(t, lay, value):
    """Consumers have now seen HW `value`."""
    t[CONSUMER_HW] = value


@kernel
def pending_count(s, lay):
    """How many acks=all writes wait for their acknowledgement."""
    return s[PENDING_COUNT]


@kernel
def _pending(lay, i):
    return HEADER + PENDING_SLOTS * i


@kernel
def pending_offset(s, lay, i):
    """The offset of the i-th pending write."""
    return s[_pending(lay, i) + PENDING_OFFSET]


@kernel
def pending_record_id(s, lay, i):
    """The record id of the i-th pending write."""
    return s[_pending(lay, i) + PENDING_RECORD_ID]


@kernel
def pending_record_epoch(s, lay, i):
    """The record epoch of the i-th pending write."""
    return s[_pending(lay, i) + PENDING_RECORD_EPOCH]


@kernel
def pending_leader(s, lay, i):
    """The leader that appended the i-th pending write."""
    return s[_pending(lay, i) + PENDING_LEADER]


@kernel
def pending_epoch(s, lay, i):
    """The leader epoch in which the i-th pending write was appended."""
    return s[_pending(lay, i) + PENDING_EPOCH]


@kernel
def add_pending(t, lay, offset, rid, repoch, ldr, e):
    """An acks=all write of record (rid, repoch) at `offset`, appended by `ldr` in epoch e,
    waits for its acknowledgement (after the ones already waiting)."""
    at = _pending(lay, t[PENDING_COUNT])
    t[at + PENDING_OFFSET] = offset
    t[at + PENDING_RECORD_ID] = rid
    t[at + PENDING_RECORD_EPOCH] = repoch
    t[at + PENDING_LEADER] = ldr
    t[at + PENDING_EPOCH] = e
    t[PENDING_COUNT] += 1


@kernel
def remove_pending(t, lay, i):
    """The i-th pending write is settled (acknowledged or forgotten); later ones move up."""
    last = t[PENDING_COUNT] - 1
    for k in range(_pending(lay, i), _pending(lay, last)):
        t[k] = t[k + PENDING_SLOTS]
    for k in range(_pending(lay, last), _pending(lay, last + 1)):
        t[k] = 0
    t[PENDING_COUNT] = last


@kernel
def acked_offset(s, lay, rid):
    """The offset of acknowledged write `rid`, or -1 if it was never acknowledged."""
    return s[lay.acked_base + 2 * rid] - 1


@kernel
def acked_epoch(s, lay, rid):
    """The record epoch of acknowledged write `rid`."""
    return s[lay.acked_base + 2 * rid + 1]


@kernel
def ack(t, lay, offset, rid, repoch):
    """The producer is told its write of record (rid, repoch) at `offset` succeeded."""
    t[lay.acked_base + 2 * rid] = offset + 1
    t[lay.acked_base + 2 * rid + 1] = repoch


@kernel
def committed_offset(s, lay, rid):
    """The offset at which record `rid` was committed, or -1 if it never was."""
    return s[lay.committed_base + 2 * rid] - 1


@kernel
def committed_epoch(s, lay, rid):
    """The record epoch of committed record `rid`."""
    return s[lay.committed_base + 2 * rid + 1]


@kernel
def commit(t, lay, offset, rid, repoch):
    """Record (rid, repoch) at `offset` was below a true leader's HW: consumers could read it.
    The first commit of a record id is the one kept: a record only ever lives at the offset it
    was written, except that a retrying producer may write it twice, and consumers read it
    first where it was first committed."""
    if t[lay.committed_base + 2 * rid] == 0:
        t[lay.committed_base + 2 * rid] = offset + 1
        t[lay.committed_base + 2 * rid + 1] = repoch
