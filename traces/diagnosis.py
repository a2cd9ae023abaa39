"""Why a counterexample fails, as data: the step that did the damage (lost a committed or
acknowledged record, kept a record the leader does not have, elected a replica without it,
took a lower HW), the rule that made that step choose what it chose, and the earlier steps
that made the choice wrong. Derived from the trace alone, per variant and per invariant;
`traces.explain` turns it into prose.

Cause kinds, and the culprit steps each one names:

- `truncation-to-lagging-hw`: before Kafka 0.11 a replica becoming follower truncates to its
  own HW, which lags the leader's by a fetch round; a committed record above it is dropped.
  Culprit: the step at which the leader's HW passed the record (the follower never learned it).
- `stale-leader-and-isr`: under leader-epoch truncation, a replica acted on a LeaderAndIsr
  request the controller had already superseded and truncated against that stale leader.
  Culprits: the stale request under which the replica was following when it got the record,
  and the FETCH, sent in one epoch and served by a leader in another, that brought the
  record. KIP-320 fencing refuses that FETCH, and the truncation against a leader that has
  not taken the request's epoch.
- `hw-truncation-above-divergence`: HW truncation kept, below the follower's HW, a record the
  leader no longer has at that offset. Culprits: the step at which the replica holding the
  newer of the two records lost the other one (or, if it never had it, the step at which the
  other one was written), and the step at which the newer one was written.
- `epoch-lookup-above-divergence`: KIP-101 asked the leader where the epoch of the
  follower's last record ends; the leader never had that epoch and answered with the start of
  a later one, above the offset where the logs part. Culprits as for the previous kind.
- `unflushed-tail-lost-in-crash`: a crash dropped records not yet flushed (flush=async).
  Culprit: the step that committed (or acknowledged) the record while it had no other copy.
- `last-replica-standing` (KIP-966's motivation): the leader lost a committed record in an
  unclean shutdown (flush=async) and was re-elected as the last ISR member. Either it had
  committed the record alone in an ISR below min.insync.replicas (before Kafka 3.7, whose
  strict min-ISR rule refuses that commitment), or the record was committed with the ISR at
  min.insync.replicas and the ISR then shrank to the leader (the story KIP-966's eligible
  leader replicas answer). Culprits: that commitment and the re-election.
- `unclean-election`: the controller elected a replica outside the ISR. Culprit: the step at
  which the record was committed without that replica.
- `acked-before-replicated`: with acks=1 the leader acknowledged a write no follower had, then
  another replica was elected. Culprit: the acknowledgement.
- `new-leader-hw-behind`: a new leader starts with a HW below the one consumers have already
  seen (KAFKA-2334). Culprits: the step at which consumers saw the higher HW, and the election.
- `earlier-epoch-counted`: under a majority quorum without Raft's own-epoch rule, a leader
  counted a record of an earlier epoch as committed once a majority held it; a replica whose
  log ends in a later epoch, without that record, could still win a majority's votes (the Raft
  paper's Figure 8). Culprits: that commitment, and the write of the winner's record at the
  same offset.
- `retry-behind-later-record`: with max.in.flight above 1, the producer sent a record while an
  earlier one was unanswered; the earlier one failed and its retry was appended behind the
  later one. Culprits: the later record's send and append, the failure and the retry.
- `retry-after-lost-answer`: a leader appended a record, its answer was lost, and the retry
  was appended again (no idempotence). Culprits: the first append, the failure, the retry.
- `isr-join-on-stale-position` (KAFKA-14139): the leader added a follower to the ISR on the
  position a FETCH reported, though the follower had since lost records below the HW (a crash
  of its page cache, an empty disk, a truncation). Culprits: the FETCH the leader counted and
  the step at which the follower lost the record. (A follower that holds another record there
  is diagnosed as the divergence it is.)
- `leaderless`: the controller has no leader (the specification's LeaderInIsr fails then).

The `kraft` model's causes (`unflushed-tail-lost-in-crash`, `vote-after-lost-disk`) are found
by `traces.kraft_causes`.
"""

from __future__ import annotations

from model.spec.state import members

from . import history
from .cause import Cause, Culprit, Damage, Diagnosis
from .culprits import Trail, divergence_culprits, hw_source, stale_culprits, truncation_damage, write
from .culprits import commit as commit_of
from .partition import NONE, cross_epoch_fetches, holds_at, partition_views
from .producer_causes import duplicated, reordered
from .trace import Trace

