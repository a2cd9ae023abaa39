"""The retrying producer (`--retries`), in place of the atomic `ProducerWrite`: each record is a
produce request that the producer sends to a replica it believes leads, that the leader
handles, and whose answer may never come, so that the producer sends the record again.

    ProducerSend         the next record, or a failed one again, to a live replica that believes
                         it leads; a new record only while fewer than max.in.flight records are
                         sent, appended (answer pending) or failed (retry pending)
    LeaderHandleProduce  the broker handles the first request its connection received (Kafka
                         handles one connection's requests in order): an error, a dropped
                         duplicate (idempotence), or an append
    ProducerReceiveAck   the success answer arrives (acks=all: only once the record is committed)
    ProducerTimeout      a request or its answer is lost (crash, network, request.timeout.ms):
                         the record failed and waits for a retry

So records are reordered only by a failure and a retry, never by the network: with
max.in.flight 1 a failed record holds the window until it is retried and acknowledged. A lost
answer to a successful append makes the retry append the record again, unless the leader's
producer state (`idempotence`) recognises it. With acks=0 the producer waits for nothing: a
send completes the record, and whatever the leader does with it is never answered.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import (ACK_APPENDED, ACK_ARRIVES, ACK_RETRIES, PRODUCE_REQUEST, PRODUCE_RETRIES, PRODUCE_ROOM,
                     SEND_FAILED, SEND_IN_FLIGHT, SEND_LEADER, SEND_RETRIES, TIMEOUT_RETRIES, TIMEOUT_WAITING)
from .hw import advance_hw, leads_epoch
from .idempotence import in_sequence, sequence_offset
from .isr import enough_insync
from .kinds import LEADER_HANDLE_PRODUCE, PRODUCER_RECEIVE_ACK, PRODUCER_SEND, PRODUCER_TIMEOUT
from .layout import (ACKS_0, ACKS_ALL, ack, alive, answer_epoch, answer_leader, answer_offset, answer_record_epoch,
                     count_write, drop_produce_request, epoch, hw, leader, leo, next_record_id, produce_request_count,
                     produce_request_leader, produce_request_record, producer_records, queue_produce_request,
                     record_epoch, send_status, set_appended, set_send_status)
from .producer import record_appended
from .state import ACKED, APPENDED, FAILED, SENT

APPEND, DUPLICATE, NOT_LEADER, NOT_ENOUGH_REPLICAS, OUT_OF_ORDER_SEQUENCE = range(5)
"""What a leader does with a produce request: append the record, answer a duplicate with its
original offset (idempotence), or refuse it with Kafka's error (NOT_LEADER_OR_FOLLOWER,
NOT_ENOUGH_REPLICAS, OUT_OF_ORDER_SEQUENCE_NUMBER)."""


@kernel
def in_flight(s, lay):
    """How many records hold a place in the producer's window (max.in.flight): sent, appended
    and awaiting the answer, or failed and awaiting a retry."""
    count = 0
    for rid in range(producer_records(lay)):
        status = send_status(s, lay, rid)
        if status == SENT or status == APPENDED or status == FAILED:
            count += 1
    return count


@kernel
def producer_send(s, lay, out, acts, tally, n):
    """The producer sends record rid to a live replica that believes it leads (its metadata may
    be stale): the next new record while fewer than max.in.flight records are in flight, or a
    failed one again (a retry keeps its place in the window). The request joins that broker's
    connection behind those sent before it. With acks=0 the send completes the record."""
    if not holds(tally, SEND_RETRIES, lay.retries):
        return n
    fresh = next_record_id(s, lay)
    for rid in range(min(fresh + 1, producer_records(lay))):
        if rid == fresh and not holds(tally, SEND_IN_FLIGHT, in_flight(s, lay) < lay.max_in_flight):
            continue
        if rid < fresh and not holds(tally, SEND_FAILED, send_status(s, lay, rid) == FAILED):
            continue
        for r in range(lay.replicas):
            if not holds(tally, SEND_LEADER, alive(s, lay, r) and leader(s, lay, r) == r):
                continue
            t = emit(s, out, acts, n, action_code(PRODUCER_SEND, rid, r, 0))
            if rid == fresh:
                count_write(t, lay)
            set_send_status(t, lay, rid, ACKED if lay.acks == ACKS_0 else SENT)
            queue_produce_request(t, lay, rid, r)
            n += 1
    return n


@kernel
def first_request_to(s, lay, r):
    """The position of the first produce request in flight to broker r, -1 if none."""
    for i in range(produce_request_count(s, lay)):
        if produce_request_leader(s, lay, i) == r:
            return i
    return -1


@kernel
def produce_outcome(s, lay, r, rid):
    """What broker r does with a produce request for record rid, checked in Kafka's order: a
    broker that does not believe it leads refuses (produce requests carry no leader epoch, so a
    stale leader accepts); with acks=all an ISR below min.insync.replicas refuses; with
    idempotence a record already in the log is a duplicate, and any other sequence but the next
    is out of order; otherwise the record is appended."""
    if leader(s, lay, r) != r:
        return NOT_LEADER
    if lay.acks == ACKS_ALL and not enough_insync(s, lay, r):
        return NOT_ENOUGH_REPLICAS
    if lay.idempotence and sequence_offset(s, lay, r, rid) >= 0:
        return DUPLICATE
    if lay.idempotence and not in_sequence(s, lay, r, rid):
        return OUT_OF_ORDER_SEQUENCE
    return APPEND


@kernel
def answer(t, lay, rid, r, offset):
    """Broker r answers the request for record rid with success at `offset` of its log: the
    record is APPENDED until the answer arrives (with acks=0 nobody listens)."""
    if lay.acks != ACKS_0:
        set_appended(t, lay, rid, r, epoch(t, lay, r), offset, record_epoch(t, lay, r, offset))


@kernel
def leader_handle_produce(s, lay, out, acts, tally, n):
    """Broker r handles the first produce request its connection holds (`produce_outcome`). An
    error goes back to the producer: the record failed. A duplicate is not appended and is
    answered with the original's offset. An append goes in r's epoch and r recomputes its HW,
    as for a write; it is not enabled while r's log is full (a bound of the model)."""
    if not holds(tally, PRODUCE_RETRIES, lay.retries):
        return n
    for r in range(lay.replicas):
        i = first_request_to(s, lay, r)
        if not holds(tally, PRODUCE_REQUEST, i >= 0):
            continue
        rid = produce_request_record(s, lay, i)
        outcome = produce_outcome(s, lay, r, rid)
        if outcome == APPEND and not holds(tally, PRODUCE_ROOM, leo(s, lay, r) < lay.log_size):
            continue
        t = emit(s, out, acts, n, action_code(LEADER_HANDLE_PRODUCE, r, rid, 0))
        drop_produce_request(t, lay, i)
        if outcome == APPEND:
            record_appended(t, lay, r, rid, epoch(s, lay, r))
            advance_hw(t, lay, r)
            answer(t, lay, rid, r, leo(s, lay, r))
        elif outcome == DUPLICATE:
            answer(t, lay, rid, r, sequence_offset(s, lay, r, rid))
        elif lay.acks != ACKS_0:
            set_send_status(t, lay, rid, FAILED)
        n += 1
    return n


