"""What each rule's choice means, asked of the layout by the kernel: every predicate reads its
own rule's field (`model.fetch.rules` declares the rules, their choices and the variants'
presets), so a variant is nothing but its choices and any rule can be switched alone.

What a majority quorum (`--quorum majority`, Raft and KRaft's rules, always with KIP-320's
fencing) changes in their place: votes instead of the controller's election, commitment on a
majority instead of the ISR, and a follower that reconciles its log at each FETCH instead of
truncating when it becomes follower (see `model.fetch.quorum` and `model.fetch.election`).
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..truncation_rules import HW_RULE, KIP101_RULE, NO_TRUNCATION
from .layout import ISR_QUORUM, MAJORITY, leader, leo
from .rules import (BOUNCE, BROKER_EPOCHS, ELR, EPOCH_CACHE, FETCH_FENCING, HW_ADVANCE, ISR_EXPANSION, LEADER_EPOCH_BUMP,
                    PREFERRED_REPLICA)
from .truncation import hw_truncation, kip101_truncation, kip279_truncation

FENCED = FETCH_FENCING.index("on")
AT_FIRST_APPEND = EPOCH_CACHE.index("first-append")
MISSED, FAILED_FIRST = BOUNCE.index("missed"), BOUNCE.index("failed-first")
REBALANCED = PREFERRED_REPLICA.index("rebalanced")
IN_FETCH = ISR_EXPANSION.index("in-fetch")
CHECKED = BROKER_EPOCHS.index("on")
EPOCH_PER_SHRINK, EPOCH_PER_LEADER = LEADER_EPOCH_BUMP.index("isr-shrink"), LEADER_EPOCH_BUMP.index("leader-change")
STRICT_MIN_ISR = HW_ADVANCE.index("strict-min-isr")
KEPT = ELR.index("on")


@kernel
def majority_quorum(lay):
    """Raft-style replication (`--quorum majority` or `majority-naive`): a record is committed
    once a majority of replicas hold it, a leader is elected by the votes of a majority, and a
    follower drops only the suffix of its log that differs from the leader's. No ISR, and no
    controller elections."""
    return lay.quorum != ISR_QUORUM


@kernel
def own_epoch_rule(lay):
    """Raft's commitment rule: a leader counts replicas only for a record of its own epoch
    (records of earlier epochs are committed with it). Off only under `majority-naive`."""
    return lay.quorum == MAJORITY


@kernel
def truncation_rule(lay):
    """The rule by which a replica becoming follower truncates (an index into
    `model.truncation_rules.RULES`, whose first three are the `truncation` rule's choices): its
    own HW (hw), KIP-101's answer (kip101), KIP-279's epoch walk (kip279), and none under a
    majority quorum (it reconciles at each FETCH)."""
    if majority_quorum(lay):
        return NO_TRUNCATION
    return lay.truncation


@kernel
def truncation_point(s, lay, r, ldr):
    """Where broker r truncates its log when it becomes follower of `ldr` (before capping at its
    LEO), by the `truncation` rule's choice (`truncation_rule`). Without fetch fencing a new epoch
    with the leader r already follows is no new fetch, and r truncates nothing
    (`Partition.makeFollower` @ 0.10.2.0, 2.0.0: false when the leader is unchanged)."""
    if not fenced(lay) and leader(s, lay, r) == ldr:
        return leo(s, lay, r)
    rule = truncation_rule(lay)
    if rule == NO_TRUNCATION:
        return leo(s, lay, r)
    if rule == HW_RULE:
        return hw_truncation(s, lay, r, ldr)
    if rule == KIP101_RULE:
        return kip101_truncation(s, lay, r, ldr, cache_at_first_append(lay))
    return kip279_truncation(s, lay, r, ldr, cache_at_first_append(lay))


@kernel
def cache_at_first_append(lay):
    """Kafka 0.11 to 2.0 (rule epoch-cache=first-append): a leader's epoch enters its epoch cache
    only at its first append in it (`Partition.makeLeader` @ 2.0.0 assigns nothing; `Log.append`
    @ 0.11.0.0 does), a follower asks OffsetsForLeaderEpoch for its cache's latest epoch
    (`ReplicaFetcherThread.buildLeaderEpochRequest` @ 0.11.0.0, 2.0.0), and a leader whose cache
    cannot place that epoch (empty, or the epoch below its first or above its latest) answers
    UNDEFINED_EPOCH_OFFSET, on which the follower truncates to its HW
    (`LeaderEpochFileCache.endOffsetFor`, `ReplicaFetcherThread.maybeTruncate` @ 0.11.0.0;
    `AbstractFetcherThread.getOffsetTruncationState` @ 2.0.0). From 2.1 the epoch enters the cache
    when the broker becomes leader (KAFKA-7415). Never under a majority quorum."""
    return lay.epoch_cache == AT_FIRST_APPEND and not majority_quorum(lay)


@kernel
def asks_leader(lay):
    """Becoming follower needs an answer from the live leader (OffsetsForLeaderEpoch)."""
    return lay.truncation != HW_RULE and not majority_quorum(lay)


@kernel
def fenced(lay):
    """Every FETCH and OffsetsForLeaderEpoch carries the follower's current leader epoch, and a
    leader in another epoch refuses it (KIP-320), so no follower acts on a stale leader: rule
    fetch-fencing=on (from kip320 on). A majority quorum always runs with it (Raft's term check; KRaft's epoch in every FETCH)."""
    return lay.fetch_fencing == FENCED or majority_quorum(lay)


@kernel
def bounce_failed_first(lay):
    """A broker that restarts before the controller saw it die is failed first (it leaves the ISR,
    unless it is the last member, and loses leadership), then taken back: Kafka's ZooKeeper
    controller from 2.2 (KAFKA-7235, `KafkaController.processBrokerChange`) and KRaft
    (`ClusterControlManager.registerBroker` refuses the new incarnation until the old one is
    fenced). Rule bounce=failed-first, from kip320 on, as Kafka 2.2 to 3.4 (2.1's controller
    could still miss a bounce, KAFKA-1120: `bounce_missed`). Not under a majority quorum, which
    elects by votes."""
    return lay.bounce == FAILED_FIRST and not majority_quorum(lay)


@kernel
def bounce_missed(lay):
    """Kafka 0.10 to 2.1's ZooKeeper controller (rule bounce=missed): it learns of brokers only
    from the broker set it reads from ZooKeeper (`ReplicaStateMachine.BrokerChangeListener` @
    0.10.2.0, `KafkaController.BrokerChange` @ 0.11.0.0, 1.0.0, 1.1.0, 2.0.0, 2.1.0: the new brokers are the set read
    minus the live ones, the dead the live minus the set read), so a broker that restarted before
    the controller read the set is neither, and nothing happens: the controller still counts it
    alive, may elect it (`OfflinePartitionLeaderSelector.selectLeader` @ 0.10.2.0,
    `PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection` @ 2.1.0 take
    `liveBrokerIds`), and keeps sending it LeaderAndIsr: its `RequestSendThread` resends a
    request until the broker answers (`RequestSendThread.doWork` @ 0.10.2.0, 2.1.0), so what was
    queued for a broker that went down reaches it when it is back, unless the controller saw it
    dead first and dropped its queue (`removeBroker`). A broker back with nothing queued has
    no partition to lead or follow until the controller next writes one. Not under a majority
    quorum."""
    return lay.bounce == MISSED and not majority_quorum(lay)


@kernel
def prefers_replica(lay):
    """Rule preferred-replica=rebalanced (Kafka 0.10 to 2.1 as the model has them): the partition
    has a preferred replica, the first in its assignment (`layout.preferred`), which every
    election of the controller takes when it is a candidate (the selectors take the first
    candidate in assignment order: `OfflinePartitionLeaderSelector`,
    `ControlledShutdownLeaderSelector` @ 0.10.2.0; `PartitionLeaderElectionAlgorithms` @
    2.1.0), and to which the controller moves leadership on its own when it is alive and in the
    ISR (auto.leader.rebalance.enable, true by default: `checkAndTriggerPartitionRebalance` @
    0.10.2.0, `checkAndTriggerAutoLeaderRebalance` @ 0.11.0.0, 2.1.0). Not under a majority
    quorum."""
    return lay.preferred_replica == REBALANCED and not majority_quorum(lay)


@kernel
def expands_in_fetch(lay):
    """Kafka 0.10 to 2.6 (rule isr-expansion=in-fetch): a leader adds a caught-up follower to the
    ISR while it handles that follower's FETCH, writing ZooKeeper then
    (`Partition.maybeExpandIsr` @ 0.10.2.0, 2.1.0, called from `updateReplicaLogReadResult`); the
    write fails when the controller has moved on (a stale zkVersion). From 2.7 the leader sends an
    AlterIsr (KIP-497), later AlterPartition, which the controller commits later: the expansion is
    its own step (`LeaderExpandIsr`). Never under a majority quorum, which has no ISR."""
    return lay.isr_expansion == IN_FETCH and not majority_quorum(lay)


@kernel
def broker_epochs(lay):
    """KIP-903 (KAFKA-14139, KRaft from Kafka 3.5): a FETCH carries the follower's broker epoch,
    the leader keeps it with the follower's position, and neither the leader
    (`Partition.isReplicaIsrEligible`) nor the controller
    (`ReplicationControlManager.ineligibleReplicasForIsr`) accepts an ISR expansion whose broker
    epoch is not the follower's registered one. The epoch changes when the broker registers
    again (`ClusterControlManager.registerBroker` @ 3.5.0), so a restarted follower joins the ISR
    only on a FETCH of its new incarnation; between its crash and the controller's fencing its old
    position still counts, as in Kafka. Rule broker-epochs=on, from kip903 on; before, an
    AlterPartition decided on a FETCH from before a restart could be committed after it (kip320 as
    Kafka 2.7 to 3.4)."""
    return lay.broker_epochs == CHECKED and not majority_quorum(lay)


@kernel
def shrink_bumps_leader_epoch(lay):
    """KRaft before metadata version 3.6 (Kafka 3.5, and 3.6 at an older metadata version):
    every ISR shrink the controller commits, a leader's own AlterPartition included, starts a new
    leader epoch with the same leader (`PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded` @
    3.5.0; KAFKA-15021 ended it at metadata version 3.6). The leader keeps its old epoch and ISR
    until it handles the new LeaderAndIsr, and its followers follow it again in the new epoch.
    Rule leader-epoch-bump=isr-shrink (kip903 only): the ZooKeeper controller writes a leader's
    own shrink in the same epoch."""
    return lay.leader_epoch_bump == EPOCH_PER_SHRINK


@kernel
def isr_change_keeps_leader_epoch(lay):
    """KRaft from metadata version 3.6 (KAFKA-15021): a controller change of the ISR or ELR alone,
    with the same leader (a dead follower removed, kip966's unclean registrant removed), bumps
    only the partition epoch; the brokers apply it in the leader epoch they are in
    (`PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded` @ 3.6.0, 3.7.0). Rule
    leader-epoch-bump=leader-change, from kafka37 on (3.7 to 3.9 and 4.x run metadata version 3.6 or later); the ZooKeeper controller writes each
    such change in a new leader epoch (`KafkaController.removeReplicaFromIsr`,
    `LeaderAndIsr.newLeaderAndIsr`), and so does KRaft before 3.6."""
    return lay.leader_epoch_bump == EPOCH_PER_LEADER


@kernel
def strict_min_isr(lay):
    """Kafka 3.7's rule (KAFKA-15583): a leader does not advance its HW while its ISR is smaller
    than min.insync.replicas, so a record is committed only once that many replicas hold it:
    rule hw-advance=strict-min-isr, from kafka37 on."""
    return lay.hw_advance == STRICT_MIN_ISR


@kernel
def eligible_leaders(lay):
    """KIP-966's eligible leader replicas: the controller lets the ISR become empty, keeps the
    replicas that left it while it was below min.insync.replicas as ELR, may elect one of them
    when the ISR is empty, and learns from each registration whether the broker shut down
    cleanly (an unclean one leaves the ISR and the ELR): rule elr=on (kip966)."""
    return lay.elr == KEPT
