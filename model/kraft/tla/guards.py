"""Variant `tla`'s named guards (`checker.kernel.guards`): the conditions the specification's
actions test before they take a step, named as what must hold, so that the coverage report can
say which one kept an action from firing."""

from __future__ import annotations

from checker.kernel.guards import GuardBook

from .kinds import ACTION_KINDS

BOOK = GuardBook(ACTION_KINDS)
guard = BOOK.guard

RESTARTS_LEFT = guard("Restart", "a restart remains (--max-restarts)")
ELECTIONS_LEFT = guard("RequestVote", "an election remains (--max-elections)")
MAY_TIME_OUT = guard("RequestVote", "the voter is a follower, candidate or unattached")
NEVER_ASKED = guard("RequestVote", "none of its Vote requests of the next epoch was ever sent")
VOTES_WON = guard("BecomeLeader", "the voter is a candidate with a majority of votes")
BEGIN_NEVER_SENT = guard("BecomeLeader", "none of its BeginQuorumEpoch requests was ever sent")
CLIENT_LEADS = guard("ClientRequest", "the voter leads")
VALUE_UNWRITTEN = guard("ClientRequest", "the value was never written (--max-records)")
FOLLOWS = guard("SendFetchRequest", "the voter follows that leader, with no FETCH pending")
NOT_CANDIDATE = guard("HandleRequestVoteResponse", "the voter is a candidate, or the answer moves it on")
WRONG_LEADER = guard("RejectFetchRequest", "the voter does not lead the FETCH's epoch")
POSITION_INVALID = guard("DivergingFetchRequest", "the FETCH's position disagrees with the leader's log")
POSITION_VALID = guard("AcceptFetchRequest", "the FETCH's position agrees with the leader's log")
ANSWER_NEW = guard(("RejectFetchRequest", "DivergingFetchRequest", "AcceptFetchRequest"),
                   "the same FETCH answer was never sent")
ANSWERS_PENDING = guard(("HandleSuccessFetchResponse", "HandleDivergingFetchResponse", "HandleErrorFetchResponse"),
                        "it answers the voter's pending FETCH")
