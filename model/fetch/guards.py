"""The `fetch` model's named guards and events (`checker.kernel.guards`).

Each guard is one condition an action tests before it takes a step, named as what must hold;
the actions test it through `holds(tally, GUARD, condition)`, so the coverage report can say
which condition kept an action from firing. The events name the outcomes of the controller's
elections, which several action kinds share (a failure noticed, a restart noticed, a fencing,
a controlled shutdown): which replica the controller picked, and from where.
"""

from __future__ import annotations

from checker.kernel.guards import GuardBook

from .kinds import ACTION_KINDS

BOOK = GuardBook(ACTION_KINDS)
guard, event = BOOK.guard, BOOK.event

# -- the controller's elections, by where the new leader comes from --
CLEAN_ELECTION = event("CleanElection")
"""A live ISR member elected."""
ELR_ELECTION = event("ElrElection")
"""KIP-966: an eligible leader replica elected, the ISR being empty."""
LAST_LEADER_ELECTION = event("LastLeaderElection")
"""KIP-966: the last known leader elected, the ISR and the ELR offering nobody."""
UNCLEAN_ELECTION = event("UncleanElection")
"""A live replica outside the ISR (and the ELR) elected: unclean.leader.election.enable."""
PARTITION_OFFLINE = event("PartitionOffline")
"""The controller found nobody to elect: the partition has no leader."""
ELECTIONS = ("CleanElection", "ElrElection", "LastLeaderElection", "UncleanElection")

ELECTION_EPOCH = guard(ELECTIONS, "a leader epoch remains for the election (--max-epoch)")
ELR_ON = guard(("ElrElection", "LastLeaderElection"), "KIP-966's eligible leader replicas are on (rule elr=on)")
ISR_EMPTY = guard(("ElrElection", "LastLeaderElection"), "the ISR is empty")
ELR_MEMBER_UNFENCED = guard("ElrElection", "an ELR member is unfenced")
LAST_LEADER_UNFENCED = guard("LastLeaderElection", "the ELR is empty and the last known leader is unfenced")
NO_CLEAN_CANDIDATE = guard("UncleanElection", "no ISR (or ELR) member can be elected")
UNCLEAN_ON = guard("UncleanElection", "unclean.leader.election is on")
ANY_REPLICA_UP = guard("UncleanElection", "a replica outside the ISR is up and unfenced")

# -- the producer without retries --
WRITE_NO_RETRIES = guard("ProducerWrite", "the producer does not retry (--retries off)")
WRITE_RECORDS_LEFT = guard("ProducerWrite", "records remain to write (--max-records)")
WRITE_ALIVE = guard("ProducerWrite", "the broker is alive")
WRITE_LEADS = guard("ProducerWrite", "the broker believes it leads")
WRITE_ROOM = guard("ProducerWrite", "its log has room (--log-size)")
WRITE_ENOUGH_INSYNC = guard("ProducerWrite", "acks=all: its ISR has min.insync.replicas members")

# -- replication by FETCH --
FETCH_ALIVE = guard("FollowerFetch", "the follower is alive")
FETCH_HAS_LEADER = guard("FollowerFetch", "it follows another replica")
FETCH_IDLE = guard("FollowerFetch", "it has no FETCH in flight")
SERVE_REQUEST = guard("LeaderServeFetch", "a FETCH waits to be served")
SERVE_ALIVE = guard("LeaderServeFetch", "the replica it was sent to is alive")
APPLY_ALIVE = guard("FollowerApplyResponse", "the follower is alive")
APPLY_RESPONSE = guard("FollowerApplyResponse", "an answer to its FETCH waits")

