"""Why a `kraft` counterexample of `leader-has-acked-values` fails (see `traces.diagnosis` for
the partition models): an acknowledged value is missing from the newest leader's log, and the
trace says how. Three causes are recognised, each from the trace alone:

- `unflushed-tail-lost-in-crash`: a voter that held the value, unflushed, crashed and lost it;
  the value had been acknowledged by a leader that counted its own unflushed log end towards
  its HW (`flushLeaderLog` updates the end offset before it flushes). Culprits: the
  acknowledgement and the crash.
- `vote-after-lost-disk`: a voter that had held the value came back on an empty disk and, still
  a voter (under static voters, or under KIP-853 formatted again with `--initial-controllers`,
  which gives back its directory id), granted its vote to a candidate without the value, which
  won. Culprits: the acknowledgement, the lost disk and the vote.
- `earlier-epoch-counted`: a leader moved its HW over the value, a record of an earlier epoch,
  on a majority that had not reached the start of its own epoch (the rule `commit-rule` switched
  to `majority`, which no release does), and a candidate whose log ends in a later epoch but
  lacks the value won a vote from that majority: Raft's Figure 8. Culprits: the
  acknowledgement and the vote.

- `voter-sets-without-common-majority`: the leader that acknowledged the value did so under a
  voter set it had reached by voter changes taken before the earlier ones were committed (rule
  `voter-change-guard` switched to `none`, which no release does), and the newest leader won
  under a voter set of its own log, with no majority in common with the first. Culprits: each
  such change and the acknowledgement.

- `vote-forgotten-in-epoch` (also of a `one-leader-per-epoch` counterexample): the newest epoch
  has two leaders, both elected with the vote of one voter, which forgot its first vote before
  it granted the second: on a role change within the epoch (the rule `election` switched to
  `pre-vote-forgetful`, which no release does), or by losing its disk as a voter that stays one.
  Culprits: both votes and the step that forgot the first (and, for a lost value, the
  acknowledgement).

`render` words a diagnosis as `traces.explain` does the others, and `culprit_line` each culprit.
"""

from __future__ import annotations

from itertools import combinations

from model.kraft import messages as msg, voter_sets
from model.kraft.state import ACKED, LEADER, last_epoch
from model.kraft.words import entry, voter, voter_set

from .cause import Cause, Culprit, Damage, Diagnosis
from .trace import Trace


def _holds(state, i: int, value: int) -> int | None:
    """The offset of client value `value` in voter i's log, None when it has none."""
    return next((k for k, (_, v) in enumerate(state.log[i]) if v == value), None)


def diagnose(trace: Trace) -> Diagnosis | None:
    """The cause of a `leader-has-acked-values` failure, or None for another invariant or a
    loss of another kind."""
    states = trace.states()
    if trace.invariant == "one-leader-per-epoch" and trace.steps:
        return _forgotten_vote(trace, states, None)
    if trace.invariant != "leader-has-acked-values" or not trace.steps:
        return None
    last = states[-1]
    newest = max(last.epoch)
    missing = [(i, v) for i, r in enumerate(last.role) if r == LEADER and last.epoch[i] == newest
               for v, a in enumerate(last.acked, 1) if a == ACKED and _holds(last, i, v) is None]
    if not missing:  # (the epoch may have two leaders: the one that lacks the value is the loss)
        return None
    leader, value = missing[0]
    acked = next(k for k in range(1, len(states)) if states[k].acked[value - 1] == ACKED)
    early = _earlier_epoch_commit(trace, states, acked, leader, value)
    if early is not None:
        return early
    apart = _sets_apart(trace, states, acked, leader, value)
    if apart is not None:
        return apart
    for k in range(len(trace.steps), 0, -1):
        action, before, after = trace.steps[k - 1].action, states[k - 1], states[k]
        who = action[1] - 1
        offset = _holds(before, who, value)
        if action[0] == "Restart" and offset is not None and _holds(after, who, value) is None:
            damage = Damage(k, "lost", who, offset=offset, record=before.log[who][offset])
            return Diagnosis(Cause.UNFLUSHED_TAIL_LOST_IN_CRASH, trace.invariant, len(trace), damage,
                             (_ack(trace, acked, damage.record),))
        if action[0] == "LoseDisk" and offset is not None:
            vote = _vote(trace, states, who, k)
            if vote is not None:
                record = before.log[who][offset]
                damage = Damage(vote[1], "elected", leader, peer=who, offset=offset, record=record)
                culprits = (_ack(trace, acked, record), Culprit(k, "disk-loss", who, record=record),
                            Culprit(vote[0], "vote", who, peer=leader))
                return Diagnosis(Cause.VOTE_AFTER_LOST_DISK, trace.invariant, len(trace), damage, culprits)
    return _forgotten_vote(trace, states, (acked, leader, value))


