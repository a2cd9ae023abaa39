"""A plain-language account of a counterexample for a protocol engineer: which step broke the
invariant, which step lost or diverged the record and why its truncation point or election
came out that way, the earlier steps that made it wrong, and what the later protocol
versions change. The analysis is `traces.diagnosis`; this module only words it. A witness's
trace is no counterexample: its account says where the witness is reached and what that means."""

from __future__ import annotations

from invariants.registry import invariants_for
from model.registry import MODELS
from model.spec.state import members
from model.spec.words import isr_text, record_letter, record_name
from model.spec.words import replica_name as name

from .diagnosis import Cause, Diagnosis, diagnose
from .lanes import losses
from .partition import holds_at
from .trace import Trace
from .wording import STEP_NAME, Page, culprit_line, kept_line, log_words, lost_line, truncation_reason

TITLES = {
    Cause.TRUNCATION_TO_LAGGING_HW: "truncation to the follower's own HW, which lagged the leader's",
    Cause.STALE_LEADER_AND_ISR: "a stale LeaderAndIsr request, acted on with no epoch fencing",
    Cause.HW_TRUNCATION_ABOVE_DIVERGENCE: "HW truncation kept a record the leader does not have",
    Cause.EPOCH_LOOKUP_ABOVE_DIVERGENCE: "KIP-101's epoch lookup answered above the point where the logs part",
    Cause.EPOCH_WALK_CUT_SHORT: "Kafka 2.0's epoch walk stopped above the point where the logs part",
    Cause.UNDEFINED_EPOCH_ANSWER: "the new leader could not place the follower's epoch, and the follower truncated "
                                  "to its own HW",
    Cause.UNFLUSHED_TAIL_LOST_IN_CRASH: "an unflushed log tail lost in a crash",
    Cause.LAST_REPLICA_STANDING: "the last ISR member lost committed records in an unclean shutdown and was "
                                 "re-elected (Last Replica Standing)",
    Cause.UNCLEAN_ELECTION: "an unclean leader election",
    Cause.ELR_MEMBER_WITHOUT_RECORD: "an eligible leader replica elected without a committed record",
    Cause.ACKED_BEFORE_REPLICATED: "a write acknowledged with acks=1 before any follower had it",
    Cause.NEW_LEADER_HW_BEHIND: "a new leader whose HW is behind the one consumers have seen",
    Cause.EARLIER_EPOCH_COUNTED: "a majority counted for a record of an earlier epoch (Raft's Figure 8)",
    Cause.RETRY_BEHIND_LATER_RECORD: "a failed record retried behind one the producer sent after it",
    Cause.RETRY_AFTER_LOST_ANSWER: "a retry appended again after the answer to the first append was lost",
    Cause.ISR_JOIN_ON_STALE_POSITION: "a follower added to the ISR on a position it no longer holds",
    Cause.VOTE_AFTER_LOST_DISK: "a voter that lost its disk voted again, for a candidate without the record",
    Cause.VOTER_SETS_WITHOUT_COMMON_MAJORITY: "two voter sets in force with no majority in common (uncommitted "
                                              "voter changes)",
    Cause.VOTE_FORGOTTEN_IN_EPOCH: "a voter forgot its vote within an epoch and voted again, for a second leader",
    Cause.LEADERLESS: "the partition has no leader",
}
"""Each cause kind in a few words, for the line that names it."""


def explain(trace: Trace, model) -> list[str]:
    """Sentences explaining the trace, most important first: the failing step and what the
    failure means, the cause, the step that did the damage and why, its culprits, the fix. For
    a witness: the step that reaches it and what reaching it means."""
    return [sentence for sentence, _ in explain_steps(trace, model)]