__all__ = ["Cause", "Culprit", "Damage", "Diagnosis", "diagnose"]


def diagnose(trace: Trace) -> Diagnosis | None:
    """The cause of the trace's failure, or None when the trace shows none of the known kinds
    of damage for its invariant (a model without a replicated log, a replay that ends with
    the invariant holding, or a failure of another kind)."""
    if trace.model == "kraft":
        from .kraft_causes import diagnose as kraft

        return kraft(trace)
    views = partition_views(trace)
    finder = _FINDERS.get((trace.model, trace.invariant))
    if views is None or finder is None:
        return None
    return finder(Trail(trace, views, cross_epoch_fetches(trace, views)))


def _isr_gap(trail: Trail) -> Diagnosis | None:
    """weak-isr / strong-isr: a presumed leader's record below its HW that an ISR member lacks."""
    last = trail.views[-1]
    strong = trail.trace.invariant == "strong-isr"
    for ldr, lead in enumerate(last.replicas):
        if not last.leads(ldr):
            continue
        for m in members(last.isr if strong else lead.isr):
            for offset in range(min(lead.hw, lead.leo)):
                if m != ldr and not holds_at(last, m, offset, lead.log[offset]):
                    return _lost_or_kept(trail, m, ldr, offset, lead.log[offset])
    return None


def _lost_or_kept(trail: Trail, r: int, ldr: int, offset: int, record) -> Diagnosis | None:
    """Replica r lacks the leader's `record`: it lost it, or it keeps another record there."""
    k = history.loss(trail.views, r, offset, record, len(trail.views) - 1)
    if k is not None:
        return _lost(trail, r, offset, record, k)
    return _kept(trail, {r, ldr}, offset)


def _missing_from_leader(trail: Trail) -> Diagnosis | None:
    """committed-survives / acked-survives: a record the true leader's log lacks."""
    last, n = trail.views[-1], len(trail.views) - 1
    x = last.true_leader()
    promised = last.committed if trail.trace.invariant == "committed-survives" else last.acked
    for offset, record in promised if x != NONE else ():
        if holds_at(last, x, offset, record):
            continue
        k = history.loss(trail.views, x, offset, record, n)
        if k is not None:
            return _lost(trail, x, offset, record, k)
        return _elected_without(trail, x, offset, record)
    return None


def _lost(trail: Trail, r: int, offset: int, record, k: int) -> Diagnosis | None:
    """Replica r lost `record` at step k: a truncation on becoming follower, or a crash."""
    views, kind = trail.views, trail.action(k)[0]
    commit = commit_of(trail, offset, record, k - 1)
    if kind == "Crash" and offset >= views[k - 1].replicas[r].flushed:
        damage = Damage(k, "lost", r, offset=offset, record=record)
        return _crash_loss(trail, damage, commit)
    if kind != "BecomeFollower":
        return None
    damage = truncation_damage(trail, k, "lost", offset, record)
    if damage.truncation.rule == "hw" and commit is not None:
        return trail.found(Cause.TRUNCATION_TO_LAGGING_HW, damage, [commit], commit)
    if damage.stale_since is not None:
        return trail.found(Cause.STALE_LEADER_AND_ISR, damage, stale_culprits(trail, r, offset, record, k), commit)
    if damage.truncation.undefined_answer() and commit is not None:
        return trail.found(Cause.UNDEFINED_EPOCH_ANSWER, damage, [commit], commit)
    return None


def _crash_loss(trail: Trail, damage: Damage, commit: Culprit | None) -> Diagnosis:
    """Replica r lost a committed record's unflushed copy in a crash: if r was then re-elected
    after committing alone in an ISR below min.insync.replicas, or (with min.insync.replicas
    above 1, a promise of more than one copy) as the ISR's last member, it is Last Replica
    Standing."""
    views, r, n = trail.views, damage.replica, len(trail.views) - 1
    elected = history.election(views, r, n)
    if commit is None or elected is None or elected < damage.step or views[n].true_leader() != r:
        return trail.found(Cause.UNFLUSHED_TAIL_LOST_IN_CRASH, damage, [commit], commit)
    election = Culprit(elected, "election", r, epoch=views[elected].epoch)
    at_commit = views[commit.step]
    minimum = trail.trace.bounds.get("min_insync_replicas", 1)
    alone_at_commit = len(list(members(at_commit.replicas[commit.replica].isr))) < minimum
    if alone_at_commit or (minimum > 1 and list(members(views[elected].isr)) == [r]):
        return trail.found(Cause.LAST_REPLICA_STANDING, damage, [commit, election], commit)
    return trail.found(Cause.UNFLUSHED_TAIL_LOST_IN_CRASH, damage, [commit], commit)


