"""How each abstraction row of the `fetch` rule table (`model.fetch.rule_table`) is vouched for
(`model.vouches`): a claim, cited, that every step resting on the row is a sequence of steps
Kafka's code takes, with the check of one step; or Kafka's own behaviour as another choice of
a rule, which `trace audit` searches again with.

The checks read the readable states (`model.fetch.state`) and Kafka's code as cited, never the
kernel's rule for the same step: a check that only restated the kernel could not fail. Where a
claim is that a step is a sequence of other model steps whose rows are as Kafka (a controlled
shutdown), the check takes that sequence in a model that has those steps and compares.
"""

from __future__ import annotations

from functools import lru_cache

from ..vouches import Merges, Steps
from .kinds import NO_LEADER
from .layout import UNCLEAN_STOP
from .rules import RULE_BOOK
from .state import NO_EPOCH, NONE, Broker, FetchResponse, FetchState, members

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

ZOOKEEPER_BEFORE_2_1 = ("hw", "kip101", "kip279")
"""The variants whose releases (0.10 to 2.0) drop a follower from the ISR on time alone."""


def _preset(steps: Steps) -> str:
    """The variant the trace's rule set starts from."""
    return RULE_BOOK.resolve(steps.model.variant).preset


def _known_leo(broker: Broker, f: int) -> int:
    """The LEO leader `broker` holds for replica f: the offset of f's latest FETCH it recorded, -1
    when unknown (a LEO that counts for no expansion is stored as -3 - LEO)."""
    raw = broker.remote[f]
    return raw if raw >= -1 else -3 - raw


def _leads(broker: Broker, r: int, epoch: int) -> bool:
    """Broker r is up and leads `epoch`."""
    return broker.alive and broker.leader == r and broker.epoch == epoch


def _others_unchanged(before: FetchState, after: FetchState, *skipped: int) -> str | None:
    """Why a broker other than `skipped` changed, None when none did."""
    for r, (was, now) in enumerate(zip(before.brokers, after.brokers)):
        if r not in skipped and was != now:
            return f"r{r + 1} changed too"
    return None


# ----- isr-shrink ---------------------------------------------------------------------------------

def _isr_shrink(steps: Steps, i: int) -> str | None:
    """A `LeaderShrinkIsr` is Kafka's ISR shrink at a moment when exactly that follower has been
    out of sync longer than replica.lag.time.max.ms: the leader leads the controller's epoch, the
    ISR it writes is its own less that one follower, and (from 2.1) that follower's LEO, as the
    leader knows it, is not the leader's."""
    _, ldr, f = steps.action(i)
    before, after = steps.before(i), steps.after(i)
    leader = before.brokers[ldr]
    if not (before.controller.leader == ldr and _leads(leader, ldr, before.controller.epoch)):
        return f"r{ldr + 1} does not lead the controller's epoch, so its ISR write would fail"
    if f == ldr or f not in members(leader.isr):
        return f"r{f + 1} is no follower in r{ldr + 1}'s ISR"
    if after.controller.isr != leader.isr & ~(1 << f):
        return f"the ISR written is not r{ldr + 1}'s ISR less r{f + 1} alone"
    if _preset(steps) not in ZOOKEEPER_BEFORE_2_1 and _known_leo(leader, f) == leader.leo:
        return f"r{f + 1}'s LEO is r{ldr + 1}'s, and from 2.1 such a follower is never out of sync"
    return None


# ----- election-order -----------------------------------------------------------------------------

ELECTING = ("ControllerNoticeFailure", "ControllerNoticeRestart", "FenceLiveBroker", "ControlledShutdown",
            "ControllerFailover")
"""The controller's steps that may elect a leader."""


@lru_cache(maxsize=4096)
def _choices(model, before: FetchState, kind: str, noticed: int | None) -> frozenset[int]:
    """Every replica the controller may elect when its step `kind` handles broker `noticed` in
    state `before` (a controller failover handles no broker: `noticed` None)."""
    if noticed is None:
        return frozenset(a[1] for a, _ in model.successors(before) if a[0] == kind and a[1] != NO_LEADER)
    return frozenset(a[2] for a, _ in model.successors(before) if a[:2] == (kind, noticed) and a[2] != NO_LEADER)


