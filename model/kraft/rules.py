"""The `kraft` model's rules and its faithful variants (Kafka releases) as presets of them.

Each rule is a row of the rule table in docs/models/kraft.md (`model.kraft.rule_table`), where
every choice is cited to the Kafka code that has it; `--rule` switches any of them
(`model.rules`). Variant `tla` is no preset: its steps are the TLA+ specification's, written
apart (`model.kraft.tla`), and no rule switches them.

    rule                 kip595               kafka39       kip853        kafka40       kafka40-static
    begin-quorum         until-acknowledged   periodic      periodic      periodic      periodic
    voter-key            id                   id            directory     directory     id
    commit-rule          epoch-start          epoch-start   epoch-start   epoch-start   epoch-start
    voter-change-guard   committed            committed     committed     committed     committed
    election             vote                 vote          vote          pre-vote      pre-vote
"""

from __future__ import annotations

from typing import NamedTuple

from ..rules import Rule, RuleBook, RuleSet

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

VOTER_KEY = Rule("voter-key", "what makes a controller the voter the quorum counts on", {
    "id": "its node id alone: a voter that lost its disk comes back as the same voter, with an empty log and no memory "
          "of its votes (static voters, KIP-595)",
    "directory": "its node id and the id of its log directory: a voter that lost its disk comes back with a new "
                 "directory id, so it is an observer, and Vote and BeginQuorumEpoch requests for the old one are refused "
                 "(KIP-853)"})

BEGIN_QUORUM = Rule("begin-quorum", "to which voters a leader sends BeginQuorumEpoch", {
    "until-acknowledged": "to each voter that has not acknowledged its epoch yet, by a BeginQuorumEpoch answer or a "
                          "FETCH (3.3 to 3.8)",
    "periodic": "to every voter, again and again (every fetch.timeout.ms / 2), acknowledged or not (3.9)"})

COMMIT_RULE = Rule("commit-rule", "which records a leader's HW may pass", {
    "majority": "any record a majority of the voters has reached, whatever its epoch: plain majority replication, "
                "which Raft's Figure 8 shows loses committed records (no Kafka release; a choice to ablate)",
    "epoch-start": "only once a majority has reached past the start of the leader's own epoch, its LeaderChange "
                   "record, so records of earlier epochs are committed by one of its own (every release)"})

VOTER_CHANGE_GUARD = Rule("voter-change-guard", "when a leader takes an AddVoter or RemoveVoter", {
    "committed": "only with a HW in its epoch, the last VotersRecord in its log committed and no other change pending, "
                 "so no two voter sets in force lack a common majority (every release with voter changes)",
    "none": "whenever it is asked: a change may follow one not yet committed, as in Raft's single-server changes before "
            "their fix (no Kafka release; a choice to ablate)"})

ELECTION = Rule("election", "what a voter does when its election or fetch timer runs out", {
    "vote": "it stands at once: a candidate in the next epoch, asking for real votes (3.3 to 3.9)",
    "pre-vote": "it first asks, in its own epoch, whether it could win (KIP-996's pre-vote, as a prospective): it "
                "stands only once a majority says yes, a follower that has fetched from its leader says no, and "
                "within an epoch every voter keeps the vote it wrote to its quorum-state file (4.0)",
    "pre-vote-forgetful": "as pre-vote, but a voter forgets its vote when it moves to another role in the same epoch, "
                          "as 3.9 did on becoming a follower (no Kafka release; a choice to ablate)"})

RULES = (BEGIN_QUORUM, VOTER_KEY, COMMIT_RULE, VOTER_CHANGE_GUARD, ELECTION)


class KRaftVariant(NamedTuple):
    """A faithful variant: the Kafka releases it stands for, what it is, and its choice for
    every rule."""

    releases: str
    meaning: str
    choices: dict[str, str]