def _kept(trail: Trail, pair: set, offset: int) -> Diagnosis | None:
    """The last truncation between the two replicas of `pair` that kept, at `offset`, a record
    other than the leader's: the one the leader had there then, or, where its log ended below
    `offset`, the one it wrote there later."""
    views = trail.views
    for k in range(len(views) - 1, 0, -1):
        kind, *args = trail.action(k)
        if kind != "BecomeFollower" or {args[0], args[1]} != pair:
            continue
        f, ldr = args[0], args[1]
        after = views[k]
        leader = after.replicas[ldr] if offset < after.replicas[ldr].leo else views[-1].replicas[ldr]
        if offset >= min(after.replicas[f].leo, leader.leo):
            continue
        kept, theirs = after.replicas[f].log[offset], leader.log[offset]
        if kept == theirs:
            continue
        damage = truncation_damage(trail, k, "kept", offset, kept)._replace(peer_record=theirs)
        if damage.truncation.rule == "hw":
            return trail.found(Cause.HW_TRUNCATION_ABOVE_DIVERGENCE, damage, divergence_culprits(trail, damage))
        if damage.stale_since is not None:
            return trail.found(Cause.STALE_LEADER_AND_ISR, damage, stale_culprits(trail, f, offset, kept, k))
        if damage.truncation.undefined_answer():  # it kept its HW, above where the logs part
            return trail.found(Cause.UNDEFINED_EPOCH_ANSWER, damage,
                               [*divergence_culprits(trail, damage), hw_source(trail, f, k)])
        if damage.truncation.rule == "kip101":
            return trail.found(Cause.EPOCH_LOOKUP_ABOVE_DIVERGENCE, damage, divergence_culprits(trail, damage))
        if damage.truncation.walk_cut_short() is not None:
            return trail.found(Cause.EPOCH_WALK_CUT_SHORT, damage, divergence_culprits(trail, damage))
        return None
    return None


def _divergence(trail: Trail) -> Diagnosis | None:
    """no-divergence: two live replicas in one epoch that differ below both of their HWs."""
    last = trail.views[-1]
    reps = last.replicas
    for a in range(len(reps)):
        for b in range(a + 1, len(reps)):
            if not (reps[a].alive and reps[b].alive and reps[a].epoch == reps[b].epoch >= 0):
                continue
            for offset in range(min(reps[a].hw, reps[b].hw, reps[a].leo, reps[b].leo)):
                if reps[a].log[offset] != reps[b].log[offset]:
                    return _kept(trail, {a, b}, offset)
    return None


def _elected_without(trail: Trail, x: int, offset: int, record) -> Diagnosis | None:
    """The true leader x never held the record: the election that chose it."""
    views = trail.views
    k = history.election(views, x, len(views) - 1)
    if k is None:
        return None
    before = views[k - 1]
    damage = Damage(k, "elected", x, before.leader, offset, record)
    commit = commit_of(trail, offset, record, k - 1)
    if x in members(before.elr):
        joined = max(j for j in range(1, k) if x in members(views[j].elr) and x not in members(views[j - 1].elr))
        left = Culprit(joined, "left-isr", x)
        return trail.found(Cause.ELR_MEMBER_WITHOUT_RECORD, damage, [commit, left] if commit else [left], commit)
    if x not in members(before.isr):
        return trail.found(Cause.UNCLEAN_ELECTION, damage, [commit], commit)
    winner = views[k].replicas[x]
    if commit is not None and record.epoch < views[commit.step].replicas[commit.replica].epoch and offset < winner.leo:
        return trail.found(Cause.EARLIER_EPOCH_COUNTED, damage, [commit, write(trail, offset, winner.log[offset])],
                           commit)
    ack = history.acknowledgement(views, offset, record)
    if commit is None and ack is not None:
        writer = next(r for r in range(len(views[ack].replicas)) if holds_at(views[ack], r, offset, record))
        return trail.found(Cause.ACKED_BEFORE_REPLICATED, damage,
                               [Culprit(ack, "ack", writer, record=record, offset=offset)])
    return None