# -- the leader's ISR changes --
SHRINK_ISR_QUORUM = guard("LeaderShrinkIsr", "the quorum is Kafka's ISR (--quorum isr)")
SHRINK_TRUE_LEADER = guard("LeaderShrinkIsr", "the replica is the true leader")
SHRINK_MEMBER = guard("LeaderShrinkIsr", "the follower is in its ISR")
SHRINK_BEHIND = guard("LeaderShrinkIsr", "the follower's remote LEO is behind the leader's LEO")
SHRINK_EPOCH = guard("LeaderShrinkIsr", "leader-epoch-bump=isr-shrink: a leader epoch remains (--max-epoch)")
EXPAND_ISR_QUORUM = guard("LeaderExpandIsr", "the quorum is Kafka's ISR (--quorum isr)")
EXPAND_AFTER_FETCH = guard("LeaderExpandIsr", "isr-expansion=alter-partition: the expansion is a step of its own")
EXPAND_TRUE_LEADER = guard("LeaderExpandIsr", "the replica is the true leader")
EXPAND_OUTSIDE = guard("LeaderExpandIsr", "the follower is outside its ISR")
EXPAND_AT_HW = guard("LeaderExpandIsr", "the follower's remote LEO has reached the leader's HW")
EXPAND_AT_EPOCH_START = guard("LeaderExpandIsr", "fetch-fencing: it has reached the leader epoch's start offset")
EXPAND_FRESH = guard("LeaderExpandIsr", "its LEO came from a FETCH made outside the ISR (broker-epochs: of its "
                     "current registration, and it is unfenced)")

# -- brokers stopping and starting --
CRASHES_LEFT = guard("Crash", "stops remain (--max-crashes)")
CRASH_ALIVE = guard("Crash", "the broker is alive")
CLEAN_SHUTDOWN_ELR = guard("CleanShutdown", "KIP-966 tells clean from unclean shutdowns (rule elr=on)")
CLEAN_SHUTDOWNS_LEFT = guard("CleanShutdown", "stops remain (--max-crashes)")
CLEAN_SHUTDOWN_ALIVE = guard("CleanShutdown", "the broker is alive")
RESTART_DOWN = guard("Restart", "the broker is down")
DISK_LOSSES_LEFT = guard("RestartEmpty", "disk losses remain (--max-disk-losses)")
RESTART_EMPTY_DOWN = guard("RestartEmpty", "the broker is down")
CHECKPOINT_ALIVE = guard("CheckpointHw", "the broker is alive")
CHECKPOINT_CHANGED = guard("CheckpointHw", "its HW differs from its checkpoint")
FLUSH_ASYNC = guard("Flush", "appends are flushed by a step of their own (--flush async)")
FLUSH_ALIVE = guard("Flush", "the broker is alive")
FLUSH_UNFLUSHED = guard("Flush", "it has unflushed records")
CONTROLLED_ON = guard("ControlledShutdown", "controlled shutdowns are on (--controlled-shutdown)")
CONTROLLED_ISR_QUORUM = guard("ControlledShutdown", "the quorum is Kafka's ISR (--quorum isr)")
CONTROLLED_STOPS_LEFT = guard("ControlledShutdown", "stops remain (--max-crashes)")
CONTROLLED_NO_BOUNCE = guard("ControlledShutdown", "no bounced broker waits for the controller")
CONTROLLED_REGISTERED = guard("ControlledShutdown", "the broker is alive, unfenced and registered")

# -- the controller --
FAILURE_ISR_QUORUM = guard("ControllerNoticeFailure", "the quorum is Kafka's ISR (--quorum isr)")
FAILURE_GONE = guard("ControllerNoticeFailure", "a broker died (or bounced) and the controller has not handled it")
RESTART_NO_BOUNCE = guard("ControllerNoticeRestart", "no bounced broker waits to be failed first")
RESTART_BACK = guard("ControllerNoticeRestart", "a broker is back (restarted, or fenced and registering again)")
FENCE_ISR_QUORUM = guard("FenceLiveBroker", "the quorum is Kafka's ISR (--quorum isr)")
FENCINGS_LEFT = guard("FenceLiveBroker", "fencings remain (--max-fencings)")
FENCE_NO_BOUNCE = guard("FenceLiveBroker", "no bounced broker waits for the controller")
FENCE_REGISTERED = guard("FenceLiveBroker", "the broker is alive, unfenced, registered and in an epoch")
PREFERRED_ON = guard("PreferredReplicaElection", "the partition has a preferred replica "
                     "(rule preferred-replica=rebalanced)")
