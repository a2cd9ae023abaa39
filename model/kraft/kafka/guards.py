"""The faithful variants' named guards (`checker.kernel.guards`): the conditions Kafka's code
tests before a voter takes a step, named as what must hold, so that the coverage report can say
which one kept a step from being taken."""

from __future__ import annotations

from checker.kernel.guards import GuardBook

from .kinds import ACTION_KINDS

BOOK = GuardBook(ACTION_KINDS)
guard = BOOK.guard

RESTARTS_LEFT = guard("Restart", "a restart remains (--max-restarts)")
DISKS_LEFT = guard("LoseDisk", "a lost disk remains (--max-disk-losses)")
NOT_FLUSHING = guard(("Timeout", "AppendLeaderChange", "ClientAppend", "SendFetch", "SendVoteRequests",
                      "SendBeginQuorumEpoch", "AddVoter", "RemoveVoter", "Resign", "ResignedTimeout",
                      "ProspectiveTimeout"),
                     "the voter is not inside flushLeaderLog")
NOT_RESIGNING = guard(("Timeout", "AppendLeaderChange", "ClientAppend", "SendFetch", "SendVoteRequests",
                       "SendBeginQuorumEpoch", "AddVoter", "RemoveVoter", "ResignedTimeout", "ProspectiveTimeout",
                       "HandleVoteRequest",
                       "HandleVoteResponse", "HandleBeginQuorumEpoch", "HandleBeginQuorumEpochResponse",
                       "HandleFetchRequest", "HandleFetchResponse"),
                      "the voter is not a leader asked to resign (its next poll resigns first)")
FLUSHING = guard("Flush", "the leader counted records it has not flushed")
PARKED_ONLY = guard("HandleFetchRequest", "the leader is not inside flushLeaderLog, or the FETCH was parked at it "
                    "(it found nothing new before the append)")
ELECTIONS_LEFT = guard("Timeout", "an election remains (--max-elections)")
MAY_STAND = guard("Timeout", "the voter is unattached, voted, a follower, a candidate, or resigned (before 4.0)")
IS_VOTER = guard("Timeout", "the voter is in the voter set (its directory id is the set's)")
NEW_LEADER = guard("AppendLeaderChange", "the voter leads an epoch whose LeaderChange record is not written")
LEADS_WITH_RECORD = guard("ClientAppend", "the voter leads, its epoch's LeaderChange record written")
VALUE_UNWRITTEN = guard("ClientAppend", "the value was never written (--max-records)")
FOLLOWER_FREE = guard("SendFetch", "the follower has nothing in flight to its leader")
OBSERVER_SEEKS = guard("SendFetch", "the voter follows a leader, or is unattached and an observer (or, from 4.0, "
                       "any unattached voter)")
BOOTSTRAP_READY = guard("SendFetch", "an unattached voter has no request in flight (findReadyBootstrapServer)")
CANDIDATE_ASKS = guard("SendVoteRequests", "the voter is a candidate or prospective, not yet refused by a majority, with "
                       "an unanswered voter it may ask")
PROSPECTIVE_WAITS = guard("ProspectiveTimeout", "the voter is a prospective (4.0)")
LEADER_TELLS = guard("SendBeginQuorumEpoch", "the voter leads, with a voter to tell and a free connection to it")
RECEIVER_READY = guard(("HandleVoteRequest", "HandleVoteResponse", "HandleBeginQuorumEpoch",
                        "HandleBeginQuorumEpochResponse", "HandleFetchResponse"),
                       "the receiver is not inside flushLeaderLog")
CHANGES_LEFT = guard(("AddVoter", "RemoveVoter"), "a voter change remains (--max-voter-changes), and the voter "
                     "leads with a HW, its last VotersRecord committed, no change pending")
ID_ABSENT = guard("AddVoter", "the controller's id is not in the leader's voter set")
ID_PRESENT = guard("RemoveVoter", "the controller is in the leader's voter set, which has another voter")
RESIGN_ASKED = guard("Resign", "the voter leads, and its own removal is committed")
RESIGNED_OBSERVER = guard("ResignedTimeout", "the voter resigned and is not in its voter set (or, from 4.0, resigned)")