def explain_steps(trace: Trace, model) -> list[tuple[str, tuple[int, ...]]]:
    """The sentences of `explain`, each with the steps it is about: the steps it names (`step 7
    (...)`); the first sentence, and a witness's every sentence, are about the last step too
    (where the invariant fails or the witness is reached). With a diagnosis, every other
    sentence but a culprit step's own (the cause, how the damaging step chose what it chose, the
    fix) is about the damage, so also about the step that did it (`blamed_step`)."""
    invariant = invariants_for(trace.model)[trace.invariant]
    last = len(trace)
    if invariant.witness:
        return [(line, _about(line, last)) for line in _reached(trace, invariant, model)]
    if not trace.steps:
        head = f"The initial state already violates {trace.invariant}: {invariant.summary}."
    else:
        page = Page(trace, model)
        head = f"Step {last} ({page.words[-1]}) makes {trace.invariant} fail. " + _consequence(invariant.meaning)
    lead = [(head, _about(head, last))]
    switches = MODELS[trace.model].switches(trace.variant) if trace.model in MODELS else ""
    if switches:
        lead.append((f"Found under {trace.variant}, {switches}.", ()))
    diagnosis = diagnose(trace)
    if diagnosis is None:
        return lead + [(line, _about(line)) for line in ([] if not trace.steps else _undiagnosed(page))]
    cause = f"Cause: {TITLES[diagnosis.kind]} ({diagnosis.kind.value})."
    if diagnosis.kind is Cause.LEADERLESS:
        return lead + [(line, _about(line, diagnosis.step)) for line in (cause, _leaderless(diagnosis))]
    if trace.model == "kraft":
        from . import kraft_causes

        own = {kraft_causes.culprit_line(c, page) for c in diagnosis.culprits}
        lines = [cause] + kraft_causes.render(diagnosis, page)
    else:
        own = {culprit_line(c, page) for c in diagnosis.culprits}
        lines = [cause] + _RENDER[diagnosis.kind](diagnosis, page)
    return lead + [(line, _about(line) if line in own else _about(line, diagnosis.step)) for line in lines]


def _about(sentence: str, *steps: int) -> tuple[int, ...]:
    """`steps`, then the steps the sentence names, each once."""
    return tuple(dict.fromkeys([*steps, *(int(m.group(1)) for m in STEP_NAME.finditer(sentence))]))


def blamed_step(trace: Trace) -> int:
    """The step the explanation blames: the one that did the damage (lost or diverged the
    record, elected a replica without it, lowered the HW; for kip101's and kip279's stale
    LeaderAndIsr traces the truncation under the stale request), or, when no cause is found
    and for a witness, the last step (where the invariant fails or the witness is reached)."""
    diagnosis = None if invariants_for(trace.model)[trace.invariant].witness else diagnose(trace)
    return len(trace) if diagnosis is None else diagnosis.step


def _reached(trace: Trace, witness, model) -> list[str]:
    """Where the witness is reached, and what reaching it means (the last paragraph of its
    docstring)."""
    where = f"Step {len(trace)} ({Page(trace, model).words[-1]})" if trace.steps else "The initial state"
    return [f"{where} reaches {trace.invariant}: {witness.summary}.",
            " ".join(witness.meaning.split("\n\n")[-1].split())]


def _consequence(meaning: str) -> str:
    """The first clause of what a failure means, from the invariant's docstring (the rest may
    name one cause, which the diagnosis words for this trace)."""
    text = " ".join(meaning.split("\n\n")[-1].split())
    cut = min((i for i in (text.find(": "), text.find(". ")) if i >= 0), default=len(text.rstrip(".")))
    return text[:cut] + "."


def _lost_to_own_hw(d: Diagnosis, page: Page, reason: str, closing: list[str]) -> list[str]:
    """A committed record dropped by a truncation to the follower's own HW: the loss, `reason`
    (why the follower kept only its HW), the culprits, then `closing` (what fixed it)."""
    return [lost_line(d, page), reason] + [culprit_line(x, page) for x in d.culprits] + closing


def _lagging_hw(d: Diagnosis, page: Page) -> list[str]:
    """A committed record dropped by truncation to the follower's own, lagging HW."""
    dmg, c = d.damage, d.commit
    who = name(dmg.replica)
    reason = (f"{who}'s own HW was {dmg.hw}, lagging {name(c.replica)}'s HW of {c.hw}: the follower had not yet "
              f"learned that offset {dmg.offset} was committed (a follower learns the HW only from a later fetch), "
              f"and before Kafka 0.11 a replica becoming follower truncates its log to its own HW, here offset "
              f"{dmg.truncation.point}.")
    closing = []
    if dmg.stale_since is not None:
        closing.append(f"The LeaderAndIsr request {who} acted on was already stale: the controller had moved past its "
                       f"epoch at {page.step(dmg.stale_since)}. That changes nothing here: HW truncation never consults "
                       f"the leader, so any LeaderAndIsr would have truncated {who} to its HW {dmg.hw}.")
    closing.append("KIP-101 removes this: the follower asks the leader where the epoch of its last record ends "
                   "(OffsetsForLeaderEpoch) and truncates there, not at its own HW.")
    return _lost_to_own_hw(d, page, reason, closing)


