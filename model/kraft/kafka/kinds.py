"""The faithful variants' steps, in the order their codes sort, and how an action code names
one: every code's first argument is the voter that acts (a handler's, the receiver), a
handler's next two the message's sender and epoch."""

ACTION_KINDS = ("Timeout", "SendVoteRequests", "HandleVoteRequest", "HandleVoteResponse", "AppendLeaderChange",
                "SendBeginQuorumEpoch", "HandleBeginQuorumEpoch", "HandleBeginQuorumEpochResponse", "ClientAppend",
                "Flush", "SendFetch", "HandleFetchRequest", "HandleFetchResponse", "Restart", "LoseDisk", "AddVoter",
                "RemoveVoter", "Resign", "ResignedTimeout", "ProspectiveTimeout")
(TIMEOUT, SEND_VOTE_REQUESTS, HANDLE_VOTE_REQUEST, HANDLE_VOTE_RESPONSE, APPEND_LEADER_CHANGE, SEND_BEGIN_QUORUM,
 HANDLE_BEGIN_QUORUM, HANDLE_BEGIN_QUORUM_RESPONSE, CLIENT_APPEND, FLUSH, SEND_FETCH, HANDLE_FETCH_REQUEST,
 HANDLE_FETCH_RESPONSE, RESTART, LOSE_DISK, ADD_VOTER, REMOVE_VOTER, RESIGN, RESIGNED_TIMEOUT,
 PROSPECTIVE_TIMEOUT) = range(len(ACTION_KINDS))

HANDLERS = (HANDLE_VOTE_REQUEST, HANDLE_VOTE_RESPONSE, HANDLE_BEGIN_QUORUM, HANDLE_BEGIN_QUORUM_RESPONSE,
            HANDLE_FETCH_REQUEST, HANDLE_FETCH_RESPONSE)
"""The steps that handle a message: (name, receiver, sender, the message's epoch). A connection
holds one message, and the two connections between two voters hold a request one way and a
response the other, so these name a message."""

ARITIES = tuple(3 if kind in HANDLERS else 2 if kind in (CLIENT_APPEND, SEND_FETCH, ADD_VOTER, REMOVE_VOTER) else 1
                for kind in range(len(ACTION_KINDS)))
"""How many arguments each kind's code holds: the voter (1..n), then a client value, the
controller fetched from or the controller added or removed, or for a handler the sender and
the epoch."""