PREFERRED_NO_BOUNCE = guard("PreferredReplicaElection", "no bounced broker waits for the controller")
PREFERRED_NOT_LEADER = guard("PreferredReplicaElection", "the preferred replica does not lead")
PREFERRED_CANDIDATE = guard("PreferredReplicaElection", "it is in the ISR and the controller counts it alive")
PREFERRED_EPOCH = guard("PreferredReplicaElection", "a leader epoch remains (--max-epoch)")
FAILOVER_MISSED = guard("ControllerFailover", "the controller is 0.10 to 2.1's (rule bounce=missed)")
FAILOVER_CHANGES = guard("ControllerFailover", "the new controller changes something: a broker it counts alive "
                         "lacks the current LeaderAndIsr, a broker seen dead is back, or a queue is lost")

# -- brokers handling LeaderAndIsr --
LEADER_ALIVE = guard("BecomeLeader", "the broker is alive")
LEADER_REQUEST = guard("BecomeLeader", "a newer LeaderAndIsr naming it leader waits")
FOLLOWER_ALIVE = guard("BecomeFollower", "the broker is alive")
FOLLOWER_REQUEST = guard("BecomeFollower", "a newer LeaderAndIsr waits")
FOLLOWER_OTHER_LEADER = guard("BecomeFollower", "it names another replica leader")
FOLLOWER_LEADER_ALIVE = guard("BecomeFollower", "truncation by OffsetsForLeaderEpoch: that leader is alive (and, "
                              "without fetch fencing, leads)")
FOLLOWER_LEADER_IN_EPOCH = guard("BecomeFollower", "fetch-fencing: that leader is in the request's epoch")

# -- a majority quorum's election --
VOTE_MAJORITY_QUORUM = guard("WinElection", "the quorum is a majority (--quorum majority)")
VOTE_EPOCH = guard("WinElection", "a leader epoch remains (--max-epoch)")
VOTE_CANDIDATE = guard("WinElection", "the candidate is alive and not the true leader")
VOTE_GRANTED = guard("WinElection", "every voter of a majority grants its vote")

# -- the retrying producer --
SEND_RETRIES = guard("ProducerSend", "the producer retries (--retries)")
SEND_IN_FLIGHT = guard("ProducerSend", "a new record: fewer than max.in.flight.requests in flight")
SEND_FAILED = guard("ProducerSend", "a record sent before: its last attempt failed")
SEND_LEADER = guard("ProducerSend", "the broker is alive and believes it leads")
PRODUCE_RETRIES = guard("LeaderHandleProduce", "the producer retries (--retries)")
PRODUCE_REQUEST = guard("LeaderHandleProduce", "a produce request waits at the broker")
PRODUCE_ROOM = guard("LeaderHandleProduce", "an append: its log has room (--log-size)")
ACK_RETRIES = guard("ProducerReceiveAck", "the producer retries (--retries)")
ACK_APPENDED = guard("ProducerReceiveAck", "the record was appended")
ACK_ARRIVES = guard("ProducerReceiveAck", "its answer can be sent (acks=all: the HW passed it)")
TIMEOUT_RETRIES = guard("ProducerTimeout", "the producer retries (--retries)")
TIMEOUT_WAITING = guard("ProducerTimeout", "the record was sent and is not acknowledged")


def relied_on(rules: dict[str, str], config) -> list[str]:
    """The actions and events that this rule set and configuration (`FetchConfig`) switch on,
    so that a run in which one never happens has not exercised what it was asked to check (a
    bound too small looks like a safe protocol): a crash, and an election, always; an unclean
    election with unclean.leader.election on; an election from the ELR and a clean shutdown
    under KIP-966; a move to the preferred replica where the rule set has one; and each fault or
    producer behaviour its bound or setting allows."""
    majority = config.quorum != "isr"
    items = ["Crash", "WinElection" if majority else "CleanElection"]
    if config.unclean_leader_election:
        items.append("UncleanElection")
    if rules["elr"] == "on":
        items += ["ElrElection", "CleanShutdown"]
    if rules["preferred-replica"] == "rebalanced" and not majority:
        items.append("PreferredReplicaElection")
    if rules["bounce"] == "missed" and not majority:
        items.append("ControllerFailover")
    switched_on = {"Flush": config.flush == "async", "FenceLiveBroker": config.max_fencings > 0,
                   "RestartEmpty": config.max_disk_losses > 0, "ControlledShutdown": config.controlled_shutdown,
                   "ProducerTimeout": config.retries}
    return items + [name for name, on in switched_on.items() if on]
