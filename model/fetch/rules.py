"""The fetch model's rules and its variants (Kafka releases) as presets of them.

Each rule is one row of the rule table in docs/models/fetch.md, where every choice is cited to
the Kafka code that has it. A variant is the release's choice for every rule; `--rule` switches
any of them (see `model.rules`). The kernel reads each rule's choice from its own field of the
layout (`model.fetch.rule_kernels`), never a variant's name.

    rule                hw            kip101   kip279   kip320         kip903      kafka37         kip966
    truncation          hw            kip101   kip279   kip279         kip279      kip279          kip279
    epoch-cache         first-append  ...               become-leader  ...
    fetch-fencing       off        off      off      on            on          on              on
    bounce              missed        ...               failed-first   ...
    preferred-replica   rebalanced    ...               left-out       ...
    isr-expansion       in-fetch      ...               alter-partition ...
    broker-epochs       off        ...                             on          on              on
    leader-epoch-bump   controller-change ...                      isr-shrink  leader-change   leader-change
    hw-advance          plain      ...                                         strict-min-isr  strict-min-isr
    elr                 off        ...                                                         on
"""

from __future__ import annotations

from typing import NamedTuple

from ..params import ModelError
from ..rules import Rule, RuleBook, RuleSet
from ..truncation_rules import RULES as TRUNCATION_RULES, WORDS as TRUNCATION_WORDS

TRUNCATION = Rule("truncation", "where a replica that becomes follower truncates its log",
                  {name: f"to {TRUNCATION_WORDS[name]}" for name in TRUNCATION_RULES[:3]})
EPOCH_CACHE = Rule("epoch-cache", "when a leader's epoch enters its epoch cache, and what a follower asks for", {
    "first-append": "at the leader's first append in it; a follower asks for its cache's latest epoch, and an epoch "
                    "the leader's cache cannot place is answered UNDEFINED_EPOCH_OFFSET: truncate to the HW (0.11 to 2.0)",
    "become-leader": "when the broker becomes leader, and an epoch below the first is answered with the first's start "
                     "(KAFKA-7415: 2.0.1, 2.1)"})
FETCH_FENCING = Rule("fetch-fencing", "whether FETCH and OffsetsForLeaderEpoch carry the follower's leader epoch", {
    "off": "no epoch: a leader answers a follower of any epoch, a broker that does not lead refuses, and a new epoch "
           "with the same leader is no new fetch (no truncation)",
    "on": "the current leader epoch, and a leader in another epoch refuses (KIP-320)"})
BOUNCE = Rule("bounce", "how the controller handles a broker that restarted before it saw it die", {
    "missed": "not at all: it counts the broker alive until it sees it dead, elects it and queues LeaderAndIsr "
              "for it meanwhile, and a broker back without one leads or follows nothing until the controller's "
              "next change of the partition (0.10 to 2.1, KAFKA-1120)",
    "failed-first": "fails it first (it leaves the ISR and loses leadership), then takes it back (KAFKA-7235)"})
PREFERRED_REPLICA = Rule("preferred-replica", "whether the partition's preferred replica (the first in its assignment) "
                         "is modelled", {
    "rebalanced": "elections take it whenever it is a candidate, and the controller moves leadership back to it on "
                  "its own when it is alive and in the ISR (auto.leader.rebalance.enable, on by default; 0.10 to 2.1)",
    "left-out": "no replica is preferred: an election takes any candidate and leadership never moves on its own "
                "(Kafka's preferred-replica elections are left out from kip320 on)"})
ISR_EXPANSION = Rule("isr-expansion", "when a leader adds a caught-up follower to the ISR", {
    "in-fetch": "while it handles that follower's FETCH, writing ZooKeeper then (0.10 to 2.6)",
    "alter-partition": "as its own step after that FETCH, by an AlterPartition the controller commits (KIP-497, 2.7)"})
BROKER_EPOCHS = Rule("broker-epochs", "whether an ISR expansion checks the follower's broker epoch", {
    "off": "a FETCH from before a restart may still add the follower to the ISR",
    "on": "once the follower registered again, only a FETCH of its new incarnation adds it to the ISR (KIP-903)"})
LEADER_EPOCH_BUMP = Rule("leader-epoch-bump", "which controller changes start a new leader epoch", {
    "controller-change": "every change the controller writes (the leader's own ISR changes keep the epoch)",
    "isr-shrink": "every change, and every ISR shrink, the leader's own included (KRaft below MV 3.6-IV0)",
    "leader-change": "only a change of leader; an ISR or ELR change keeps it (KRaft from MV 3.6, KAFKA-15021)"})
HW_ADVANCE = Rule("hw-advance", "when a leader may advance its HW", {
    "plain": "whenever every ISR member holds the records",
    "strict-min-isr": "only while the ISR has min.insync.replicas members (KAFKA-15583)"})
ELR = Rule("elr", "whether the controller keeps eligible leader replicas and reads the clean-shutdown marker", {
    "off": "no ELR: the last ISR member stays in the ISR",
    "on": "the ISR may empty; replicas that left it below min.insync.replicas may lead (KIP-966)"})