def _election(steps: Steps, j: int) -> tuple[int, frozenset[int]] | None:
    """(the replica elected, every replica the model could have elected there) for step j, when
    it is a controller step that chose among two or more replicas; None otherwise. A controller
    failover names only the leader after it; the others name the broker they handle, then it."""
    action = steps.action(j)
    if action[0] not in ELECTING:
        return None
    noticed, elected = (None, action[1]) if action[0] == "ControllerFailover" else action[1:3]
    if elected == NO_LEADER:
        return None
    choices = _choices(steps.model, steps.before(j), action[0], noticed)
    if len(choices) < 2 or elected not in choices:
        return None
    return elected, choices


def _has_order(first: set[tuple[int, int]]) -> bool:
    """Some order of the replicas puts a before b for every pair (a, b) in `first`: the pairs
    make no cycle."""
    after: dict[int, set[int]] = {}
    for a, b in first:
        after.setdefault(a, set()).add(b)
    done: set[int] = set()
    on_path: set[int] = set()

    def acyclic(a: int) -> bool:
        if a in on_path:
            return False
        if a in done:
            return True
        on_path.add(a)
        ok = all(acyclic(b) for b in after.get(a, ()))
        on_path.discard(a)
        done.add(a)
        return ok

    return all(acyclic(a) for a in list(after))


def _election_order(steps: Steps, i: int) -> str | None:
    """The elections of steps 1 to i are all what ONE replica assignment order picks: each elects
    the first of its candidates in that order, and, from the partition's creation, the first
    leader is the first replica of the order (every replica was up: all are in the first ISR).
    Only step i's own election is judged: an earlier one that no order explains failed there."""
    if steps.action(i)[0] not in ELECTING or _election(steps, i) is None:
        return None
    first: set[tuple[int, int]] = set()
    if steps.starts_at_creation():
        created = steps.states[0].controller.leader
        first |= {(created, r) for r in range(len(steps.states[0].brokers)) if r != created}
    for j in range(1, i + 1):
        election = _election(steps, j)
        if election is None:
            continue
        elected, choices = election
        pairs = {(elected, other) for other in choices if other != elected}
        if not _has_order(first | pairs):
            if j < i:
                return None
            earlier = "the partition's first leader and " if steps.starts_at_creation() else ""
            return (f"no replica assignment order elects r{elected + 1} among "
                    f"{', '.join(f'r{c + 1}' for c in sorted(choices))} here and {earlier}the elections before")
        first |= pairs
    return None


# ----- leader-epoch-bump --------------------------------------------------------------------------

def _same_epoch_change(steps: Steps, i: int) -> str | None:
    """A controller change that keeps the leader and its epoch (KRaft from metadata version 3.6)
    is the controller's PartitionChangeRecord and then its leader applying it: a leader already in
    the epoch has the new ISR once the step is done (with its log, cache and remote LEOs as they
    were), and a leader still to take the epoch's LeaderAndIsr finds the new ISR in it (a
    follower reads no ISR)."""
    before, after = steps.before(i), steps.after(i)
    c, d = before.controller, after.controller
    if d.epoch != c.epoch or d.leader != c.leader or d.leader == NONE or d.isr == c.isr:
        return None
    ldr, was, now = d.leader, before.brokers[d.leader], after.brokers[d.leader]
    if _leads(was, ldr, c.epoch) and now.alive:
        if now.isr != d.isr:
            return f"the new ISR has not reached r{ldr + 1}, which leads the epoch"
        known = [_known_leo(was, f) for f in range(len(was.remote))]
        if ((now.log, now.cache, now.epoch) != (was.log, was.cache, was.epoch) or now.hw < was.hw
                or [_known_leo(now, f) for f in range(len(now.remote))] != known):
            return f"r{ldr + 1} changed more than its ISR and HW"
    for r, broker in enumerate(after.brokers):
        for request in broker.inbox:
            if request.epoch == d.epoch and request.leader == r and request.isr != d.isr:
                return f"r{r + 1}'s LeaderAndIsr of epoch {d.epoch}, which makes it leader, still names the old ISR"
    return None


# ----- fencing ------------------------------------------------------------------------------------

def _fencing(steps: Steps, i: int) -> str | None:
    """A `FenceLiveBroker` is the controller handling a running broker as failed (ZooKeeper:
    its session expired; KRaft: it missed its heartbeats) before the broker hears of it: the
    broker runs on exactly as it was, and the controller counts it among the dead."""
    r = steps.action(i)[1]
    was, now = steps.before(i).brokers[r], steps.after(i).brokers[r]
    if not was.alive or r in members(steps.before(i).controller.offline):
        return f"r{r + 1} was not a running broker the controller counted live"
    if now != was:
        return f"r{r + 1} learnt of its fencing in the same step"
    if r not in members(steps.after(i).controller.offline):
        return f"the controller does not count r{r + 1} among the dead"
    return None


