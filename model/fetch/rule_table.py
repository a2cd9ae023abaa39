"""The `fetch` model's contract with Kafka, as data (`model.rule_table`): one row per rule of the
protocol (where a follower truncates, when the HW advances, how the controller elects, ...),
saying what the model does, which Kafka code does it, and, release by release, whether the two
agree.

Rows whose `steps` name action kinds are enacted by every step of those kinds; the others are
branches of a step that `model.fetch.step_rows` recognises (a deviation or abstraction the step
takes only in some states). docs/models/fetch.md's table and deviation list are generated from
this module (`python -m model.fetch.rule_table_docs`), and a test keeps them equal.
"""

from __future__ import annotations

from ..rule_table import ABSTRACTION, AS_KAFKA, DEVIATION, MISSING, Columns
from .rules import RELEASES

ORDER = tuple(release for releases in RELEASES.values() for release in releases)
"""Every release the fetch variants stand for, oldest first."""

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

COLUMNS = Columns(ORDER, RELEASES)
"""A status names releases: single ones ("2.0"), ranges ("2.1-2.6"), variants (all their
releases) or "all"."""

_row = COLUMNS.row


ROWS = (
    _row("truncation-point", "truncation point", "truncation",
         "`hw`: own HW. `kip101`: the leader's end of the follower's epoch. From `kip279`: the epoch walk, "
         "where that epoch ends first. Never past the LEO. `kip101`, `kip279` (rule epoch-cache=first-append): the "
         "follower asks for its cache's latest epoch; an epoch the leader's cache cannot place (empty, below its "
         "first, above its latest) is answered UNDEFINED_EPOCH_OFFSET and the follower keeps its HW; a 2.0 "
         "follower with no epoch at or below the leader's answer keeps min(leader's end, LEO)",
         "`ReplicaManager.makeFollowers` @ 0.10.2.0; `LeaderEpochFileCache.endOffsetFor`, "
         "`ReplicaFetcherThread.maybeTruncate` @ 0.11.0.0; `AbstractFetcherThread.getOffsetTruncationState` @ "
         "2.0.0, 2.1.0; KIP-101, KIP-279",
         (AS_KAFKA, "all", ""),
         steps=("BecomeFollower",)),
    _row("epoch-cache", "epoch cache", "epoch-cache",
         "a leader's epoch enters its cache at its first append in it (`kip101`, `kip279`) or when it becomes "
         "leader (from `kip320`); an append starts an entry only for an epoch above the cache's latest",
         "`Partition.makeLeader` @ 2.0.0 (no entry), @ 2.1.0 (`epochCache.assign`, KAFKA-7415); `Log.append` @ "
         "0.11.0.0; `LeaderEpochFileCache.assign` @ 0.11.0.0, 2.0.0, 2.1.0 (`truncateAndAppend`)",
         (AS_KAFKA, "all", "`hw` keeps a cache nothing reads; from 2.1 an append of an older epoch would cut the "
          "later entries, which fetch fencing never lets happen"),
         steps=("BecomeLeader", "ProducerWrite", "FollowerApplyResponse", "LeaderHandleProduce")),
    _row("answer-before-leading", "OffsetsForLeaderEpoch answered before leading", "fetch-fencing",
         "without fetch fencing, the named leader answered a follower's OffsetsForLeaderEpoch as soon as it was "
         "alive, before it had handled the request that makes it leader; now it must lead (any epoch)",
         "`Partition.lastOffsetForLeaderEpoch` @ 0.11.0.0, 2.0.0 (NOT_LEADER_FOR_PARTITION from a broker that does "
         "not lead), @ 2.1.0 (`getLocalReplica` with `requireLeader`)",
         (AS_KAFKA, "hw kip320 kip903 kafka37 kip966", "from 2.1 the follower waits until the leader leads the "
          "epoch, as the model does (`hw` never asks)"),
         (DEVIATION, "kip101 kip279", "0.11 to 2.0 answer NOT_LEADER_FOR_PARTITION from a broker that does not "
          "lead, and the follower asks again later"),
         fixed="fetch-fencing=off needs the named leader to lead"),
    _row("request-epoch", "the epoch a follower asks for", "epoch-cache",
         "a follower asked OffsetsForLeaderEpoch for its last record's epoch, with a cache whose entries an epoch "
         "started at becoming leader had put out of order; now under `kip101`, `kip279` it asks for its cache's "
         "latest epoch, and an older epoch never enters the cache",
         "`ReplicaFetcherThread.buildLeaderEpochRequest` @ 0.11.0.0, 2.0.0 (`latestEpoch`); "
         "`LeaderEpochFileCache.assign` @ 0.11.0.0, 2.0.0 (`epoch > latestEpoch && offset >= latestOffset`)",
         (AS_KAFKA, "hw kip320 kip903 kafka37 kip966", "with fetch fencing a cache stays in order (`hw` never asks)"),
         (DEVIATION, "kip101 kip279", "0.11 and 2.0 ignore an epoch that is not above the cache's latest and ask "
          "for the cache's latest epoch (KAFKA-6880's trace under 2.0 rested on this)"),
         fixed="rule epoch-cache=first-append"),
    _row("when-truncation", "when truncation happens", None,
         "at `BecomeFollower`, with the OffsetsForLeaderEpoch exchange in the same step, for every request naming "
         "another leader in a higher epoch (from `kip320`, once that leader leads the epoch)",
         "`Partition.makeFollower` @ 0.10.2.0, 2.0.0 (nothing for the same leader), @ 2.1.0 (a new epoch is "
         "enough); from 2.8 on the FETCH answer's diverging epoch: `Partition.readRecords`, "
         "`AbstractFetcherThread.truncateOnFetchResponse` @ 3.4.0, 3.7.0 (KAFKA-10554)",
         (AS_KAFKA, "0.10-2.7", ""),
         (ABSTRACTION, "2.8-4.1", "same point, reached eagerly: from 2.8 a follower keeps its log, fetches from its "
          "LEO with its last epoch and truncates when the answer names a diverging epoch, by the same walk; the "
          "divergent tail lives one round longer"),
         steps=("BecomeFollower",)),
    _row("same-leader-truncation", "a new epoch with the same leader", None,
         "a follower told of a new epoch with the leader it already followed truncated as for a new leader; now "
         "without fetch fencing it truncates nothing",
         "`Partition.makeFollower` @ 0.10.2.0, 2.0.0 (false when the leader is unchanged), @ 2.1.0 (a new epoch "
         "is enough)",
         (AS_KAFKA, "kip320 kip903 kafka37 kip966", ""),
         (DEVIATION, "hw kip101 kip279", "before 2.1 a new epoch with the same leader truncates nothing"),
         fixed="fetch-fencing=off truncates nothing for the same leader"),
    _row("fetch-fencing", "fetch fencing", "fetch-fencing",
         "a broker that does not believe it leads refuses a FETCH; from `kip320` a leader in another epoch refuses "
         "too; a refusal records nothing",
         "`ReplicaManager.readFromLocalLog` @ 0.10.2.0; `Partition.localReplicaWithEpochOrException` @ 2.1.0; "
         "`Partition.getLocalLog` @ 3.4.0; KIP-320",
         (AS_KAFKA, "all", "the error kinds are merged, since a refused refetch changes nothing"),
         steps=("FollowerFetch", "LeaderServeFetch")),
    _row("offset-out-of-range", "a FETCH past the leader's LEO", None,
         "the leader records the offset as the follower's LEO and answers with no records; the follower keeps its "
         "longer log (reachable under `hw` and `kip101` after a power loss)",
         "`ReplicaFetcherThread.handleOffsetOutOfRange` @ 0.10.2.0; `AbstractFetcherThread.fetchOffsetAndTruncate` "
         "@ 3.4.0",
         (DEVIATION, "all", "Kafka answers OFFSET_OUT_OF_RANGE and the follower truncates to the leader's LEO "
          "(0.10 to 2.0 with unclean election off: the broker exits instead)")),
    _row("follower-hw", "follower HW", None,
         "min(answer's HW, LEO), and it may go down; truncation caps it; the answer carries the HW read after the "
         "leader recorded this FETCH",
         "`ReplicaFetcherThread.processPartitionData` @ 0.10.2.0, 3.4.0; `Partition.readRecords` @ 3.4.0; "
         "`DelayedFetch.onComplete` @ 3.7.0",
         (ABSTRACTION, "all", "an answer sent at once carries the HW read before the leader records the follower's "
          "new position; one that waits in purgatory reads it again, which is the model's value"),
         steps=("FollowerApplyResponse",)),
    _row("hw-advance", "HW advance", "hw-advance",
         "min of the LEOs the leader knows over its ISR, itself included, only ever raised. `kafka37`, `kip966`: "
         "frozen while the ISR is below min.insync.replicas",
         "`Partition.maybeIncrementLeaderHW` @ 0.10.2.0, 3.4.0, 3.7.0 (`isUnderMinIsr`, KAFKA-15583)",
         (AS_KAFKA, "all", "the strict min-ISR rule from 3.7"),
         steps=("ProducerWrite", "LeaderServeFetch", "LeaderShrinkIsr", "LeaderExpandIsr", "LeaderHandleProduce")),
    _row("hw-caught-up-followers", "HW held by caught-up followers outside the ISR", None,
         "only the ISR counts for the HW",
         "`Partition.maybeIncrementLeaderHW` @ 3.4.0, 3.7.0",
         (MISSING, "all", "Kafka also counts followers caught up within replica.lag.time.max.ms (from 2.7 also a "
          "pending expansion), so its HW can be lower than the model's")),
    _row("acks-all", "acks=all checks", None,
         "refused (NOT_ENOUGH_REPLICAS) while the ISR is below min.insync.replicas; acknowledged once the HW passes "
         "the record with the ISR at min.insync.replicas; never if the leader crashed or its epoch changed",
         "`Partition.appendRecordsToLeader`, `Partition.checkEnoughReplicasReachOffset` @ 0.10.2.0, 3.4.0, 3.7.0",
         (AS_KAFKA, "all", ""),
         steps=("ProducerWrite", "ProducerSend", "LeaderHandleProduce", "ProducerReceiveAck", "ProducerTimeout")),
    _row("pending-acks-reelection", "acknowledgements across a re-election", None,
         "a leader re-elected in a new epoch drops its pending acknowledgements",
         "`Partition.checkEnoughReplicasReachOffset` @ 3.4.0",
         (MISSING, "all", "Kafka keeps them and may still acknowledge the record")),
    _row("isr-shrink", "ISR shrink", None,
         "a true leader drops one follower whose remote LEO is behind its LEO, at any moment (time is abstract), "
         "in its own epoch",
         "`Partition.getOutOfSyncReplicas` @ 0.10.2.0, 2.1.0 (KAFKA-7152), 3.4.0",
         (ABSTRACTION, "all", "one follower per step, where Kafka drops every lagging one at once"),
         steps=("LeaderShrinkIsr",)),
    _row("stuck-follower-shrink", "ISR shrink of a stuck follower", None,
         "a follower whose LEO equals the leader's stays in the ISR",
         "`Partition.getOutOfSyncReplicas` @ 0.10.2.0, 2.0.0, 2.1.0 (KAFKA-7152)",
         (MISSING, "hw kip101 kip279", "0.10 to 2.0 also drop a follower that stopped fetching even when its LEO "
          "equals the leader's"),
         (AS_KAFKA, "kip320 kip903 kafka37 kip966", "")),
    _row("isr-expand", "ISR expand", "broker-epochs",
         "a true leader adds a follower whose remote LEO, reported by a FETCH made outside the ISR, has reached its "
         "HW (from `kip320`, also the start of its epoch); up to `kip320` even after the follower restarted; from "
         "`kip903` a fenced broker, or a LEO from before the follower's latest registration, is refused",
         "`Partition.maybeExpandIsr` @ 0.10.2.0, 2.1.0 (KAFKA-7128), 3.4.0; `Partition.isReplicaIsrEligible` @ "
         "3.5.0; `ReplicationControlManager.ineligibleReplicasForIsr` @ 3.5.0 (KIP-903, KIP-841); "
         "`Replica.updateFetchStateOrThrow` @ 3.7.0 (KAFKA-15221)",
         (AS_KAFKA, "all", "thresholds as Kafka; from 2.7 the AlterPartition is sent and may commit later, after "
          "the follower restarted (KAFKA-14139), until KIP-903's broker epochs"),
         steps=("LeaderExpandIsr",)),
    _row("expand-outside-fetch", "ISR expansion after the FETCH was handled", "isr-expansion",
         "`hw` to `kip279` (rule isr-expansion=in-fetch): the leader adds a caught-up follower while it handles its "
         "FETCH, in that step. From `kip320`: the expansion is a step of its own, at any moment after that FETCH",
         "`Partition.maybeExpandIsr` @ 0.10.2.0, 2.1.0 (decided and written while the FETCH is handled), @ 2.7.0 "
         "(AlterIsr, KIP-497)",
         (AS_KAFKA, "0.10-2.0 2.7-4.1", "from 2.7 the AlterPartition is sent and committed later"),
         (DEVIATION, "2.1-2.6", "2.1 to 2.6 decide and write the expansion while handling that FETCH; `kip320` "
          "follows 2.7's AlterIsr")),
    _row("expand-on-fetch-inside-isr", "ISR expansion on a LEO reported inside the ISR", "isr-expansion",
         "an expansion could use a LEO the follower reported while it was still in the ISR; now the shrink marks that "
         "LEO, and only the follower's next FETCH counts",
         "`Partition.maybeExpandIsr`, `Partition.canAddReplicaToIsr` @ 3.3.0, 3.4.0, 3.5.0 (only for a FETCH "
         "from a follower outside the ISR)",
         (DEVIATION, "all", "Kafka considers an expansion only while it handles a FETCH from a follower outside "
          "the ISR, on that FETCH's offset"),
         fixed="`LeaderShrinkIsr` marks the dropped follower's LEO (`isr.may_join`)"),
    _row("expand-dead-broker", "ISR expansion with a broker the controller counts dead", None,
         "up to `kip320` a leader adds to the ISR a follower the controller counts dead (crashed or fenced, not "
         "registered again), on a LEO that follower's FETCH reported, and the write is accepted; from `kip903` a "
         "fenced broker is refused",
         "`Partition.maybeExpandIsr`, `Partition.updateIsr` @ 0.10.2.0, 2.1.0 (the leader writes ZooKeeper, no "
         "liveness check); `KafkaController.processAlterIsr` @ 2.7.0, 3.1.0; `KafkaController.processAlterPartition` "
         "@ 3.2.0 (only the sender's broker epoch and the leader epoch are checked); "
         "`KafkaController.tryProcessAlterPartition` @ 3.3.0, 3.4.0 (`isr -- liveBrokerIds`, KIP-841); "
         "`Partition.isReplicaIsrEligible` @ 3.3.0, 3.4.0 (ZooKeeper mode: `hasAliveBroker`)",
         (AS_KAFKA, "0.10-3.2 kip903 kafka37 kip966", "0.10 to 2.6: the leader writes the ISR to ZooKeeper with no "
          "check of the follower's liveness; 2.7 to 3.2: the controller commits the AlterIsr (AlterPartition from "
          "3.2) without one; from 3.5 KRaft refuses a fenced broker, as the model does"),
         (DEVIATION, "3.3-3.4", "the ZooKeeper controller of 3.3 and 3.4 refuses an ISR that holds a broker it counts "
          "dead (INELIGIBLE_REPLICA, KIP-841), and a leader whose metadata names the broker dead does not ask")),
    _row("broker-epoch-at-registration", "when a broker's epoch changes", "broker-epochs",
         "from `kip903`: when a broker registers again (`ControllerNoticeRestart`) it has a new broker epoch, and "
         "every leader's remote LEO of it from before counts no more for an expansion; between its crash and the "
         "fencing the old position still counts",
         "`ClusterControlManager.registerBroker` @ 3.5.0 (a new epoch at each accepted registration; refused while "
         "the old session is valid); `ReplicationControlManager.ineligibleReplicasForIsr` @ 3.5.0",
         (AS_KAFKA, "all", "no broker epochs before `kip903`"),
         steps=("ControllerNoticeRestart",)),
    _row("become-leader", "becoming leader: epoch, cache, remote LEOs", None,
         "takes the epoch and ISR, starts a cache entry (epoch, LEO), forgets every remote LEO, keeps its follower "
         "HW and recomputes it",
         "`Partition.makeLeader` @ 0.10.2.0, 2.0.0, 2.1.0 (KAFKA-7415), 3.4.0; `Replica.resetReplicaState` @ 3.4.0",
         (AS_KAFKA, "all", "epoch and HW as Kafka"),
         steps=("BecomeLeader",)),
    _row("cache-entry-at-become-leader", "epoch-cache entry at becoming leader", "epoch-cache",
         "a broker that becomes leader started a cache entry for its epoch at its LEO under every variant; now only "
         "from `kip320` (rule epoch-cache)",
         "`Partition.makeLeader` @ 2.0.0 (no entry), @ 2.1.0 (`epochCache.assign`, KAFKA-7415); `Log.append` @ "
         "0.11.0.0 (the first append assigns)",
         (AS_KAFKA, "hw kip320 kip903 kafka37 kip966", "2.1's `makeLeader` assigns it (`hw` reads no cache)"),
         (DEVIATION, "kip101 kip279", "0.11 and 2.0.0 add it only at the leader's first append in the epoch, so "
          "until then the leader answers OffsetsForLeaderEpoch for that epoch with UNDEFINED_EPOCH_OFFSET"),
         fixed="rule epoch-cache=first-append"),
    _row("remote-leos-on-reelection", "remote LEOs on a re-election", None,
         "a broker that leads again in a new epoch forgets the LEOs its followers reported",
         "`Partition.makeLeader` @ 2.1.0, 3.4.0 (`isNewLeader`); `Replica.resetReplicaState` @ 3.4.0",
         (DEVIATION, "all", "Kafka forgets them only when the broker did not lead before")),
    _row("controller-on-failure", "controller reaction to a failure", None,
         "the dead broker leaves the ISR unless it is the last member (`kip966`: even then, and it may join the "
         "ELR); if it led, or the partition was offline and someone can be elected, an election. A notice that "
         "changes nothing in the partition's record writes nothing. `hw` to `kip279`: the requests queued for the "
         "broker are dropped",
         "`KafkaController.onBrokerFailure`, `ReplicaStateMachine.doRemoveReplicasFromIsr` @ 3.4.0; "
         "`KafkaController.onBrokerFailure`, `KafkaController.removeReplicaFromIsr`, "
         "`OfflinePartitionLeaderSelector.selectLeader` @ 0.10.2.0; `ControllerChannelManager.removeBroker` @ 0.10.2.0, "
         "2.1.0; `ReplicationControlManager.handleBrokerFenced` @ 3.4.0",
         (AS_KAFKA, "all", ""),
         steps=("ControllerNoticeFailure", "FenceLiveBroker", "ControlledShutdown")),
    _row("last-isr-member-unclean", "last ISR member with unclean election on", None,
         "the last ISR member stays in the ISR when it dies",
         "`KafkaController.removeReplicaFromIsr` @ 0.10.2.0, 0.11.0.0",
         (DEVIATION, "hw kip101", "0.10 and 0.11 empty the ISR when its last member dies and unclean election is "
          "on"),
         (AS_KAFKA, "kip279 kip320 kip903 kafka37 kip966", "")),
    _row("controller-on-restart", "controller reaction to a restart (a bounced broker)", "bounce",
         "`hw` to `kip279` (rule bounce=missed): a broker the controller has not seen die is counted alive, may be "
         "elected and is sent LeaderAndIsr whether it is up or not; what was sent and not handled when it stopped "
         "reaches its next incarnation, until the controller sees it dead and drops its queue; a bounce the "
         "controller missed changes nothing, and the broker, back with nothing queued, leads or follows nothing "
         "until the controller next writes the partition. A broker it saw dead is sent the current LeaderAndIsr "
         "when it is back, and elected if the partition is offline. From `kip320` (rule bounce=failed-first) a "
         "restarted broker the controller has not seen die is first handled as failed (it leaves the ISR unless it "
         "is the last member, leadership moves, new epoch) before anything else; then it is sent the current "
         "LeaderAndIsr, and re-elected only where it is the last ISR member",
         "`ReplicaStateMachine.BrokerChangeListener` @ 0.10.2.0; `KafkaController.BrokerChange` @ 0.11.0.0, "
         "1.0.0, 1.1.0, 2.0.0, 2.1.0 (new brokers: the set read minus the live ones; dead: the live minus the set "
         "read); `KafkaController.onBrokerStartup` @ 0.10.2.0, 2.1.0; `RequestSendThread.doWork`, "
         "`ControllerChannelManager.removeBroker` @ 0.10.2.0, 2.1.0; `KafkaController.processBrokerChange` "
         "(`bouncedBrokerIds`) @ 3.4.0; `ClusterControlManager.registerBroker` (DuplicateBrokerRegistrationException "
         "while the old session is valid) @ 3.4.0, 3.7.0",
         (AS_KAFKA, "hw kip101 kip279", "the ZooKeeper controller before KAFKA-7235 (KAFKA-1120)"),
         (MISSING, "2.1", "2.1's controller could still miss a bounce (fixed by KAFKA-7235 in 2.2)"),
         (AS_KAFKA, "2.2-4.1", "ZooKeeper from 2.2, and KRaft"),
         steps=("ControllerNoticeRestart",)),
    _row("controller-failover", "controller failover", "bounce",
         "`hw` to `kip279` (rule bounce=missed): a new controller may take over at any moment; it counts alive every "
         "broker registered in ZooKeeper (one the old controller saw dead and that is back, and one down whose "
         "session has not expired yet), sends each the current LeaderAndIsr (a broker back without one takes it "
         "up in the current epoch), and elects a leader among the live ISR members if the partition has none; the "
         "old controller's queues for brokers that are down are lost. From `kip320`: left out",
         "`KafkaController.onControllerFailover`, `ReplicaStateMachine.startup`, `ReplicaStateMachine.handleStateChange` "
         "(to OnlineReplica: the current LeaderAndIsr), `PartitionStateMachine.startup` @ 0.10.2.0; "
         "`KafkaController.onControllerFailover`, `ReplicaStateMachine.startup`, "
         "`ReplicaStateMachine.doHandleStateChanges` @ 2.1.0",
         (AS_KAFKA, "hw kip101 kip279", "the new controller counts a down broker alive exactly while the old one did "
          "(a session that expires meanwhile is the old controller's failure notice first)"),
         (MISSING, "kip320", "2.1 to 3.4 resend the current LeaderAndIsr too; from 2.2 a broker always has it "
          "(a bounce is failed first), but 2.1's missed bounce is left out"),
         (AS_KAFKA, "kip903 kafka37 kip966", "KRaft brokers read the metadata log: a new controller sends nothing"),
         steps=("ControllerFailover",)),
    _row("resend-after-restart", "a LeaderAndIsr answered by nobody", None,
         "a LeaderAndIsr a broker handled is gone from its inbox, even when the broker stopped before it answered",
         "`RequestSendThread.doWork` @ 0.10.2.0, 2.1.0 (the request is sent again until an answer comes back); "
         "`LeaderAndIsrRequest` carries the broker epoch from 2.2 (KIP-380)",
         (MISSING, "hw kip101 kip279 2.1", "0.10 to 2.1 send it again to the broker's next incarnation, which "
          "handles it afresh (a leader back leads again in the same epoch), unless the controller saw the broker "
          "dead first"),
         (AS_KAFKA, "2.2-4.1", "from 2.2 a request of an old broker epoch is refused; KRaft has no LeaderAndIsr")),
    _row("preferred-replica-election", "the controller's move to the preferred replica", "preferred-replica",
         "`hw` to `kip279` (rule preferred-replica=rebalanced): the partition's preferred replica is the first of its "
         "assignment, its first leader; when it does not lead, is counted alive and is in the ISR, the controller "
         "may elect it at any moment, in a new epoch with the same ISR. From `kip320` (rule "
         "preferred-replica=left-out) no replica is preferred and leadership never moves on its own",
         "`KafkaController.checkAndTriggerPartitionRebalance`, `PreferredReplicaPartitionLeaderSelector.selectLeader` "
         "@ 0.10.2.0; `KafkaController.checkAndTriggerAutoLeaderRebalance` @ 0.11.0.0, 1.0.0, 1.1.0, 2.0.0, 2.1.0, "
         "3.4.0; `PartitionStateMachine.leaderForPreferredReplica` @ 2.1.0; `KafkaConfig` "
         "(auto.leader.rebalance.enable true by default) @ 0.10.2.0, 0.11.0.0, 1.0.0, 1.1.0, 2.0.0, 2.1.0",
         (AS_KAFKA, "hw kip101 kip279", "at any moment, where Kafka looks every "
          "leader.imbalance.check.interval.seconds and moves the partition only while its preferred replica's "
          "broker leads too few of the partitions it prefers, which the other partitions decide"),
         (MISSING, "kip320 kip903 kafka37 kip966", "Kafka moves leadership back to the preferred replica by default "
          "in these releases too (`checkAndTriggerAutoLeaderRebalance` @ 2.1.0, 3.4.0; KRaft's "
          "`QuorumController` `maybeBalancePartitionLeaders` @ 3.7.0); the model leaves it out"),
         steps=("PreferredReplicaElection",)),
    _row("registration-race", "KRaft registration after the session expired", None,
         "a broker is taken back only after the controller has failed its old incarnation",
         "`ClusterControlManager.registerBroker`, `BrokerHeartbeatManager.hasValidSession` @ 3.5.0, 3.7.0",
         (AS_KAFKA, "hw kip101 kip279 kip320", "the ZooKeeper controller handles a bounce as failure then startup, "
          "or, before 2.2, not at all"),
         (MISSING, "kip903 kafka37 kip966", "a registration after the old session expired but before the fencing "
          "ran replaces the old one with no partition change: the broker leads again in the same epoch")),
    _row("bounce-taken-back", "a bounced broker taken back directly", "bounce",
         "`hw` to `kip279` (rule bounce=taken-back) took a broker that restarted before the controller saw it die "
         "straight back, electing among the live ISR members, itself included, in a new epoch; now a bounce the "
         "controller missed changes nothing (rule bounce=missed)",
         "`ReplicaStateMachine.BrokerChangeListener` @ 0.10.2.0; `KafkaController.BrokerChange` @ 0.11.0.0, "
         "2.1.0 (a bounce seen is neither new nor dead); `KafkaController.processBrokerChange` "
         "(`bouncedBrokerIds`) @ 3.4.0",
         (DEVIATION, "all", "no release elects on a bounce it did not see fail: 0.10 to 2.1 do nothing, 2.2 on fail "
          "the broker first"),
         fixed="choice bounce=taken-back retired for bounce=missed"),
    _row("leader-epoch-bump", "leader-epoch bumps", "leader-epoch-bump",
         "`hw` to `kip320`: every controller write is a new leader epoch; a leader's own ISR change keeps its epoch. "
         "`kip903`: also every ISR shrink, the leader's own included, with the same leader (KRaft below metadata "
         "version 3.6-IV0). `kafka37`, `kip966`: a new leader epoch only when the leader changes; an ISR or ELR "
         "change alone keeps it",
         "`LeaderAndIsr.newLeaderAndIsr` @ 2.1.0; `KafkaController.processAlterPartition` @ 3.4.0; "
         "`PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded` @ 3.5.0, 3.6.0, 3.7.0 (KAFKA-15021); "
         "`MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink` @ 3.6.0 (below 3.6-IV0); "
         "`StorageTool.getMetadataVersion` @ 3.6.0 (formats at `MetadataVersion.latest`, 3.6-IV2); "
         "`Partition.handleAlterPartitionUpdate` @ 3.5.0",
         (AS_KAFKA, "hw kip101 kip279 kip320 kip903", "ZooKeeper, then KRaft at metadata version 3.5: `kip903` stands "
          "for 3.6 only on a cluster still below metadata version 3.6-IV0 (one upgraded from 3.5 and not yet "
          "finalized); 3.6.0 formats a new cluster at 3.6-IV2, where a shrink keeps the leader epoch, as in "
          "`kafka37`"),
         (ABSTRACTION, "kafka37 kip966", "a same-epoch ISR change reaches the leader at once, where KRaft's brokers "
          "apply it a little later (the leader's larger ISR in between only holds its HW back)"),
         steps=("LeaderShrinkIsr", "ControllerNoticeFailure", "ControllerNoticeRestart", "FenceLiveBroker",
                "ControlledShutdown", "PreferredReplicaElection", "ControllerFailover")),
    _row("election-order", "election order", "elr",
         "any live ISR member, each choice its own step; `hw` to `kip279` (rule preferred-replica=rebalanced) the "
         "preferred replica, the first of the assignment, whenever it is a candidate. `kip966`: with an empty ISR, "
         "an unfenced ELR member, else, with the ELR empty too, the last known leader if unfenced",
         "`OfflinePartitionLeaderSelector.selectLeader`, `ControlledShutdownLeaderSelector.selectLeader` @ "
         "0.10.2.0; `PartitionLeaderElectionAlgorithms` @ 2.1.0; `Election.leaderForOffline` @ 3.4.0; "
         "`PartitionChangeBuilder.electAnyLeader` @ 3.4.0; `PartitionChangeBuilder.electLeader`, "
         "`PartitionChangeBuilder.canElectLastKnownLeader` @ 1eb7644 (trunk, not a tag); KIP-966",
         (ABSTRACTION, "all", "Kafka takes the first in assignment order, which differs per partition; a free "
          "choice covers every order and keeps symmetry reduction sound"),
         steps=("ControllerNoticeFailure", "ControllerNoticeRestart", "FenceLiveBroker", "ControlledShutdown",
                "ControllerFailover")),
    _row("last-known-leader-with-elr", "last known leader while the ELR is not empty", "elr",
         "`kip966` elected the last known leader when the ISR was empty and no ELR member was unfenced; now only "
         "when the ELR is empty too",
         "`PartitionChangeBuilder.canElectLastKnownLeader` @ 1eb7644 (trunk, not a tag: `targetElr.isEmpty() && "
         "targetIsr.isEmpty()`)",
         (AS_KAFKA, "hw kip101 kip279 kip320 kip903 kafka37", "no ELR"),
         (DEVIATION, "kip966", "Kafka elects the last known leader only when the ELR is empty too"),
         fixed="`elr.elr_candidates` needs the ELR empty"),
    _row("last-known-leader-fenced", "a fenced last known leader", "elr",
         "the last known leader is elected only while it is unfenced",
         "`PartitionChangeBuilder.canElectLastKnownLeader` @ 1eb7644 (trunk, not a tag: the check only logs)",
         (AS_KAFKA, "hw kip101 kip279 kip320 kip903 kafka37", "no ELR"),
         (MISSING, "kip966", "trunk of October 2024 elects it even when fenced, which only leaves the partition "
          "without a working leader until the broker registers")),
    _row("unclean-election", "unclean election", None,
         "with the option on and no candidate above, any live replica, which becomes the whole ISR",
         "`OfflinePartitionLeaderSelector.selectLeader` @ 0.10.2.0; `Election.leaderForOffline` @ 3.4.0; "
         "`PartitionChangeBuilder.electAnyLeader` @ 3.4.0",
         (ABSTRACTION, "all", "Kafka's RECOVERING state (KIP-704: no ISR growth until the leader has recovered) is "
          "left out; it only delays")),
    _row("elr-upkeep", "ELR upkeep", "elr",
         "`kip966`: when the controller's ISR changes and is below min.insync.replicas: ELR = (ELR + old ISR) - new "
         "ISR - unclean registrants; emptied once the ISR reaches min.insync.replicas; no new epoch for an ELR change",
         "`PartitionChangeBuilder.maybePopulateTargetElr`, `ReplicationControlManager.isElrEnabled` @ 1eb7644 (trunk, "
         "not a tag); KIP-966",
         (AS_KAFKA, "all", "3.7 to 3.9 ship ELR only at unstable metadata versions, as `kafka37` assumes")),
    _row("shutdown-registration", "clean/unclean shutdown and registration", "elr",
         "`kip966`: `Crash` is unclean, `CleanShutdown` flushes, checkpoints and stops; a broker is fenced until it "
         "registers, and after an unclean stop it leaves the ISR and the ELR then. Other variants: how a broker "
         "stopped is never read",
         "`ClusterControlManager.registerBroker` @ 3.7.0 (test only logged), @ 3.8.0 (previous broker epoch against "
         "the registered one, then `ReplicationControlManager.handleBrokerUncleanShutdown`), @ 1eb7644 (trunk, not a "
         "tag: a new incarnation id); KAFKA-18635",
         (AS_KAFKA, "all", "`kip966` as 4.0, which restored 3.8's test (KAFKA-18635)"),
         steps=("CleanShutdown",)),
    _row("fencing", "fencing of a live broker", None,
         "with `--max-fencings`, `FenceLiveBroker`: the controller handles a running broker as failed; the broker "
         "keeps its log and view, may still believe it leads and act on requests it has, and is taken back by "
         "`ControllerNoticeRestart` when it registers again. From `kip903` a fenced broker is never added to the ISR",
         "`KafkaController.processBrokerChange` @ 3.4.0 (session expiry); `BrokerHeartbeatManager.findOneStaleBroker`, "
         "`ReplicationControlManager.maybeFenceOneStaleBroker` @ 3.4.0; "
         "`ReplicationControlManager.ineligibleReplicasForIsr` @ 3.5.0 (KIP-841)",
         (ABSTRACTION, "all", "the broker learns nothing of its fencing until it registers again (in KRaft it may "
          "see the metadata change sooner; it only moves it to following earlier)"),
         steps=("FenceLiveBroker",)),
    _row("controlled-shutdown", "controlled shutdown", None,
         "with `--controlled-shutdown`, `ControlledShutdown`: the controller handles the broker as gone while it "
         "still runs, then the broker flushes, checkpoints its HW and stops, leaving the clean-shutdown marker",
         "`KafkaController.doControlledShutdown`, `Election.leaderForControlledShutdown` @ 3.4.0; "
         "`ReplicationControlManager.handleBrokerInControlledShutdown` @ 3.4.0, 3.7.0",
         (ABSTRACTION, "all", "one step, where Kafka moves leadership, answers and then the broker stops; its end "
          "state is Kafka's"),
         steps=("ControlledShutdown",)),
    _row("restart-from-disk", "crash and restart from disk", None,
         "a crash keeps the flushed records (all of them with `--flush sync`), their cache entries and the HW "
         "checkpoint; HW = min(checkpoint, LEO); nothing in memory survives",
         "`LogManager.loadLogs`, `Log.recoverLog`, `Partition.getOrCreateReplica` @ 0.10.2.0; "
         "`LeaderEpochFileCache.assign` @ 0.11.0.0; `LogLoader.recoverLog` @ 1eb7644 (trunk, not a tag)",
         (ABSTRACTION, "all", "HW and cache as Kafka; the unflushed tail is lost whole, where Kafka's recovery may "
          "keep part of it"),
         steps=("Crash", "Restart", "CheckpointHw", "Flush")),
    _row("empty-disk-restart", "empty-disk restart", None,
         "`RestartEmpty`, bounded by `--max-disk-losses`: a crashed broker comes back with no records, no epoch "
         "cache, HW and checkpoint 0 and no clean-shutdown marker",
         "`LogManager.getOrCreateLog` @ 3.4.0; `ReplicaManager.handleLogDirFailure` @ 2.1.0 (KIP-112)",
         (ABSTRACTION, "all", "the broker keeps its id, as a replaced disk does; a broker given a new id is a "
          "reassignment, left out"),
         steps=("RestartEmpty",)),
)

BY_KEY = {row.key: row for row in ROWS}