def _undefined_answer(d: Diagnosis, page: Page) -> list[str]:
    """A committed record dropped, or a record kept above where the logs part, because the leader
    answered UNDEFINED_EPOCH_OFFSET (Kafka 0.11 to 2.0) and the follower fell back to its own HW."""
    dmg, c = d.damage, d.commit
    who, ldr, t = name(dmg.replica), name(dmg.peer), dmg.truncation
    epochs = ", ".join(f"e{e}" for e, _ in t.leader_cache) or "none"
    if dmg.effect == "kept":
        return _kept_below_own_hw(d, page, epochs)
    reason = (f"{who} asked {ldr} where epoch {t.asked_epoch}, its latest, ends. {ldr}'s cache could not place it "
              f"(its epochs: {epochs}): before 2.0.1 a new leader starts its epoch in its cache only at its first "
              f"append there, so {ldr} answered UNDEFINED_EPOCH_OFFSET, and {who} truncated to its own HW {dmg.hw}, "
              f"lagging {name(c.replica)}'s HW of {c.hw}.")
    return _lost_to_own_hw(d, page, reason, [
        "KAFKA-7415 (Kafka 2.0.1 and 2.1) removes this: a broker starts its epoch in its cache when it becomes "
        "leader, so the follower's epoch is always placed and the walk finds where the logs part."])


def _kept_below_own_hw(d: Diagnosis, page: Page, epochs: str) -> list[str]:
    """A follower that kept its own HW on an UNDEFINED_EPOCH_OFFSET answer, above the offset where
    its log and the leader's part; the HW may have come from a leader of another epoch."""
    dmg, t = d.damage, d.damage.truncation
    who, ldr = name(dmg.replica), name(dmg.peer)
    first = t.leader_cache[0][0] if t.leader_cache else None
    where = (f"below {ldr}'s first epoch, e{first}" if first is not None and t.asked_epoch < first else
             f"above {ldr}'s latest epoch (before 2.0.1 a new leader starts its epoch in its cache only at its first "
             f"append there)" if t.leader_cache else f"in {ldr}'s empty cache")
    lines = [kept_line(d, page),
             f"Why offset {t.point}: {who} asked {ldr} where epoch {t.asked_epoch}, its latest, ends; that epoch is "
             f"{where} (its epochs: {epochs}), so Kafka 0.11 to 2.0.0 answer UNDEFINED_EPOCH_OFFSET, and {who} kept "
             f"everything below its own HW, {dmg.hw}."]
    lines += [culprit_line(x, page) for x in d.culprits]
    fixes = ["KAFKA-7415 (Kafka 2.0.1 and 2.1) removes this: a leader starts its epoch in its cache when it becomes "
             "leader, and an epoch below its first is answered with the first's start, so the follower truncates "
             "where the logs part"]
    if any(x.role == "cross-epoch-hw" for x in d.culprits):
        fixes.append("KIP-320 (Kafka 2.1) fences the FETCH that carried the HW across epochs")
    return lines + ["; ".join(fixes) + "."]


def _stale(d: Diagnosis, page: Page) -> list[str]:
    """A record lost or kept by truncating against the leader named in a superseded request."""
    dmg = d.damage
    r, ldr, epoch = name(dmg.replica), name(dmg.peer), page.trace.steps[dmg.step - 1].action[3]
    before = page.views[dmg.step - 1]
    theirs = before.replicas[dmg.peer]
    led = theirs.leader == dmg.peer and theirs.epoch == epoch
    standing = f"leads epoch {epoch}" if led else f"had never become leader of epoch {epoch}"
    lines = [lost_line(d, page) if dmg.effect == "lost" else kept_line(d, page),
             f"The LeaderAndIsr request {r} acted on, epoch {epoch} naming {ldr} leader, was stale: the controller had "
             f"moved past epoch {epoch} at {page.step(dmg.stale_since)}. It was still newer than {r}'s own epoch "
             f"{before.replicas[dmg.replica].epoch}, so {r} accepted it and truncated against {ldr}, which "
             f"{standing} and whose log is {log_words(theirs.log)}.",
             truncation_reason(d)]
    lines += [culprit_line(x, page) for x in d.culprits]
    fences = [f"{name(c.peer)} would have refused the FETCH at step {c.step}" for c in d.culprits
              if c.role == "cross-epoch-fetch"]
    if not led:
        fences.append(f"{ldr}, not leader of epoch {epoch}, would have refused {r}'s OffsetsForLeaderEpoch at step "
                      f"{dmg.step}")
    refusals = ": " + ", and ".join(fences) if fences else ""
    lines.append("KIP-320 fencing removes this: every FETCH and OffsetsForLeaderEpoch carries the follower's current "
                 f"leader epoch, and a leader in another epoch refuses it{refusals}.")
    return lines


