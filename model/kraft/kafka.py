"""The faithful variants' next-state relation: every step Kafka's `raft` module can take from
a state, under a rule set (`model.kraft.rules`). The steps are written in `elections`,
`fetching` and `crashes`; a voter that took a step Kafka refuses (the illegal role) takes no
more."""

from __future__ import annotations

from typing import Iterator

from . import crashes, elections, fetching, messages as msg
from .bounds import KRaftBounds
from .rules import Rules
from .state import ILLEGAL, KRaftState, initial_state

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

ACTION_KINDS = ("Timeout", "SendVoteRequests", "HandleVoteRequest", "HandleVoteResponse", "AppendLeaderChange",
                "SendBeginQuorumEpoch", "HandleBeginQuorumEpoch", "HandleBeginQuorumEpochResponse", "ClientAppend",
                "Flush", "SendFetch", "HandleFetchRequest", "HandleFetchResponse", "Restart", "LoseDisk")
"""The faithful variants' steps, in the order `successors` tries them."""

HANDLERS = {msg.VOTE_REQUEST: ("HandleVoteRequest", elections.handle_vote_request, True),
            msg.VOTE_RESPONSE: ("HandleVoteResponse", elections.handle_vote_response, False),
            msg.BEGIN_QUORUM_REQUEST: ("HandleBeginQuorumEpoch", elections.handle_begin_quorum, True),
            msg.BEGIN_QUORUM_RESPONSE: ("HandleBeginQuorumEpochResponse", elections.handle_begin_quorum_response,
                                        False),
            msg.FETCH_REQUEST: ("HandleFetchRequest", fetching.handle_fetch_request, True),
            msg.FETCH_RESPONSE: ("HandleFetchResponse", fetching.handle_fetch_response, False)}
"""Each message type's step: its name, its function, and whether it reads the rules."""


def initial(b: KRaftBounds) -> KRaftState:
    """Every voter unattached in epoch 0 (no quorum-state file yet), with empty logs, on its
    first disk."""
    n = b.replicas
    return initial_state(n, b.max_records)._replace(epoch=(0,) * n, flushed=(0,) * n, start_offset=(0,) * n,
                                                    heard=(0,) * n, directory=(0,) * n)


def successors(s: KRaftState, b: KRaftBounds, r: Rules) -> Iterator[tuple[tuple, KRaftState]]:
    """Every enabled step. Voters are named 1..n; a step that handles a message is named by the
    receiving voter, the sender and the message's epoch."""
    n = len(s.role)
    for i in range(n):
        if s.role[i] == ILLEGAL:
            continue
        for name, step in (("Restart", crashes.restart), ("LoseDisk", crashes.lose_disk)):
            after = step(s, i, b)
            if after is not None:
                yield (name, i + 1), after
        if fetching.in_poll(s, i):
            yield ("Flush", i + 1), fetching.flush(s, i)
            continue
        after = elections.timeout(s, i, b, r)
        if after is not None:
            yield ("Timeout", i + 1), after
        after = elections.append_leader_change(s, i)
        if after is not None:
            yield ("AppendLeaderChange", i + 1), after
        for v in range(1, len(s.acked) + 1):
            after = fetching.client_append(s, i, v)
            if after is not None:
                yield ("ClientAppend", i + 1, v), after
        after = fetching.send_fetch(s, i)
        if after is not None:
            yield ("SendFetch", i + 1, s.leader[i]), after
        after = elections.send_vote_requests(s, i)
        if after is not None:
            yield ("SendVoteRequests", i + 1), after
        after = elections.send_begin_quorum(s, i, r)
        if after is not None:
            yield ("SendBeginQuorumEpoch", i + 1), after
    for m, _ in s.messages:
        receiver = msg.dest(m) - 1
        if s.role[receiver] == ILLEGAL or (fetching.in_poll(s, receiver) and m[0] != msg.FETCH_REQUEST):
            continue
        name, handle, reads_rules = HANDLERS[m[0]]
        yield (name, msg.dest(m), msg.source(m), msg.epoch(m)), handle(s, m, r) if reads_rules else handle(s, m)
