"""The `spec` model's named guards (`checker.kernel.guards`): each condition an action of the
public specification tests before it takes a step, named as what must hold, so that the
coverage report can say which one kept an action from firing. (The spec model names no events.)"""

from __future__ import annotations

from checker.kernel.guards import GuardBook

from .kinds import ACTION_KINDS

BOOK = GuardBook(ACTION_KINDS)
guard = BOOK.guard

ELECT_EPOCH = guard("ControllerElectLeader", "a leader epoch remains (--max-epoch)")
ELECT_CANDIDATE = guard("ControllerElectLeader", "the replica is an ISR member other than the leader")
SHRINK_EPOCH = guard("ControllerShrinkIsr", "a leader epoch remains (--max-epoch)")
SHRINK_MEMBER = guard("ControllerShrinkIsr", "the replica leads or is in the ISR")
LEADER_REQUEST = guard("BecomeLeader", "a newer LeaderAndIsr naming it leader was sent")
WRITE_RECORDS_LEFT = guard("LeaderWrite", "records remain to write (--max-records)")
WRITE_LEADS = guard("LeaderWrite", "the replica believes it leads")
WRITE_ROOM = guard("LeaderWrite", "its log has room (--log-size)")
HW_ADVANCES = guard("LeaderIncHighWatermark", "the leader may advance its HW (the variant's rule)")
SHRINK_TRUE_LEADER = guard("LeaderShrinkIsr", "the replica is the true leader")
SHRINK_LAGGING = guard("LeaderShrinkIsr", "an ISR member lags (the variant's rule)")
EXPAND_TRUE_LEADER = guard("LeaderExpandIsr", "the replica is the true leader")
EXPAND_CAUGHT_UP = guard("LeaderExpandIsr", "a replica outside the ISR may join (the variant's rule)")
REPLICATE_LEADS = guard("FollowerReplicate", "the replica believes it leads")
REPLICATE_BEHIND = guard("FollowerReplicate", "a follower of it is behind, with room in its log")
REPLICATE_ACCEPTED = guard("FollowerReplicate", "the leader accepts its fetch (the variant's rule)")
FOLLOW_REQUEST = guard("BecomeFollower", "a LeaderAndIsr naming another leader was sent and may be followed")
FOLLOW_NEWER = guard("BecomeFollower", "it is newer than the replica's epoch")
FOLLOW_TRUNCATION = guard("BecomeFollower", "the truncation point is within the replica's log")