# ----- controlled-shutdown ------------------------------------------------------------------------

@lru_cache(maxsize=8)
def _fencing_model(model):
    """`model` with one more fencing of a live broker allowed: the controller's handling of a
    running broker as gone (`FenceLiveBroker`) is then one of its steps."""
    return type(model)(model.variant, model.config._replace(max_fencings=model.config.max_fencings + 1), model.ghost)


def _take(model, state: FetchState, action: tuple) -> FetchState | None:
    """The state `model` reaches from `state` by `action`, None when it does not take it there."""
    return next((t for a, t in model.successors(state) if a == action), None)


def _stop_cleanly(model, state: FetchState, r: int) -> FetchState | None:
    """The state after broker r flushes its log, checkpoints its HW and stops cleanly, each a
    step of `model`: `CleanShutdown` under kip966, else `Flush` (when anything is unflushed),
    `CheckpointHw` (when it differs) and `Crash` (0.10 to 3.9 read no clean-shutdown marker)."""
    if model.rules["elr"] == "on":
        return _take(model, state, ("CleanShutdown", r))
    broker = state.brokers[r]
    if broker.flushed < broker.leo:
        state = _take(model, state, ("Flush", r))
    if state is not None and state.brokers[r].checkpoint != state.brokers[r].hw:
        state = _take(model, state, ("CheckpointHw", r))
    return None if state is None else _take(model, state, ("Crash", r))


def _controlled_shutdown(steps: Steps, i: int) -> str | None:
    """A `ControlledShutdown` is the controller moving the broker's leadership and ISR membership
    as for a broker it handles as gone (the model's `FenceLiveBroker` with the same outcome),
    then the broker flushing, checkpointing its HW and stopping cleanly; for a broker that has
    yet to take an epoch (which no fencing picks), the clean stop, then the controller noticing
    the failure with the same outcome. Either sequence ends in the step's state, but for the
    count of fencings."""
    _, r, elected = steps.action(i)
    model, before = _fencing_model(steps.model), steps.before(i)
    mid = _take(model, before, ("FenceLiveBroker", r, elected))
    if mid is not None:
        end = _stop_cleanly(model, mid, r)
    else:
        stopped = _stop_cleanly(model, before, r)
        end = None if stopped is None else _take(model, stopped, ("ControllerNoticeFailure", r, elected))
    if end is None:
        return f"the controller handling r{r + 1} as gone, and r{r + 1} stopping cleanly, do not have this outcome"
    if end._replace(fencings=steps.after(i).fencings) != steps.after(i):
        return f"the controller's handling of r{r + 1} and its clean stop end elsewhere"
    return None


# ----- restart-from-disk and empty-disk-restart --------------------------------------------------

def _crash(steps: Steps, i: int) -> str | None:
    """A `Crash` is a stop in which no page the broker had not flushed reached the disk (a power
    loss): what it keeps is its flushed records, the epoch-cache entries that start below their
    end (the cache file is cut back to the log at load), its HW checkpoint, and nothing of its
    memory. Other kinds of the row are as Kafka."""
    if steps.action(i)[0] != "Crash":
        return None
    r = steps.action(i)[1]
    was, now = steps.before(i).brokers[r], steps.after(i).brokers[r]
    kept = was.log[:was.flushed]
    if now.alive or now.log != kept or now.flushed != len(kept):
        return f"r{r + 1} does not keep exactly its flushed records"
    if now.cache != tuple(entry for entry in was.cache if entry[1] < len(kept)):
        return f"r{r + 1}'s epoch cache is not cut back to the records it kept"
    if now.checkpoint != was.checkpoint or (now.hw, now.epoch, now.leader, now.inbox) != (0, NO_EPOCH, NONE, ()):
        return f"r{r + 1} keeps more than its log and HW checkpoint"
    return None


