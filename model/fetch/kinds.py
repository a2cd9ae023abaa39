"""The `fetch` model's action kinds and how many arguments each takes; an action's code starts
with its kind's index here (see `checker.kernel.steps`).

The controller's kinds and the controlled shutdown name, after the broker, the controller's
leader after the step (`NO_LEADER` when the partition is offline): an election is a choice among
the eligible replicas, and each choice is its own step."""

ACTION_KINDS = ("ProducerWrite", "FollowerFetch", "LeaderServeFetch", "FollowerApplyResponse", "LeaderShrinkIsr",
                "LeaderExpandIsr", "Crash", "Restart", "CheckpointHw", "Flush", "ControllerNoticeFailure",
                "ControllerNoticeRestart", "BecomeLeader", "BecomeFollower", "WinElection", "ProducerSend",
                "LeaderHandleProduce", "ProducerReceiveAck", "ProducerTimeout", "CleanShutdown", "RestartEmpty",
                "ControlledShutdown", "FenceLiveBroker", "PreferredReplicaElection",
                "ControllerFailover")
(PRODUCER_WRITE, FOLLOWER_FETCH, LEADER_SERVE_FETCH, FOLLOWER_APPLY_RESPONSE, LEADER_SHRINK_ISR, LEADER_EXPAND_ISR,
 CRASH, RESTART, CHECKPOINT_HW, FLUSH, CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, BECOME_LEADER,
 BECOME_FOLLOWER, WIN_ELECTION, PRODUCER_SEND, LEADER_HANDLE_PRODUCE, PRODUCER_RECEIVE_ACK,
 PRODUCER_TIMEOUT, CLEAN_SHUTDOWN, RESTART_EMPTY, CONTROLLED_SHUTDOWN, FENCE_LIVE_BROKER,
 PREFERRED_REPLICA_ELECTION, CONTROLLER_FAILOVER) = range(len(ACTION_KINDS))
REPLICA, LEADER_AFTER, EPOCH, VOTER, RECORD = "replica", "leader after", "epoch", "voter", "record"
"""What an argument names: a broker; the controller's leader after the step (a broker, or `NO_LEADER`);
a leader epoch; a voter besides the candidate (a broker, or `NO_VOTER`); a retrying producer's record."""

ARGUMENTS = ((REPLICA,), (REPLICA,), (REPLICA, REPLICA), (REPLICA,), (REPLICA, REPLICA), (REPLICA, REPLICA),
             (REPLICA,), (REPLICA,), (REPLICA,), (REPLICA,), (REPLICA, LEADER_AFTER), (REPLICA, LEADER_AFTER),
             (REPLICA, EPOCH), (REPLICA, REPLICA, EPOCH), (REPLICA, VOTER, VOTER), (RECORD, REPLICA),
             (REPLICA, RECORD), (RECORD,), (RECORD,), (REPLICA,), (REPLICA,), (REPLICA, LEADER_AFTER),
             (REPLICA, LEADER_AFTER), (REPLICA,), (LEADER_AFTER,))
"""Each kind's arguments: (replica), (replica), (leader, follower), (follower), (leader, follower) twice,
(replica) four times, (broker, controller's leader after) twice, (replica, epoch), (replica, leader, epoch),
(candidate, voter, voter), (record, leader), (leader, record), (record) twice, (replica). The retrying
producer's four kinds come after the others, with at most two arguments each (see `checker.kernel.steps`), then
kip966's clean shutdown and the restart on an empty disk (`--max-disk-losses`), (replica) each, and the
controlled shutdown (`--controlled-shutdown`) and the fencing of a live broker (`--max-fencings`), (broker,
controller's leader after) each, and the controller's move of leadership to the preferred replica (rule
preferred-replica=rebalanced), (the preferred replica), and a controller failover (rule bounce=missed), (the
controller's leader after)."""
ARITIES = tuple(len(arguments) for arguments in ARGUMENTS)
"""How many arguments each kind takes."""

REPLICA_ACTS = tuple(kind not in (PRODUCER_SEND, PRODUCER_RECEIVE_ACK, PRODUCER_TIMEOUT, CONTROLLER_FAILOVER)
                     for kind in range(len(ACTION_KINDS)))
"""Per kind, whether its first argument is the replica that acts (the retrying producer's
send, answer and timeout name a record first, a controller failover the leader after it)."""

NO_LEADER = 15
"""The controller's-leader argument of a controller step that leaves the partition offline."""

NO_VOTER = 15
"""A voter argument of WinElection that names nobody (a majority of 1 or 2 replicas needs fewer
voters besides the candidate)."""