def _above_divergence(d: Diagnosis, page: Page) -> list[str]:
    """A truncation that stopped above the offset where the follower's and leader's logs part."""
    lines = [kept_line(d, page), truncation_reason(d)]
    lines += [culprit_line(x, page) for x in d.culprits]
    if d.kind is Cause.HW_TRUNCATION_ABOVE_DIVERGENCE:
        lines.append("Leader-epoch truncation (KIP-101) asks the leader where the follower's last epoch ends instead "
                     "of trusting the HW.")
    elif d.kind is Cause.EPOCH_WALK_CUT_SHORT:
        lines.append("KAFKA-7415 (Kafka 2.0.1 and 2.1) fixes this: a cache asked about an epoch below its first answers "
                     "with the start of its first epoch, so the walk goes on to where the logs really part.")
    else:
        lines.append("KIP-279 fixes this: the leader also names the largest epoch it has at or below the one asked, "
                     "and the two walk back epoch by epoch to the offset where their logs really part (in 2.0.0 the "
                     "walk could still stop early: KAFKA-7415, fixed in 2.0.1 and 2.1).")
    return lines


def _unflushed(d: Diagnosis, page: Page) -> list[str]:
    """A committed record lost with the page cache of its only holder."""
    dmg, c, bounds = d.damage, d.commit, page.trace.bounds
    kept = page.views[dmg.step - 1].replicas[dmg.replica].flushed
    flushed = "none of its records were" if kept == 0 else f"only its first {kept} records were"
    lines = [lost_line(d, page),
             f"With flush=async, {flushed} on disk: the crash dropped the rest of {name(dmg.replica)}'s log, which "
             f"lived in the page cache."]
    if c is not None:
        view = page.views[c.step]
        others = [r for r in range(len(view.replicas))
                  if r != dmg.replica and holds_at(view, r, dmg.offset, dmg.record)]
        copies = "no other replica held it" if not others else "it was also on " + ", ".join(map(name, others))
        acked = " and the write acknowledged" if (dmg.offset, dmg.record) in view.acked else ""
        lines.append(f"The record became committed{acked} at {page.step(c.step)} while {copies}: the ISR was "
                     f"{isr_text(view.replicas[c.replica].isr)}.")
    fixes = []
    if bounds.get("flush") == "async":
        fixes.append("with flush=sync the record would have survived the crash")
    if bounds.get("min_insync_replicas") == 1:
        fixes.append("with min.insync.replicas=2 a write to an ISR of one is not acknowledged")
    if fixes:
        lines.append("Leader epochs cannot help when the only copy is lost; " + ", and ".join(fixes) + ".")
    return lines