RULES = (TRUNCATION, EPOCH_CACHE, FETCH_FENCING, BOUNCE, PREFERRED_REPLICA, ISR_EXPANSION, BROKER_EPOCHS, LEADER_EPOCH_BUMP, HW_ADVANCE, ELR)


class FetchVariant(NamedTuple):
    """A protocol variant: the Kafka releases and controller mode it stands for, what it
    changed, and the rules it changed (rule -> choice) from the variant before it."""

    releases: str
    controller: str
    meaning: str
    changes: dict[str, str]

    def listed(self) -> str:
        """One line for `replcheck list`: releases, controller mode, meaning."""
        return f"Kafka {self.releases} ({self.controller}): {self.meaning}"


VARIANTS = {
    "hw": FetchVariant("0.10 and earlier", "ZooKeeper", "truncate to the high watermark",
                       {"truncation": "hw", "epoch-cache": "first-append", "fetch-fencing": "off", "bounce": "missed",
                        "preferred-replica": "rebalanced", "isr-expansion": "in-fetch", "broker-epochs": "off",
                        "leader-epoch-bump": "controller-change", "hw-advance": "plain", "elr": "off"}),
    "kip101": FetchVariant("0.11 to 1.1", "ZooKeeper", "leader-epoch truncation, first version (KIP-101)",
                           {"truncation": "kip101"}),
    "kip279": FetchVariant("2.0", "ZooKeeper", "epoch truncation fixed for fast leader changes (KIP-279)",
                           {"truncation": "kip279"}),
    "kip320": FetchVariant("2.1 to 3.4", "ZooKeeper", "KIP-279 plus the current leader epoch in every fetch (KIP-320); "
                           "a bounced broker is failed first (2.2)", {"epoch-cache": "become-leader", "fetch-fencing": "on",
                                                      "bounce": "failed-first", "preferred-replica": "left-out",
                                                      "isr-expansion": "alter-partition"}),
    "kip903": FetchVariant("3.5, 3.6", "KRaft", "kip320 plus broker epochs (KIP-903); an ISR shrink bumps the leader "
                           "epoch (MV below 3.6-IV0, not 3.6's default)",
                           {"broker-epochs": "on", "leader-epoch-bump": "isr-shrink"}),
    "kafka37": FetchVariant("3.7 to 3.9", "KRaft", "kip903 plus no HW advance below min.insync.replicas "
                            "(KAFKA-15583)", {"leader-epoch-bump": "leader-change", "hw-advance": "strict-min-isr"}),
    "kip966": FetchVariant("4.0, 4.1", "KRaft", "kafka37 plus eligible leader replicas and the clean-shutdown marker "
                           "(KIP-966)", {"elr": "on"}),
}


RELEASES = {
    "hw": ("0.10",),
    "kip101": ("0.11", "1.0", "1.1"),
    "kip279": ("2.0",),
    "kip320": ("2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "3.0", "3.1", "3.2", "3.3", "3.4"),
    "kip903": ("3.5", "3.6"),
    "kafka37": ("3.7", "3.8", "3.9"),
    "kip966": ("4.0", "4.1"),
}
"""Each variant's Kafka releases (feature releases; "0.10" stands for 0.10 and earlier), oldest
first: what the rule table (`model.fetch.rule_table`) judges a row's status for, release by
release."""


def _presets() -> dict[str, dict[str, str]]:
    """Each variant's choice for every rule: its own changes on top of the variant before it."""
    presets, choices = {}, {}
    for name, variant in VARIANTS.items():
        choices = {**choices, **variant.changes}
        presets[name] = choices
    return presets


RULE_BOOK = RuleBook("fetch", RULES, _presets(), retired={"bounce": {
    "taken-back": "the stand-in for Kafka 0.10 to 2.1's controller until issue 66: it took a bounced broker back "
                  "directly, electing among the live ISR members in a new epoch, a step that controller never takes "
                  "(row bounce-taken-back)"}})


def check_quorum(rule_set: RuleSet, quorum: str) -> None:
    """ModelError unless the rule set can run under `quorum`. A majority quorum (`majority`,
    `majority-naive`) has its own epoch rules (Raft's, with KIP-320's fencing) and no ISR, so it
    runs only with kip320's choices: the other choices are ISR or ZooKeeper-controller rules."""
    if quorum == "isr":
        return
    ours = RULE_BOOK.presets["kip320"]
    differing = [rule for rule in RULES if rule_set.choices[rule.name] != ours[rule.name]]
    if not differing:
        return
    if rule_set.custom:
        rule = differing[0]
        raise ModelError(f"rule {rule.name}={rule_set.choices[rule.name]} needs --quorum isr: --quorum {quorum} has "
                         f"its own epoch rules (Raft's, with KIP-320's fencing), kip320's, and no ISR: use --variant "
                         f"kip320 with no --rule")
    if list(VARIANTS).index(rule_set.preset) > list(VARIANTS).index("kip320"):
        raise ModelError(f"--variant {rule_set.preset} with --quorum {quorum}: broker epochs, the strict min-ISR rule "
                         f"and eligible leader replicas are ISR rules, and a majority quorum has no ISR "
                         f"(use --quorum isr)")
    raise ModelError(f"--quorum {quorum} has its own epoch rules (Raft's, with KIP-320's fencing): "
                     f"use --variant kip320, not {rule_set.preset}")