def _restart_empty(steps: Steps, i: int) -> str | None:
    """A `RestartEmpty` is a broker that comes back, with its own broker id, on a new empty log
    directory: no records, no epoch cache, no HW checkpoint and no clean-shutdown marker, and
    nothing else changes."""
    r = steps.action(i)[1]
    before, after = steps.before(i), steps.after(i)
    was, now = before.brokers[r], after.brokers[r]
    if was.alive or not now.alive:
        return f"r{r + 1} was not down, or is not up"
    if (now.log, now.cache, now.flushed, now.checkpoint, now.hw) != ((), (), 0, 0, 0):
        return f"r{r + 1} kept something of its lost disk"
    if steps.model.rules["elr"] == "on" and now.last_stop != UNCLEAN_STOP:
        return f"r{r + 1} kept a clean-shutdown marker"
    return _others_unchanged(before, after, r)


# ----- unclean-election ---------------------------------------------------------------------------

def _unclean_election(steps: Steps, i: int) -> str | None:
    """An unclean election is Kafka's: with no ISR member (nor, under kip966, ELR member or last
    known leader) to elect, a replica the controller counts alive (`liveAssignedReplicas`: a crash
    it has not seen yet included) leads, alone in the ISR. The partition's RECOVERING state, which the model does not keep, changes no step:
    the new leader marks itself RECOVERED as it becomes leader and says so in its next
    AlterPartition."""
    _, _, elected = steps.action(i)
    after = steps.after(i)
    if not steps.model.config.unclean_leader_election:
        return "unclean leader election is off"
    if after.controller.isr != 1 << elected or after.controller.leader != elected:
        return f"r{elected + 1} is not the new leader alone in the ISR"
    if elected in members(after.controller.offline):
        return f"r{elected + 1} is a replica the controller counts dead"
    return None


# ----- when-truncation ----------------------------------------------------------------------------

UNDEFINED = None
"""`LeaderEpochFileCache.endOffsetFor`'s (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)."""


def _end_offset_for(cache: tuple, epoch: int, leo: int) -> tuple[int, int] | None:
    """`LeaderEpochFileCache.endOffsetFor(epoch, leo)` @ 3.4.0: the latest epoch itself ends at the
    LEO; otherwise the largest epoch at most `epoch` (or `epoch` itself, below them all) ends
    where the next higher one starts; UNDEFINED above every epoch of the cache."""
    if cache and cache[-1][0] == epoch:
        return epoch, leo
    higher = [start for e, start in cache if e > epoch]
    if not higher:
        return UNDEFINED
    floor = [e for e, _ in cache if e <= epoch]
    return (floor[-1] if floor else epoch), higher[0]


def _truncate(log: tuple, cache: tuple, offset: int) -> tuple[tuple, tuple]:
    """`UnifiedLog.truncateTo(offset)` @ 3.4.0: the log keeps its first `offset` records (all of
    them at or past its LEO) and the cache its entries that start below where the log now ends
    (`LeaderEpochFileCache.truncateFromEnd`, done at the LEO too since KAFKA-10706)."""
    cut = min(offset, len(log))
    return log[:cut], _with_records(cache, cut)


def _with_records(cache: tuple, leo: int) -> tuple:
    """The entries of an epoch cache whose epoch has records in a log of `leo` records."""
    return tuple(entry for entry in cache if entry[1] < leo)


def diverging_fetches(follower: Broker, leader: Broker) -> tuple[tuple, tuple] | str:
    """Kafka 2.8 on: the (log, epoch cache) a follower has once its FETCHes to a leader that leads
    the epoch, answered at once one after the other, stop naming a diverging epoch; or why they
    never do. Each FETCH carries its LEO and its cache's latest epoch
    (`AbstractFetcherThread.addPartitions`, `latestEpoch`); the leader answers a diverging epoch
    when its end of that epoch is an older epoch or ends before the fetch offset
    (`Partition.readRecords`); the follower truncates where `getOffsetTruncationState` says
    (`AbstractFetcherThread.truncateOnFetchResponse`), all @ 3.4.0."""
    log, cache = follower.log, follower.cache
    for _ in range(len(leader.cache) + len(cache) + 2):
        if not cache:  # no epoch to send: nothing is checked
            return log, cache
        fetched = cache[-1][0]
        answer = _end_offset_for(leader.cache, fetched, leader.leo)
        if answer is UNDEFINED:
            return f"the leader cannot place epoch {fetched} and answers OFFSET_OUT_OF_RANGE"
        epoch, end = answer
        if epoch >= fetched and end >= len(log):
            return log, cache
        mine = _end_offset_for(cache, epoch, len(log))
        if mine is UNDEFINED:
            point = min(end, len(log))
        elif mine[0] != epoch:
            point = min(mine[1], len(log))
        else:
            point = min(mine[1], end, len(log))
        truncated = _truncate(log, cache, point)
        if truncated == (log, cache):
            return f"the leader names epoch {epoch} ending at {end} again and again, and the follower truncates nothing"
        log, cache = truncated
    return "the FETCHes do not settle"