def _earlier_epoch_commit(trace: Trace, states, acked: int, leader: int, value: int) -> Diagnosis | None:
    """The Figure 8 diagnosis, when the step that acknowledged `value` moved a faithful leader's
    HW only as far as its own epoch's start offset (the record committed was of an earlier
    epoch), and `leader` (index), lacking it, won a vote of a later epoch (after the
    acknowledgement, or before it while the older leader still led)."""
    after, committer = states[acked], trace.steps[acked - 1].action[1] - 1
    offset = _holds(after, committer, value)
    if not after.start_offset or offset is None or after.role[committer] != LEADER \
            or after.hw[committer] > after.start_offset[committer]:
        return None
    record = after.log[committer][offset]
    elections = _elected(states, leader)
    if not elections:
        return None
    won = elections[-1]
    vote = next((k for k in range(won - 1, 0, -1) if trace.steps[k - 1].action[0] == "HandleVoteRequest"
                 and trace.steps[k - 1].action[2] == leader + 1
                 and states[k].voted_for[trace.steps[k - 1].action[1] - 1] == leader + 1), None)
    if vote is None:
        return None
    voter_index = trace.steps[vote - 1].action[1] - 1
    damage = Damage(won, "elected", leader, peer=committer, offset=offset, record=record)
    culprits = (Culprit(acked, "earlier-commit", committer, record=record),
                Culprit(vote, "later-epoch-vote", voter_index, peer=leader, record=record))
    return Diagnosis(Cause.EARLIER_EPOCH_COUNTED, trace.invariant, len(trace), damage, culprits)


def _forgotten_vote(trace: Trace, states, lost: tuple[int, int, int] | None) -> Diagnosis | None:
    """The diagnosis of two leaders in the newest epoch elected by one voter's two votes in it,
    the first forgotten before the second (a role change that dropped it, or a lost disk). For a
    lost value, `lost` is (the step that acknowledged it, the leader (index) that lacks it, the
    value), and that leader must be the second elected."""
    last, n = states[-1], len(states[0].role)
    newest = max(last.epoch)
    leaders = [i for i in range(n) if last.role[i] == LEADER and last.epoch[i] == newest]
    for a, b in combinations(leaders, 2):
        for v in range(n):
            votes = {c: k for k in range(1, len(states)) for c in (a, b)
                     if states[k].voted_for[v] == c + 1 and states[k - 1].voted_for[v] != c + 1
                     and states[k].epoch[v] == newest}
            if len(votes) < 2:
                continue
            first, second = sorted(votes, key=votes.get)
            forgot = next((k for k in range(votes[first] + 1, votes[second]) if states[k].voted_for[v] != first + 1
                           and states[k - 1].voted_for[v] == first + 1), None)
            if forgot is None or (lost is not None and lost[1] not in (a, b)):
                continue
            how = "disk-loss" if trace.steps[forgot - 1].action[0] == "LoseDisk" else "forgotten-vote"
            culprits = (Culprit(votes[first], "first-vote", v, peer=first), Culprit(forgot, how, v),
                        Culprit(votes[second], "second-vote", v, peer=second))
            won = {c: next(k for k in _elected(states, c) if k > votes[c]) for c in (a, b)}
            if lost is None:
                later = max(won, key=won.get)
                return Diagnosis(Cause.VOTE_FORGOTTEN_IN_EPOCH, trace.invariant, len(trace),
                                 Damage(won[later], "elected", later, peer=a + b - later), culprits)
            acked, lacking, value = lost
            holder = trace.steps[acked - 1].action[1] - 1
            offset = _holds(states[acked], holder, value)
            record = states[acked].log[holder][offset]
            return Diagnosis(Cause.VOTE_FORGOTTEN_IN_EPOCH, trace.invariant, len(trace),
                             Damage(won[lacking], "elected", lacking, peer=a + b - lacking, offset=offset,
                                    record=record),
                             tuple(sorted(culprits + (_ack(trace, acked, record),))))
    return None