VARIANTS = {
    "kip595": KRaftVariant("3.3 to 3.8", "static voters (controller.quorum.voters): a voter is its node id",
                           {"begin-quorum": "until-acknowledged", "voter-key": "id", "commit-rule": "epoch-start",
                            "voter-change-guard": "committed", "election": "vote"}),
    "kafka39": KRaftVariant("3.9 on kraft.version 0", "kip595 with BeginQuorumEpoch sent periodically; still static "
                            "voters", {"begin-quorum": "periodic", "voter-key": "id", "commit-rule": "epoch-start",
                                       "voter-change-guard": "committed", "election": "vote"}),
    "kip853": KRaftVariant("3.9 on kraft.version 1", "kafka39 with dynamic voters (KIP-853): a voter is its node id "
                           "and directory id, and the voter set is records in the log that AddVoter and RemoveVoter "
                           "append (--spares, --max-voter-changes)",
                           {"begin-quorum": "periodic", "voter-key": "directory", "commit-rule": "epoch-start",
                            "voter-change-guard": "committed", "election": "vote"}),
    "kafka40": KRaftVariant("4.0", "kip853 with pre-vote (KIP-996): a voter whose timer runs out becomes a "
                            "prospective and stands only once a majority would vote for it; a voter keeps its vote "
                            "across roles within an epoch",
                            {"begin-quorum": "periodic", "voter-key": "directory", "commit-rule": "epoch-start",
                             "voter-change-guard": "committed", "election": "pre-vote"}),
    "kafka40-static": KRaftVariant("4.0 on kraft.version 0", "kafka39 with pre-vote (KIP-996): a static quorum "
                                   "(controller.quorum.voters) on 4.0",
                                   {"begin-quorum": "periodic", "voter-key": "id", "commit-rule": "epoch-start",
                                    "voter-change-guard": "committed", "election": "pre-vote"}),
}

RELEASES = {"kip595": ("3.3", "3.4", "3.5", "3.6", "3.7", "3.8"), "kafka39": ("3.9",), "kip853": ("3.9",),
            "kafka40": ("4.0",), "kafka40-static": ("4.0",)}
"""Each faithful variant's Kafka feature releases, oldest first (3.9 on kraft.version 0 for
`kafka39`, on kraft.version 1 for `kip853`; 4.0 on kraft.version 1 for `kafka40`, on kraft.version 0 for `kafka40-static`)."""

TLA = "the steps of Vanlightly's TLA+ specification KRaft.tla (its message bag), for TLC's counts"
"""What variant `tla` is."""

RULE_BOOK = RuleBook("kraft", RULES, {name: v.choices for name, v in VARIANTS.items()},
                     {"tla": "its steps are the TLA+ specification's, one for one"})


class Rules(NamedTuple):
    """A rule set's choices as the steps read them."""

    periodic_begin_quorum: bool
    """A leader sends BeginQuorumEpoch to every voter, again and again (3.9), not only to those
    that have not acknowledged its epoch."""
    directory_ids: bool
    """Voters are known by node id and directory id (KIP-853), not node id alone."""
    commit_past_epoch_start: bool
    """A leader's HW moves only once a majority has passed its epoch's start offset (every
    release), not to whatever a majority has reached."""
    guarded_voter_changes: bool
    """A leader changes the voter set only on settled ground (every release), not whenever asked."""
    pre_vote: bool
    """A voter whose timer runs out first asks for pre-votes as a prospective (4.0, KIP-996)."""
    keeps_vote: bool
    """A voter keeps its vote when it changes role within an epoch (4.0)."""


def rules_of(rule_set: RuleSet) -> Rules:
    """The choices of a faithful rule set, as the steps read them."""
    return Rules(periodic_begin_quorum=rule_set.choices["begin-quorum"] == "periodic",
                 directory_ids=rule_set.choices["voter-key"] == "directory",
                 commit_past_epoch_start=rule_set.choices["commit-rule"] == "epoch-start",
                 guarded_voter_changes=rule_set.choices["voter-change-guard"] == "committed",
                 pre_vote=rule_set.choices["election"] != "vote",
                 keeps_vote=rule_set.choices["election"] == "pre-vote")