def _last_standing(d: Diagnosis, page: Page) -> list[str]:
    """KIP-966's Last Replica Standing: a leader that is the ISR's last member loses committed
    records in an unclean shutdown and comes back as the only electable replica; it either
    committed them alone (below min.insync.replicas, before Kafka 3.7) or with the ISR at
    min.insync.replicas, which then shrank to it."""
    dmg, c, bounds = d.damage, d.commit, page.trace.bounds
    who, view, minimum = name(dmg.replica), page.views[d.commit.step], bounds.get("min_insync_replicas")
    isr_then = view.replicas[c.replica].isr
    elected = page.step(d.culprits[-1].step)
    lost = (f"Its unclean shutdown at step {dmg.step} dropped the unflushed tail (flush=async), and the controller "
            f"re-elected it, the ISR's last member, at {elected}: every replica that follows it truncates to its "
            f"shorter log, and the committed record is gone everywhere.")
    if len(list(members(isr_then))) < (minimum or 1):
        return [lost_line(d, page),
                f"At {page.step(c.step)} {who} was the last member of the ISR {isr_text(isr_then)}, below "
                f"min.insync.replicas={minimum}, and still advanced its HW to {c.hw}: {record_name(dmg.record)} "
                f"became committed with {who} the only replica known to hold it.",
                lost,
                "Kafka 3.7's strict min-ISR rule (kafka37) keeps the HW still while the ISR is below "
                "min.insync.replicas, so the record is never committed; KIP-966 (kip966) then keeps the replicas "
                "that left the ISR as eligible leaders, which hold every committed record, and removes a replica "
                "that registers after an unclean shutdown from the ISR and the ELR."]
    others = ", ".join(name(x) for x in members(isr_then) if x != dmg.replica) or "another replica"
    return [lost_line(d, page),
            f"{record_name(dmg.record)} was committed at {page.step(c.step)} with the ISR {isr_text(isr_then)} at "
            f"min.insync.replicas={minimum}, so {others} held it too; then the ISR shrank to {who} alone (a follower "
            f"that falls behind leaves it, whatever it holds).",
            lost,
            "The controller elects only ISR members without unclean election, and keeps the last one; KIP-966 "
            "(kip966) keeps the replicas that left the ISR while it was below min.insync.replicas as eligible "
            "leaders, which hold every committed record, and removes a replica that registers after an unclean "
            "shutdown from the ISR and the ELR, so an eligible leader holding the record is elected instead."]


def _elected(d: Diagnosis, page: Page) -> list[str]:
    """A leader elected without a record: out of the ISR, or the record was only acknowledged."""
    dmg = d.damage
    before = page.views[dmg.step - 1]
    lines = [f"At step {dmg.step}, the controller made {name(dmg.replica)} leader although its log lacks "
             f"{record_name(dmg.record)} at offset {dmg.offset}: {page.words[dmg.step]}."]
    if d.kind is Cause.UNCLEAN_ELECTION:
        lines.append(f"{name(dmg.replica)} was not in the ISR {isr_text(before.isr)}: with "
                     f"unclean.leader.election.enable the controller may elect an out-of-sync replica when no ISR "
                     f"member is available, and every record it lacks is lost.")
    else:
        lines.append(f"{name(dmg.replica)} was a clean choice (in the ISR {isr_text(before.isr)}), but the record had "
                     f"never been committed: with acks=1 the leader acknowledges a write as soon as it appends it, "
                     f"before any follower has copied it.")
    return lines + [culprit_line(x, page) for x in d.culprits]


def _elr_elected(d: Diagnosis, page: Page) -> list[str]:
    """KIP-966's ELR election of a replica that lacks a committed record: it left the ISR before
    the record was committed, which the strict min-ISR HW rule forbids."""
    dmg = d.damage
    before = page.views[dmg.step - 1]
    minimum = page.trace.bounds.get("min_insync_replicas", 1)
    rules = MODELS[page.trace.model].rules.resolve(page.trace.variant).choices
    how = ("under hw-advance=plain the leader advances its HW whatever its ISR's size" if rules["hw-advance"] == "plain"
           else "the HW advanced after it had left")
    return [f"At step {dmg.step}, the controller made {name(dmg.replica)} leader although its log lacks "
            f"{record_name(dmg.record)} at offset {dmg.offset}: {page.words[dmg.step]}.",
            f"{name(dmg.replica)} was an eligible leader replica (ELR {isr_text(before.elr)}), which KIP-966 lets the "
            f"controller elect when no ISR member can lead. An ELR member holds every committed record only if "
            f"nothing is committed while the ISR is below min.insync.replicas={minimum} (KAFKA-15583, rule "
            f"hw-advance=strict-min-isr); here {record_name(dmg.record)} became committed after "
            f"{name(dmg.replica)} had left the ISR: {how}.",
            *(culprit_line(c, page) for c in d.culprits)]


