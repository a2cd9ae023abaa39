"""The specification's actions, in its Next's order, and how an action code names one."""

ACTION_KINDS = ("Restart", "RequestVote", "HandleRequestVoteRequest", "HandleRequestVoteResponse", "BecomeLeader",
                "ClientRequest", "RejectFetchRequest", "DivergingFetchRequest", "AcceptFetchRequest",
                "HandleBeginQuorumRequest", "SendFetchRequest", "HandleSuccessFetchResponse",
                "HandleDivergingFetchResponse", "HandleErrorFetchResponse")
(RESTART, REQUEST_VOTE, HANDLE_VOTE_REQUEST, HANDLE_VOTE_RESPONSE, BECOME_LEADER, CLIENT_REQUEST, REJECT_FETCH,
 DIVERGING_FETCH, ACCEPT_FETCH, HANDLE_BEGIN_QUORUM, SEND_FETCH, HANDLE_FETCHED, HANDLE_DIVERGING,
 HANDLE_FETCH_ERROR) = range(len(ACTION_KINDS))

HANDLERS = (HANDLE_VOTE_REQUEST, HANDLE_VOTE_RESPONSE, REJECT_FETCH, DIVERGING_FETCH, ACCEPT_FETCH,
            HANDLE_BEGIN_QUORUM, HANDLE_FETCHED, HANDLE_DIVERGING, HANDLE_FETCH_ERROR)
"""The steps that handle a message. Their code holds the receiving voter and the message's
place in the bag (high and low four bits), so that two messages alike in receiver, sender and
epoch are two actions; the readable action names the receiver, the sender and the epoch, as
the specification's does (`model.kraft.tla.codec.action_value`)."""

ARITIES = tuple(3 if kind in HANDLERS else 2 if kind in (CLIENT_REQUEST, SEND_FETCH) else 1
                for kind in range(len(ACTION_KINDS)))
"""How many arguments each kind's code holds: a voter (1..n), a value or a leader, or for a
handler the receiver and the message's place."""