def _when_truncation(steps: Steps, i: int) -> str | None:
    """Kafka 2.8 on: a `BecomeFollower` is the follower taking the new epoch without truncating
    (`Partition.makeFollower`), then FETCHing at once from a leader that leads the epoch and
    truncating on each diverging answer until none diverges (`diverging_fetches`); the leader
    records nothing of a diverging FETCH (`Partition.fetchRecords`). Its log is the model's, and
    so is its cache but for entries of epochs it has no records of (an epoch it led without
    appending): Kafka keeps one until its next append or truncation drops it
    (`LeaderEpochFileCache.assign`, `UnifiedLog.truncateTo` @ 3.4.0), the model drops it here."""
    _, r, ldr, epoch = steps.action(i)
    before, after = steps.before(i), steps.after(i)
    leader = before.brokers[ldr]
    if not _leads(leader, ldr, epoch):
        return f"r{ldr + 1} does not lead epoch {epoch}, so it refuses the FETCH"
    reached = diverging_fetches(before.brokers[r], leader)
    if isinstance(reached, str):
        return reached
    log, cache = reached
    now = after.brokers[r]
    if now.log != log:
        return f"Kafka's FETCHes leave r{r + 1} {len(log)} records, the model {now.leo}"
    if _with_records(now.cache, now.leo) != _with_records(cache, len(log)):
        return f"Kafka's FETCHes leave r{r + 1}'s epoch cache {list(cache)}, the model {list(now.cache)}"
    return None


# ----- follower-hw --------------------------------------------------------------------------------

def _serving(steps: Steps, i: int, f: int) -> int | None:
    """The step before i that served the FETCH whose answer follower f holds, None when it is not
    in these steps."""
    for j in range(i - 1, 0, -1):
        action = steps.action(j)
        if action[0] == "LeaderServeFetch" and action[2] == f:
            return j
    return None


def _follower_hw(steps: Steps, i: int) -> str | None:
    """The HW a follower takes from an answer: a FETCH that found no records is parked and,
    after its wait, answered with the HW read then, after the leader recorded it (the model's
    value: `DelayedFetch.onComplete` @ 0.10.2.0, 3.7.0); one that found records is answered at
    once with the HW read before the leader recorded the follower's position
    (`ReplicaManager.fetchMessages` @ 0.10.2.0, `Partition.readRecords` @ 3.4.0)."""
    f = steps.action(i)[1]
    answer = steps.before(i).brokers[f].fetch
    if not isinstance(answer, FetchResponse) or answer.fenced or not answer.records:
        return None
    j = _serving(steps, i, f)
    if j is None:
        return None
    read = steps.before(j).brokers[answer.leader].hw
    if answer.hw != read:
        return (f"r{answer.leader + 1} answered with records at once, so with the HW it had before recording the "
                f"FETCH ({read}), not {answer.hw}")
    return None


# ----- the vouches --------------------------------------------------------------------------------