def _earlier_epoch(d: Diagnosis, page: Page) -> list[str]:
    """A majority quorum without Raft's own-epoch rule: a record of an earlier epoch committed
    on a majority, then a replica without it elected by a majority."""
    dmg, commit = d.damage, d.commit
    at_commit = page.views[commit.step]
    leader_epoch = at_commit.replicas[commit.replica].epoch
    winner = page.views[dmg.step].replicas[dmg.replica]
    rec, other = record_name(dmg.record), record_name(winner.log[dmg.offset])
    holders = [name(r) for r in range(len(at_commit.replicas)) if holds_at(at_commit, r, dmg.offset, dmg.record)]
    return [f"At step {dmg.step}, {name(dmg.replica)} won the election although its log has {other}, not {rec}, at "
            f"offset {dmg.offset}: {page.words[dmg.step]}.",
            f"{name(commit.replica)}, leading epoch {leader_epoch}, counted {rec} as committed at "
            f"{page.step(commit.step)} because a majority ({', '.join(holders)}) held it, although {rec} is a record "
            f"of epoch {dmg.record.epoch}.",
            f"A majority holding a record of an earlier epoch does not keep it from being overwritten: "
            f"{name(dmg.replica)}'s last record, {other}, is of a later epoch than {rec}, so a replica holding {rec} "
            f"still votes for it (a log is more up to date when its last record's epoch is higher).",
            *(culprit_line(c, page) for c in d.culprits if c.role != "commit"),
            "Raft's rule (--quorum majority) removes this: a leader counts a majority only for a record of its own "
            "epoch, and earlier records are committed with it. A replica holding that record of the leader's epoch "
            "refuses its vote to every log that lacks it, and any majority includes such a replica."]


def _reordered(d: Diagnosis, page: Page) -> list[str]:
    """A retried record appended behind a record the producer sent after it."""
    dmg, bounds = d.damage, page.trace.bounds
    rec, later = record_name(dmg.record), record_name(dmg.peer_record)
    window = bounds.get("max_in_flight")
    return [f"At step {dmg.step}, {name(dmg.replica)} appended {rec} at offset {dmg.offset}, behind {later}, which the "
            f"producer sent after it: {page.words[dmg.step]}.",
            f"With max.in.flight.requests.per.connection={window} the producer sends a new record while earlier ones "
            f"are unanswered. A record that fails keeps its place in that window, but later records may reach the "
            f"leader before its retry does, and the leader appends records in the order they arrive.",
            *(culprit_line(c, page) for c in d.culprits),
            f"max.in.flight.requests.per.connection=1 keeps the order: nothing new is sent while a record is "
            f"unanswered or failed. The idempotent producer (KIP-98, --idempotence) keeps it with more in flight: "
            f"the leader refuses sequence {dmg.peer_record.id} while sequence {dmg.record.id} is missing "
            f"(OUT_OF_ORDER_SEQUENCE_NUMBER), so {record_letter(dmg.peer_record.id)} is retried after "
            f"{record_letter(dmg.record.id)}."]


def _duplicated(d: Diagnosis, page: Page) -> list[str]:
    """A record appended a second time by a retry whose first append had succeeded."""
    dmg = d.damage
    original = next(c for c in d.culprits if c.role == "write")
    return [f"At step {dmg.step}, {name(dmg.replica)} appended {record_name(dmg.record)} at offset {dmg.offset} "
            f"although its log already held the same producer record, {record_name(dmg.peer_record)}, at offset "
            f"{original.offset}: {page.words[dmg.step]}.",
            "The first append succeeded, but its answer never reached the producer, which cannot tell a lost "
            "answer from a lost request and sends the record again. Without idempotence the leader appends "
            "whatever it receives.",
            *(culprit_line(c, page) for c in d.culprits),
            f"The idempotent producer (KIP-98, --idempotence) removes this: the leader keeps the producer's last "
            f"sequence number with its log and answers a retry of sequence {dmg.record.id} with the original's "
            f"offset instead of appending it again. max.in.flight.requests.per.connection=1 does not help: the "
            f"retry follows the lost answer whatever the window."]


def _hw_behind(d: Diagnosis, page: Page) -> list[str]:
    """A new leader whose HW is below the one consumers have already seen."""
    dmg = d.damage
    x = name(dmg.replica)
    lines = [f"At step {dmg.step}, {x} became leader with HW {dmg.hw}, below the HW {dmg.peer_hw} consumers had "
             f"already seen: {page.words[dmg.step]}."]
    if dmg.restarted is not None:
        lines.append(f"{x} restarted at {page.step(dmg.restarted)} with the HW of its checkpoint: it had not "
                     f"checkpointed HW {dmg.peer_hw} before crashing, and a new leader keeps the HW it has.")
    else:
        lines.append(f"A new leader keeps the HW it had as a follower, and {x} had not learned {name(dmg.peer)}'s HW "
                     f"{dmg.peer_hw}: a follower learns the HW only from a later FETCH response.")
    lines += [culprit_line(c, page) for c in d.culprits]
    lines.append("Leader epochs do not change this (KAFKA-2334); KIP-207 makes a new leader refuse offset lookups "
                 "until its HW has caught up.")
    return lines