def _hw_behind(trail: Trail) -> Diagnosis | None:
    """hw-monotonic: the true leader's HW is below the highest HW consumers have seen."""
    views = trail.views
    last = views[-1]
    x = last.true_leader()
    if x == NONE or last.replicas[x].hw >= last.consumer_hw:
        return None
    k = max((j for j in range(1, len(views)) if trail.action(j)[:2] == ("BecomeLeader", x)), default=None)
    if k is None:
        return None
    seen = next(j for j in range(1, len(views)) if views[j].consumer_hw == last.consumer_hw)
    committer = next(r for r in range(len(views[seen].replicas))
                     if views[seen].leads(r) and views[seen].replicas[r].hw == last.consumer_hw)
    restarts = [j for j in range(seen + 1, k) if trail.action(j) == ("Restart", x)]
    damage = Damage(k, "hw-behind", x, committer, hw=views[k].replicas[x].hw, peer_hw=last.consumer_hw,
                    restarted=restarts[-1] if restarts else None)
    election = history.election(views, x, k)
    culprits = [Culprit(seen, "commit", committer, hw=last.consumer_hw),
                Culprit(election, "election", x, epoch=views[election].epoch) if election else None]
    return trail.found(Cause.NEW_LEADER_HW_BEHIND, damage, culprits)


def _stale_join(trail: Trail) -> Diagnosis | None:
    """isr-join-caught-up: the last step added a follower to the ISR that lacks a record below
    the leader's HW; find the FETCH whose position the leader counted and the later loss."""
    views, k = trail.views, len(trail.views) - 1
    action = trail.action(k)
    if action[0] not in ("LeaderExpandIsr", "LeaderServeFetch"):  # a join of its own, or while serving a FETCH
        return None
    ldr, f = action[1], action[2]
    lead = views[k].replicas[ldr]
    offset = next((o for o in range(min(lead.hw, lead.leo)) if not holds_at(views[k], f, o, lead.log[o])), None)
    if offset is None:
        return None
    record = lead.log[offset]
    served = [j for j in range(1, k + 1) if trail.action(j) == ("LeaderServeFetch", ldr, f)]
    lost = history.loss(views, f, offset, record, k)
    if lost is None:  # it never had the leader's record there: the two logs diverged
        kept = _kept(trail, {f, ldr}, offset)
        if kept is not None:
            return kept
        mine = views[k].replicas[f].log[offset]  # the leader once held the follower's record and lost it
        dropped = history.loss(views, ldr, offset, mine, k)
        return _lost(trail, ldr, offset, mine, dropped) if dropped is not None else None
    if not served:
        return None
    position = views[served[-1] - 1].replicas[f].leo
    damage = Damage(k, "joined", f, ldr, offset=offset, record=record, hw=lead.hw)
    culprits = [Culprit(served[-1], "reported", f, ldr, offset=position),
                Culprit(lost, "loss", f, record=record, offset=offset)]
    return trail.found(Cause.ISR_JOIN_ON_STALE_POSITION, damage, culprits)


def _leaderless(trail: Trail) -> Diagnosis | None:
    """leader-in-isr as the specification writes it: the controller has no leader."""
    if trail.views[-1].leader != NONE:
        return None
    return trail.found(Cause.LEADERLESS, Damage(history.leaderless_since(trail.views), "leaderless", NONE))


_FINDERS = {
    ("spec", "strong-isr"): _isr_gap, ("spec", "weak-isr"): _isr_gap, ("spec", "leader-in-isr"): _leaderless,
    ("fetch", "strong-isr"): _isr_gap, ("fetch", "weak-isr"): _isr_gap,
    ("fetch", "committed-survives"): _missing_from_leader, ("fetch", "acked-survives"): _missing_from_leader,
    ("fetch", "no-divergence"): _divergence, ("fetch", "hw-monotonic"): _hw_behind,
    ("fetch", "in-order"): reordered, ("fetch", "no-duplicates"): duplicated,
    ("fetch", "isr-join-caught-up"): _stale_join,
}
"""Where each invariant's damage is looked for."""