@kernel
def answer_arrives(s, lay, rid):
    """The success answer for APPENDED record rid can reach the producer: with acks=1 at any time
    after the append; with acks=all once the answering leader, still leading the epoch it
    answered in, has its HW past the offset with enough in-sync replicas. (Below
    min.insync.replicas by then it answers NotEnoughReplicasAfterAppend, an error that
    `producer_timeout` covers.)"""
    if lay.acks != ACKS_ALL:
        return True
    p = answer_leader(s, lay, rid)
    return (leads_epoch(s, lay, p, answer_epoch(s, lay, rid)) and hw(s, lay, p) > answer_offset(s, lay, rid)
            and enough_insync(s, lay, p))


@kernel
def producer_receive_ack(s, lay, out, acts, tally, n):
    """The producer receives the success answer for an appended record: it is acknowledged (the
    ghost `acked` records where, for `acked-survives`)."""
    if not holds(tally, ACK_RETRIES, lay.retries):
        return n
    for rid in range(producer_records(lay)):
        if not (holds(tally, ACK_APPENDED, send_status(s, lay, rid) == APPENDED)
                and holds(tally, ACK_ARRIVES, answer_arrives(s, lay, rid))):
            continue
        t = emit(s, out, acts, n, action_code(PRODUCER_RECEIVE_ACK, rid, 0, 0))
        if lay.ghost:
            ack(t, lay, answer_offset(s, lay, rid), rid, answer_record_epoch(s, lay, rid))
        set_send_status(t, lay, rid, ACKED)
        n += 1
    return n


@kernel
def producer_timeout(s, lay, out, acts, tally, n):
    """A sent record's request, or an appended record's answer, is lost: the leader crashed, the
    network dropped it, or request.timeout.ms passed (time is abstract, so at any moment). The
    record failed and waits for a retry; a request still in flight is withdrawn. After an
    append this is what makes a retry duplicate a record."""
    if not holds(tally, TIMEOUT_RETRIES, lay.retries):
        return n
    for rid in range(producer_records(lay)):
        status = send_status(s, lay, rid)
        if not holds(tally, TIMEOUT_WAITING, status == SENT or status == APPENDED):
            continue
        t = emit(s, out, acts, n, action_code(PRODUCER_TIMEOUT, rid, 0, 0))
        for i in range(produce_request_count(s, lay)):
            if produce_request_record(s, lay, i) == rid:
                drop_produce_request(t, lay, i)
        set_send_status(t, lay, rid, FAILED)
        n += 1
    return n


@kernel
def close_connections(t, lay, r):
    """Broker r went down: its connection with the producer is closed, and the requests it had
    not handled are lost (the producer notices by its timeout)."""
    i = 0
    while i < produce_request_count(t, lay):
        if produce_request_leader(t, lay, i) == r:
            drop_produce_request(t, lay, i)
        else:
            i += 1
