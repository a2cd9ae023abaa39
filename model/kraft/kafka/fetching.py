"""Replication in the faithful variants, as Kafka's `KafkaRaftClient` does it: followers pull
the log with FETCH, the leader answers with every record from the fetch offset on or with
where the follower's log diverges, counts each voter's fetch offset towards its HW, and the
follower appends and flushes, or truncates; the leader appends client values and flushes its
log after counting its own LEO.

A leader's log longer than its flushed part means it is inside `flushLeaderLog`, between
counting its new LEO and flushing (`layout.in_poll`): it takes no step but the flush, a crash,
and answering the FETCHes parked at it, which its new records complete (`parks`: those that
found nothing new before the append); any other FETCH waits for the flush. Each function is
one step of voter i (index), or of the receiver of the message on the connection whose record
starts at `at`, and appends its successor to `out`."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..messages import DIVERGING, FENCED_LEADER_EPOCH, FETCH_REQUEST, FETCH_RESPONSE, NOT_LEADER, NOT_OK, OK, \
    UNKNOWN_LEADER
from ..state import FOLLOWER, LEADER, NIL, UNATTACHED, VOTED, WRITTEN
from ..tla.layout import (EPOCH, HW, LEADER as LEADER_AT, ROLE, acked, append, entry_epoch, entry_value, get,
                          last_epoch, put, set_acked, truncate)
from .channels import PARKED, answer, clear, connection, free, idle, send, unpark_fetches
from .epoch_cache import diverging, truncation_offset
from .guards import BOOTSTRAP_READY, FLUSHING, FOLLOWER_FREE, LEADS_WITH_RECORD, OBSERVER_SEEKS, PARKED_ONLY, \
    VALUE_UNWRITTEN
from .kinds import CLIENT_APPEND, FLUSH, HANDLE_FETCH_REQUEST, HANDLE_FETCH_RESPONSE, SEND_FETCH
from .layout import (DIRECTORY, ENTRIES, ENTRY_PAIRS, EPOCH_SENT, FLUSHED, HEARD, KIND, START_OFFSET, LIVE, A, B, C,
                     D, E, F, in_poll, log_end)
from .leader_state import counted, counted_self
from .quorum_state import common_response, illegal
from .voter_set import is_voter


@kernel
def send_fetch(s, lay, out, acts, tally, n, i):
    """A follower asks its leader for the records after its log end (`buildFetchRequest`: its
    epoch, its LEO as the fetch offset, the epoch of its last record, and its replica key: its
    node id and directory id). An unattached observer, which knows no leader, asks any other
    controller, as one of its bootstrap servers, once it has no request in flight
    (`pollUnattachedAsObserver`, `maybeSendAnyVoterFetch`, `RequestManager.findReadyBootstrapServer`);
    so does, from 4.0, an unattached voter (`pollUnattachedCommon`, `maybeSendFetchToAnyBootstrap`),
    which before 4.0 never fetches."""
    leader, role = get(s, lay, i, LEADER_AT), get(s, lay, i, ROLE)
    if role == FOLLOWER:
        if not holds(tally, FOLLOWER_FREE, leader > 0 and free(s, lay, i, leader - 1)):
            return n
        return _fetch_from(s, lay, out, acts, n, i, leader - 1)
    if not holds(tally, OBSERVER_SEEKS, (role == UNATTACHED or role == VOTED) and
                 (lay.pre_vote or not is_voter(s, lay, i))):
        return n
    if not holds(tally, BOOTSTRAP_READY, idle(s, lay, i)):
        return n
    for j in range(lay.replicas):
        if j != i and free(s, lay, i, j):
            n = _fetch_from(s, lay, out, acts, n, i, j)
    return n


@kernel
def _fetch_from(s, lay, out, acts, n, i, j):
    """Voter i sends controller j (indices) a FETCH (`send_fetch`)."""
    t = emit(s, out, acts, n, action_code(SEND_FETCH, i + 1, j + 1, 0))
    send(t, lay, i, j, FETCH_REQUEST, get(s, lay, i, EPOCH), log_end(s, lay, i), last_epoch(s, lay, i),
         get(s, lay, i, DIRECTORY))
    return n + 1


@kernel
def handle_fetch_request(s, lay, out, acts, tally, n, at, i, f):
    """`handleFetchRequest` by voter i of voter f's FETCH (indices): an older epoch is
    answered FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH, a voter that does not lead
    NOT_LEADER_OR_FOLLOWER; a position the leader's log does not continue gets the diverging
    epoch (`validateOffsetAndEpoch`); else the leader sends every record from the fetch offset
    on with its HW, and records its fetch offset as that replica key's end offset, which moves
    the HW if the key is a voter of the leader's latest set (an observer's fetches count for
    nothing). The key is the one the FETCH carries (`ReplicaKey.of(replicaId,
    replicaDirectoryId)`): a FETCH sent before its sender lost its disk still counts for the
    voter it was. Inside `flushLeaderLog` the leader answers only a FETCH parked at it
    (`begin_flush`), with the records it just appended, as `tryCompleteFetchRequest` does again
    when the parked FETCH completes."""
    if not holds(tally, PARKED_ONLY, not in_poll(s, lay, i) or s[at + D] == PARKED):
        return n
    epoch, live, offset, last = int(s[at + EPOCH_SENT]), s[at + LIVE], int(s[at + A]), int(s[at + B])
    directory = s[at + C]
    t = emit(s, out, acts, n, action_code(HANDLE_FETCH_REQUEST, i + 1, f + 1, epoch))
    clear(t, lay, at)
    mine = get(t, lay, i, EPOCH)
    error = FENCED_LEADER_EPOCH if epoch < mine else UNKNOWN_LEADER if epoch > mine else \
        NOT_LEADER if get(t, lay, i, ROLE) != LEADER else 0
    if error:
        if live:
            answer(t, lay, at, FETCH_RESPONSE, mine, NOT_OK, error, get(t, lay, i, LEADER_AT), 0, 0, 0)
        return n + 1
    end, end_epoch = diverging(t, lay, i, offset, last)
    if end >= 0:
        if live:
            answer(t, lay, at, FETCH_RESPONSE, mine, DIVERGING, 0, i + 1, get(t, lay, i, HW), end_epoch, end)
        return n + 1
    counted(t, lay, i, f, directory, offset)
    if live:
        answer(t, lay, at, FETCH_RESPONSE, mine, OK, 0, i + 1, get(t, lay, i, HW), 0, 0)
        t[at + ENTRIES] = log_end(t, lay, i) - offset
        for k in range(offset + 1, log_end(t, lay, i) + 1):
            t[at + ENTRY_PAIRS + 2 * (k - offset - 1)] = entry_epoch(t, lay, i, k)
            t[at + ENTRY_PAIRS + 2 * (k - offset - 1) + 1] = entry_value(t, lay, i, k)
    return n + 1


@kernel
def handle_fetch_response(s, lay, out, acts, tally, n, at, i, leader):
    """`handleFetchResponse` by follower i of its leader's answer: after the common handling
    of responses, a follower notes (4.0) that its leader answered (`hasFetchedFromLeader`, which
    makes it refuse pre-votes), and if told it diverges truncates (`truncateToEndOffset`); Kafka
    throws if the leader's diverging offset is below its HW (`handleFetchResponse`), and if the
    cut its own epoch cache computes is (`KafkaMetadataLog.truncateTo`, against the log's HW: the
    model keeps one HW, the state's; rule-table row `truncation-below-hw`); sent records, it appends and flushes them (a voter flushes before it fetches
    again) and takes the leader's HW as far as its own LEO (`updateFollowerHighWatermark`; a
    lower one than it has throws)."""
    epoch, result, error, named = int(s[at + EPOCH_SENT]), int(s[at + A]), int(s[at + B]), int(s[at + C])
    hwm, diverging_epoch, diverging_end = int(s[at + D]), int(s[at + E]), int(s[at + F])
    t = emit(s, out, acts, n, action_code(HANDLE_FETCH_RESPONSE, i + 1, leader + 1, epoch))
    clear(t, lay, at)
    if common_response(t, lay, i, named, epoch, error) or get(t, lay, i, ROLE) != FOLLOWER:
        return n + 1
    if lay.pre_vote:
        put(t, lay, i, HEARD, 1 << (get(t, lay, i, LEADER_AT) - 1))
    hw = get(t, lay, i, HW)
    if result == DIVERGING:
        cut = truncation_offset(t, lay, i, diverging_end, diverging_epoch) if diverging_end >= hw else -1
        if cut < hw:
            illegal(t, lay, i)
        else:
            truncate(t, lay, i, cut)
            put(t, lay, i, FLUSHED, min(get(t, lay, i, FLUSHED), cut))
        return n + 1
    for k in range(s[at + ENTRIES]):
        append(t, lay, i, s[at + ENTRY_PAIRS + 2 * k], s[at + ENTRY_PAIRS + 2 * k + 1])
    put(t, lay, i, FLUSHED, log_end(t, lay, i))
    if hwm != NIL:
        if min(log_end(t, lay, i), hwm) < hw:
            illegal(t, lay, i)
        else:
            put(t, lay, i, HW, min(log_end(t, lay, i), hwm))
    return n + 1


@kernel
def client_append(s, lay, out, acts, tally, n, i):
    """The leader appends each client value v (1..m) not yet written in its epoch, after its
    LeaderChange record, and counts its new LEO (`appendAsLeader`, then `flushLeaderLog`); v is
    written, and is acknowledged when the HW passes it."""
    if not holds(tally, LEADS_WITH_RECORD, get(s, lay, i, ROLE) == LEADER and
                 log_end(s, lay, i) != get(s, lay, i, START_OFFSET)):
        return n
    for v in range(1, lay.values + 1):
        if not holds(tally, VALUE_UNWRITTEN, acked(s, lay, v) == NIL):
            continue
        t = emit(s, out, acts, n, action_code(CLIENT_APPEND, i + 1, v, 0))
        append(t, lay, i, get(s, lay, i, EPOCH), v)
        set_acked(t, lay, v, WRITTEN)
        begin_flush(s, t, lay, i)
        n += 1
    return n


@kernel
def flush(s, lay, out, acts, tally, n, i):
    """The leader flushes its log (`log.flush`, the end of `flushLeaderLog`)."""
    if not holds(tally, FLUSHING, in_poll(s, lay, i)):
        return n
    t = emit(s, out, acts, n, action_code(FLUSH, i + 1, 0, 0))
    put(t, lay, i, FLUSHED, log_end(s, lay, i))
    unpark_fetches(t, lay, i)
    return n + 1


@kernel
def parks(s, lay, i, at):
    """Leader i, handling in state s the FETCH on the connection at `at`, would park it
    (`handleFetchRequest` @ 3.6.0 to 3.8.0, 3.9.0-rc3: `fetchPurgatory.await` unless the answer of
    `tryCompleteFetchRequest` has an error, records, a diverging epoch or a snapshot id): the
    FETCH carries the leader's epoch (else FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH), asks from
    the leader's LEO (else records), and its position continues the leader's log
    (`validateOffsetAndEpoch`, else a diverging epoch). 3.3 to 3.5 park a diverging FETCH too;
    the model answers it at once (rule-table row `fetch-diverging`)."""
    offset = int(s[at + A])
    return (s[at + EPOCH_SENT] == get(s, lay, i, EPOCH) and offset == log_end(s, lay, i)
            and diverging(s, lay, i, offset, int(s[at + B]))[0] < 0)


@kernel
def begin_flush(s, t, lay, i):
    """The first half of leader i's `flushLeaderLog`, after an append that took state s to t: it
    counts its new LEO ("We update the end offset before flushing so that parked fetches can
    return sooner": `updateLeaderEndOffsetAndTimestamp` then `fetchPurgatory.maybeComplete` with
    the new LEO), which completes the FETCHes parked at it, those that found nothing new in s
    (`parks`): the model marks them, and the leader may answer them before the flush, with the
    records just appended. Any other FETCH in flight is handled at a later poll, after the flush
    (`KafkaRaftClient.poll` runs `pollCurrentState` to its end before it takes the next message)."""
    counted_self(t, lay, i, log_end(t, lay, i))
    for j in range(lay.replicas):
        at = connection(lay, j, i)
        if j != i and s[at + KIND] == FETCH_REQUEST and parks(s, lay, i, at):
            t[at + D] = PARKED