VOUCHES = {
    "when-truncation": Merges(
        "from 2.8 a follower keeps its log at `BecomeFollower` and truncates on its first FETCH answers, which name "
        "a diverging epoch; the model's step is that follower FETCHing at once, answered at once, until no answer "
        "diverges: a check computes those answers from the leader's and follower's caches (an entry for an epoch "
        "the follower has no records of, which Kafka drops only at its next append, is left out of the comparison)",
        "`Partition.makeFollower`, `Partition.readRecords`, `Partition.fetchRecords`, "
        "`AbstractFetcherThread.truncateOnFetchResponse`, `AbstractFetcherThread.getOffsetTruncationState`, "
        "`AbstractFetcherThread.addPartitions`, `LeaderEpochFileCache.endOffsetFor`, `UnifiedLog.truncateTo` @ 3.4.0",
        _when_truncation),
    "follower-hw": Merges(
        "an answer with no records is a FETCH parked in purgatory and answered after its wait with the HW read "
        "then, the model's value; an answer with records must carry the HW the leader had before it recorded the "
        "FETCH, as Kafka answers at once",
        "`ReplicaManager.fetchMessages`, `ReplicaManager.readFromLocalLog`, `DelayedFetch.onComplete` @ 0.10.2.0; "
        "`ReplicaManager.fetchMessages`, `Partition.fetchRecords`, `Partition.readRecords` @ 3.4.0; "
        "`DelayedFetch.onComplete` @ 3.7.0",
        _follower_hw),
    "isr-shrink": Merges(
        "with no clocks, any lagging follower may be the one whose last caught-up time is oldest, alone past "
        "replica.lag.time.max.ms: one follower per step is Kafka's shrink at that moment, and Kafka's drop of several "
        "at once is the model's steps one after the other",
        "`Partition.getOutOfSyncReplicas` @ 0.10.2.0, 2.1.0, 3.4.0; `Partition.maybeShrinkIsr` @ 3.4.0",
        _isr_shrink),
    "leader-epoch-bump": Merges(
        "a change that keeps the leader epoch is the controller's PartitionChangeRecord followed at once by the "
        "leader applying it, with the same epoch (or, for its own shrink, the AlterPartition answer)",
        "`PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded` @ 3.7.0; `Partition.makeLeader` @ 3.7.0; "
        "`Partition.handleAlterPartitionUpdate` @ 3.5.0",
        _same_epoch_change),
    "election-order": Merges(
        "Kafka elects the first candidate in the partition's replica assignment order, and created the partition "
        "with the first replica of that order as leader: ONE assignment order must explain every election of a "
        "trace, a move to the preferred replica included",
        "`PartitionStateMachine.initializeLeaderAndIsrForPartition`, `OfflinePartitionLeaderSelector.selectLeader` "
        "@ 0.10.2.0; `PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection`, "
        "`PartitionLeaderElectionAlgorithms.controlledShutdownPartitionLeaderElection` @ 3.4.0; "
        "`PartitionChangeBuilder.electAnyLeader` @ 3.4.0; `ReplicationControlManager.createTopic` @ 3.5.0; "
        "`PartitionChangeBuilder.electAnyLeader` @ 1eb7644 (trunk, not a tag)",
        _election_order),
    "unclean-election": Merges(
        "the election is Kafka's unclean one; the RECOVERING state it writes changes no step the model takes, as the "
        "new leader marks itself RECOVERED when it becomes leader",
        "`OfflinePartitionLeaderSelector.selectLeader` @ 0.10.2.0; `Election.leaderForOffline`, "
        "`Partition.makeLeader` @ 3.4.0; `PartitionChangeBuilder.electAnyLeader` @ 3.4.0",
        _unclean_election),
    "fencing": Merges(
        "a fencing is the controller handling the broker as failed while the broker has yet to hear of it (its "
        "ZooKeeper session expired, or its heartbeats were missed): the broker's state does not change",
        "`KafkaController.processBrokerChange` @ 3.4.0; `ReplicationControlManager.maybeFenceOneStaleBroker` @ 3.4.0",
        _fencing),
    "controlled-shutdown": Merges(
        "one step is the controller moving the broker's leadership and ISR membership as for a broker gone, then the "
        "broker flushing, checkpointing its HW and stopping cleanly: a check takes those steps in the model and "
        "compares the end states",
        "`KafkaController.doControlledShutdown`, `Election.leaderForControlledShutdown` @ 3.4.0; "
        "`ReplicationControlManager.handleBrokerInControlledShutdown` @ 3.4.0, 3.7.0",
        _controlled_shutdown),
    "restart-from-disk": Merges(
        "a crash is a power loss in which none of the unflushed pages reached the disk, one of the outcomes of Kafka's "
        "recovery, which keeps what is on disk up to the first invalid batch",
        "`Log.recoverLog`, `LogManager.loadLogs` @ 0.10.2.0; `LeaderEpochFileCache.assign` @ 0.11.0.0; "
        "`LogLoader.recoverLog` @ 1eb7644 (trunk, not a tag)",
        _crash),
    "empty-disk-restart": Merges(
        "the step is a broker restarted with its own broker id on a new, empty log directory, whose log Kafka "
        "creates empty when a LeaderAndIsr names the partition",
        "`LogManager.getOrCreateLog` @ 3.4.0; `ReplicaManager.handleLogDirFailure` @ 2.1.0",
        _restart_empty),
}
"""How each abstraction row of the fetch rule table is vouched for, by row key."""