def _stale_join(d: Diagnosis, page: Page) -> list[str]:
    """A follower added to the ISR on a FETCH's position it lost afterwards (KAFKA-14139)."""
    dmg = d.damage
    f, ldr = name(dmg.replica), name(dmg.peer)
    reported, lost = d.culprits
    lines = [f"At step {dmg.step}, {ldr} added {f} to the ISR although {f}'s log lacks {record_name(dmg.record)} at "
             f"offset {dmg.offset}, below {ldr}'s HW {dmg.hw}: {page.words[dmg.step]}."]
    lines += [culprit_line(c, page) for c in d.culprits]
    how = page.trace.steps[lost.step - 1].action[0]
    if how in ("Crash", "RestartEmpty"):
        lines.append(f"{f} lost the record {'with its disk' if how == 'RestartEmpty' else 'in a crash'} after that "
                     f"FETCH, so the position {ldr} counts belongs to its previous incarnation. KIP-903 (Kafka 3.5, "
                     f"kip903) puts the follower's broker epoch, new at every restart, in each FETCH, and neither the "
                     f"leader nor the controller admits a follower on the position of an older one (KAFKA-14139).")
    else:
        lines.append(f"{f} truncated the record after that FETCH, on a LeaderAndIsr of another epoch. KIP-320 "
                     f"(kip320) fences it: a FETCH carries the follower's leader epoch, and a leader in another epoch "
                     f"refuses it instead of recording its position.")
    return lines


def _leaderless(d: Diagnosis) -> str:
    """Since when the controller has had no leader, and what that means for LeaderInIsr."""
    since = d.damage.step
    when = "in the initial state" if since == 0 else f"since step {since}"
    return (f"The controller has no leader {when}. The specification's LeaderInIsr fails whenever the partition "
            f"is leaderless; leader-in-isr-or-none is the form that checks elections.")


def _undiagnosed(page: Page) -> list[str]:
    """No known cause: the committed records the trace destroys, or the step that set up the state."""
    lines = []
    for loss in losses([page.model.lanes(s) for s in page.trace.states()]):
        lines.append(f"At step {loss.step}, {loss.lane} lost record {loss.record} at offset {loss.offset}, which "
                     f"{loss.leader} had already committed (its HW was {loss.hw}): {page.words[loss.step]}.")
    if not lines:
        states = page.trace.states()
        changed = [k for k in range(1, len(states)) if states[k] != states[k - 1]]
        if changed:
            lines.append(f"The state it fails in was set up by {page.step(changed[-1])}.")
    return lines


_RENDER = {
    Cause.TRUNCATION_TO_LAGGING_HW: _lagging_hw,
    Cause.STALE_LEADER_AND_ISR: _stale,
    Cause.HW_TRUNCATION_ABOVE_DIVERGENCE: _above_divergence,
    Cause.EPOCH_LOOKUP_ABOVE_DIVERGENCE: _above_divergence,
    Cause.EPOCH_WALK_CUT_SHORT: _above_divergence,
    Cause.UNDEFINED_EPOCH_ANSWER: _undefined_answer,
    Cause.UNFLUSHED_TAIL_LOST_IN_CRASH: _unflushed,
    Cause.LAST_REPLICA_STANDING: _last_standing,
    Cause.UNCLEAN_ELECTION: _elected,
    Cause.ELR_MEMBER_WITHOUT_RECORD: _elr_elected,
    Cause.ISR_JOIN_ON_STALE_POSITION: _stale_join,
    Cause.ACKED_BEFORE_REPLICATED: _elected,
    Cause.NEW_LEADER_HW_BEHIND: _hw_behind,
    Cause.EARLIER_EPOCH_COUNTED: _earlier_epoch,
    Cause.RETRY_BEHIND_LATER_RECORD: _reordered,
    Cause.RETRY_AFTER_LOST_ANSWER: _duplicated,
}