def _majorities(code: int, n: int) -> list[set[int]]:
    """Every smallest majority of the voter set `code` of n controllers, as sets of voters (1..n)."""
    voters = sorted(voter_sets.members(code, n))
    return [set(q) for q in combinations(voters, len(voters) // 2 + 1)]


def _names(voters: set[int]) -> str:
    """A set of voters (1..n) in words: `{n2, n3}`."""
    return "{" + ", ".join(voter(v) for v in sorted(voters)) + "}"


def _sets_apart(trace: Trace, states, acked: int, leader: int, value: int) -> Diagnosis | None:
    """The diagnosis of voter changes taken on unsettled ground: the set the acknowledging leader
    had at the acknowledgement and the set `leader` (index) won under share no majority, and the
    acknowledging leader changed its set while an earlier change of its epoch was uncommitted."""
    n = len(states[0].role)
    after, committer = states[acked], trace.steps[acked - 1].action[1] - 1
    won = _elected(states, leader)
    acking, winning = voter_set(after, committer), voter_set(states[won[-1]], leader) if won else None
    if not acking or not winning or all(a & w for a in _majorities(acking, n) for w in _majorities(winning, n)):
        return None
    hasty = [k for k in range(1, acked + 1) if trace.steps[k - 1].action[0] in ("AddVoter", "RemoveVoter")
             and trace.steps[k - 1].action[1] == committer + 1
             and any(v < 0 for _, v in states[k - 1].log[committer][states[k - 1].hw[committer]:])]
    offset = _holds(after, committer, value)
    if not hasty or offset is None:
        return None
    record = after.log[committer][offset]
    damage = Damage(won[-1], "elected", leader, peer=committer, offset=offset, record=record)
    culprits = tuple(Culprit(k, "uncommitted-change", committer) for k in hasty) + (_ack(trace, acked, record),)
    return Diagnosis(Cause.VOTER_SETS_WITHOUT_COMMON_MAJORITY, trace.invariant, len(trace), damage, culprits)


def _elected(states, who: int) -> list[int]:
    """The steps at which voter `who` (index) became leader, in order."""
    return [k for k in range(1, len(states)) if states[k].role[who] == LEADER and states[k - 1].role[who] != LEADER]


def _ack(trace: Trace, step: int, record: tuple) -> Culprit:
    """The step at which a leader acknowledged `record` (its HW passed it)."""
    return Culprit(step, "ack", trace.steps[step - 1].action[1] - 1, record=record)


def _vote(trace: Trace, states, wiped: int, since: int) -> tuple[int, int] | None:
    """(the step at which voter `wiped` granted a vote after its disk was lost, the step at which
    that candidate became leader), or None."""
    for k in range(since + 1, len(states)):
        action = trace.steps[k - 1].action
        if action[0] != "HandleVoteRequest" or action[1] != wiped + 1:
            continue
        answers = [m for m, _ in states[k].messages if m[0] == msg.VOTE_RESPONSE and msg.source(m) == wiped + 1
                   and (m, 1) not in states[k - 1].messages]
        if answers and msg.fields(answers[0]).granted:
            won = [j for j in _elected(states, action[2] - 1) if j > k]
            if won:
                return k, won[0]
    return None


def culprit_line(c: Culprit, page) -> str:
    """One culprit step in a sentence."""
    who, value = voter(c.replica + 1), entry(*c.record, len(page.trace.states()[0].role)) if c.record else ""
    if c.role == "ack":
        return f"{who} acknowledged {value} at {page.step(c.step)}: its HW passed it."
    if c.role == "earlier-commit":
        state = page.trace.states()[c.step]
        return (f"At step {c.step}, {who}, leader in epoch {state.epoch[c.replica]}, moved its HW to "
                f"{state.hw[c.replica]} over {value}, a record of an earlier epoch, on a majority that had not reached "
                f"its own epoch's start (offset {state.start_offset[c.replica]}): {page.words[c.step]}. {value} was "
                f"acknowledged though no record of epoch {state.epoch[c.replica]} was committed.")
    if c.role == "uncommitted-change":
        before = page.trace.states()[c.step - 1]
        return (f"At step {c.step}, {who} changed its voter set while a VotersRecord in its log was not yet "
                f"committed (its HW {before.hw[c.replica]}): {page.words[c.step]}.")
    if c.role == "disk-loss":
        held = f"which had held {value}" if c.record else "having voted"
        why = ("That format gave it the directory id it had, so under KIP-853 too it was" if _relisted(page.trace, c.step)
               else "Static voters are known by node id alone, so it was")
        return (f"At step {c.step}, {who}, {held}, came back on a new, empty disk: "
                f"{page.words[c.step]}. {why} still a voter, with no log and no memory of its votes.")
    if c.role in ("first-vote", "second-vote"):
        epoch = page.trace.states()[c.step].epoch[c.replica]
        did = f"voted again in epoch {epoch}, for" if c.role == "second-vote" else f"voted in epoch {epoch} for"
        return f"At step {c.step}, {who} {did} {voter(c.peer + 1)}: {page.words[c.step]}."
    if c.role == "forgotten-vote":
        epoch = page.trace.states()[c.step].epoch[c.replica]
        return (f"At step {c.step}, {who} changed role within epoch {epoch} and forgot its vote: "
                f"{page.words[c.step]}.")
    if c.role == "later-epoch-vote":
        before = page.trace.states()[c.step - 1]
        return (f"At step {c.step}, {who}, holding {value}, granted {voter(c.peer + 1)} its vote: "
                f"{voter(c.peer + 1)}'s log ends in epoch {last_epoch(before.log[c.peer])}, later than its own "
                f"(epoch {last_epoch(before.log[c.replica])}): {page.words[c.step]}.")
    return (f"At step {c.step}, {who} granted {voter(c.peer + 1)} its vote, as {voter(c.peer + 1)}'s log was at "
            f"least as up to date as its empty one: {page.words[c.step]}.")


def render(d: Diagnosis, page) -> list[str]:
    """The diagnosis in sentences: the damage, each culprit, what Kafka does about it."""
    dmg = d.damage
    value = entry(*dmg.record, len(page.trace.states()[0].role)) if dmg.record else ""
    if d.kind is Cause.UNFLUSHED_TAIL_LOST_IN_CRASH:
        before = page.trace.states()[dmg.step - 1]
        one = len(before.role) == 1
        lines = [f"At step {dmg.step}, {voter(dmg.replica + 1)} lost {value} at offset {dmg.offset} in a crash, having "
                 f"flushed its log only to offset {before.flushed[dmg.replica]}: {page.words[dmg.step]}."]
        lines += [culprit_line(c, page) for c in d.culprits]
        lines.append("A leader counts its own log end towards its HW before it flushes (KafkaRaftClient.flushLeaderLog "
                     "updates the end offset first, \"so that parked fetches can return sooner\")"
                     + (": with one voter, its own log end is the majority." if one else "."))
        if one:
            lines.append("With three voters the same crash loses nothing: a follower acknowledges a record only by "
                         "its next FETCH, which the leader handles after its flush.")
        return lines
    if d.kind is Cause.EARLIER_EPOCH_COUNTED:
        return ([f"At step {dmg.step}, {voter(dmg.replica + 1)} became leader without {value}: "
                 f"{page.words[dmg.step]}."]
                + [culprit_line(c, page) for c in d.culprits]
                + ["A voter that holds a record of an earlier epoch may still vote for a candidate whose log ends in a "
                   "later one without it, so a majority holding that record commits nothing (Raft's Figure 8). Kafka's "
                   "LeaderState.maybeUpdateHighWatermark moves the HW only once a majority has passed the start of "
                   "the leader's own epoch, its LeaderChange record (rule commit-rule, choice epoch-start): in every "
                   "release this acknowledgement waits, and the same steps lose nothing."])
    if d.kind is Cause.VOTE_FORGOTTEN_IN_EPOCH:
        epoch = page.trace.states()[dmg.step].epoch[dmg.replica]
        without = f", without {value}" if value else ""
        lines = ([f"At step {dmg.step}, {voter(dmg.replica + 1)} became a second leader of epoch {epoch}{without}: "
                  f"{page.words[dmg.step]}."]
                 + [culprit_line(c, page) for c in d.culprits])
        lost = next((c for c in d.culprits if c.role == "disk-loss"), None)
        if lost is not None:
            return lines + ["A voter on a new disk has no quorum-state file, so no memory of its vote, and under static "
                            "voters it is still the same voter. Pre-vote does not stop it: its empty log is as up to "
                            "date as a new candidate's. " + _directory_ids(_relisted(page.trace, lost.step))]
        return lines + ["A voter's vote is all that keeps two candidates of one epoch from both winning. Kafka 4.0 "
                        "keeps it through every transition within the epoch (QuorumState.transitionToProspective, "
                        "transitionToFollower and transitionToUnattached keep the voted key; transitionToFollower: "
                        "\"State transitions within the same epoch should preserve voted key\"), and a prospective "
                        "that voted grants only that candidate again (unattachedOrProspectiveCanGrantVote): in 4.0 "
                        "the second vote is refused."]
    if d.kind is Cause.VOTER_SETS_WITHOUT_COMMON_MAJORITY:
        states, n = page.trace.states(), len(page.trace.states()[0].role)
        acked = d.culprits[-1].step
        acking_code, winning_code = voter_set(states[acked], dmg.peer), voter_set(states[dmg.step], dmg.replica)
        mine, theirs = next((a, w) for a in _majorities(acking_code, n) for w in _majorities(winning_code, n)
                            if not a & w)
        acking, winning = voter_sets.describe(acking_code, n), voter_sets.describe(winning_code, n)
        return ([f"At step {dmg.step}, {voter(dmg.replica + 1)} became leader without {value}, elected under the "
                 f"voter set {winning} of its own log: {page.words[dmg.step]}."]
                + [culprit_line(c, page) for c in d.culprits]
                + [f"{voter(dmg.peer + 1)} acknowledged {value} under {acking}. A majority of it, {_names(mine)}, and "
                   f"a majority of {winning}, {_names(theirs)}, share no voter, so nothing carried {value} into the "
                   "election. Kafka's AddVoterHandler and "
                   "RemoveVoterHandler take a change only with a HW in the leader's epoch, the last VotersRecord "
                   "committed and no change pending (rule voter-change-guard, choice committed): in 3.9 the second "
                   "change waits for the first, and two sets in force always share a majority."])
    lost = next(c for c in d.culprits if c.role == "disk-loss")
    return ([f"At step {dmg.step}, {voter(dmg.replica + 1)} became leader without {value}: {page.words[dmg.step]}."]
            + [culprit_line(c, page) for c in d.culprits] + [_directory_ids(_relisted(page.trace, lost.step))])


def _relisted(trace: Trace, step: int) -> bool:
    """Whether the disk lost at `step` was formatted again with `--initial-controllers` (KIP-853,
    `--reformat`): the controller came back under the directory id it had, the one that flag lists
    for it."""
    states, who = trace.states(), trace.steps[step - 1].action[1] - 1
    return bool(states[step].directory) and states[step].directory[who] == states[step - 1].directory[who]


def _directory_ids(relisted: bool) -> str:
    """What KIP-853's directory ids do for a voter on a new disk, as a sentence: it depends on the
    command that formatted the disk (`--reformat`), and `relisted` says this one was the first
    command's `--initial-controllers` again."""
    fresh = ("Formatted with --no-initial-controllers, as Kafka's docs format a controller joining a running "
             "cluster, the disk gets a new directory id: the voter on it is an observer, and a Vote request for its "
             "old directory is refused with INVALID_VOTER_KEY")
    listed = ("formatted with the first command's --initial-controllers again, it gets the directory id that list "
              "names for it and the bootstrap checkpoint (Formatter.doFormat): the voter key is back")
    head = "KIP-853 (Kafka 3.9 and 4.0 on kraft.version 1) knows a voter by node id and directory id. "
    return head + (f"But {listed}. {fresh}." if relisted else f"{fresh}; {listed} (--reformat initial-controllers).")