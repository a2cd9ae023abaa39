"""A KRaft state, as the TLA+ specification's variables: per voter its epoch, role, vote,
leader, pending FETCH, log, high watermark (HW), the votes it was granted and, as leader, each
voter's fetched end offset; the bag of messages in flight; which client values were
acknowledged; and the election and restart counters that bound the search. The faithful
variants (`model.kraft.kafka`) add what Kafka keeps and the specification does not: how much
of each log is flushed, a leader's epoch start offset, whom a candidate or leader has heard
from, each voter's directory id (a new one after a lost disk) and how many disks were lost;
under variant `tla` those per-voter fields are empty tuples and the counter 0.

Only whole numbers and tuples (`checker.fingerprint`): voters are 1..n inside messages and
fields that name one (0 is Nil), and index 0..n-1 in the per-voter tuples; a log entry is
(epoch, value) with values 1..m, 0 for a LeaderChange record and -code for a VotersRecord; a
leader's fetched end offsets are one per controller, or under KIP-853 one per replica key
(controller h's directory d at h * (max disk losses + 1) + d); a message is a tuple whose first item is its type
(`model.kraft.messages`), and the bag is a sorted tuple of (message, count) pairs. A message
whose count fell to 0 stays in the bag: the specification's sending rules look at every message
ever sent."""

from __future__ import annotations

from typing import NamedTuple


NIL = 0
"""No voter (a leader or vote not known), no error, no pending FETCH."""

UNATTACHED, VOTED, CANDIDATE, LEADER, FOLLOWER, ILLEGAL, RESIGNED, PROSPECTIVE = range(1, 9)
ROLES = {UNATTACHED: "unattached", VOTED: "voted", CANDIDATE: "candidate", LEADER: "leader",
         FOLLOWER: "follower", ILLEGAL: "illegal", RESIGNED: "resigned", PROSPECTIVE: "prospective"}
"""The roles of `QuorumState` (the specification has all but Resigned and 4.0's Prospective,
a voter asking for pre-votes; "voted" is Unattached with a vote), and its IllegalState:
a transition `QuorumState` refuses with an IllegalStateException, or a check of
`KafkaRaftClient` that throws (the invariant `no-illegal-state` catches it)."""

CONTROL = 0
"""The value of a LeaderChange control record, which a faithful leader appends first in its
epoch (client values are 1..m)."""

RESIGN_REQUESTED = -1
"""A leader's pending RemoveVoter once its own removal is committed: it resigns next."""

WRITTEN, ACKED = 1, 2
"""What became of a client value: appended by a leader and not yet acknowledged (the
specification's FALSE), acknowledged (TRUE); 0 (Nil) is not yet written."""


class KRaftState(NamedTuple):
    """The specification's variables (module docstring)."""

    epoch: tuple[int, ...]
    role: tuple[int, ...]
    voted_for: tuple[int, ...]
    leader: tuple[int, ...]
    pending: tuple[tuple, ...]
    log: tuple[tuple[tuple[int, int], ...], ...]
    hw: tuple[int, ...]
    votes: tuple[int, ...]
    end_offset: tuple[tuple[int, ...], ...]
    messages: tuple[tuple[tuple, int], ...]
    acked: tuple[int, ...]
    elections: int
    restarts: int
    flushed: tuple[int, ...] = ()
    start_offset: tuple[int, ...] = ()
    heard: tuple[int, ...] = ()
    directory: tuple[int, ...] = ()
    disk_losses: int = 0
    voter_op: tuple[int, ...] = ()
    voter_changes: int = 0
    boot: int = 0


def last_epoch(log: tuple) -> int:
    """The epoch of the log's last entry, 0 for an empty log."""
    return log[-1][0] if log else 0


def initial_state(voters: int, values: int) -> KRaftState:
    """Every voter unattached in epoch 1 with an empty log, no message, nothing written."""
    n = range(voters)
    return KRaftState(tuple(1 for _ in n), tuple(UNATTACHED for _ in n), tuple(NIL for _ in n),
                      tuple(NIL for _ in n), tuple(() for _ in n), tuple(() for _ in n), tuple(0 for _ in n),
                      tuple(0 for _ in n), tuple(tuple(0 for _ in n) for _ in n), (), tuple(NIL for _ in range(values)),
                      0, 0)


def with_voter(s: KRaftState, i: int, **fields) -> KRaftState:
    """`s` with voter i's (index) own value of each named field replaced."""
    return s._replace(**{name: getattr(s, name)[:i] + (value,) + getattr(s, name)[i + 1:]
                         for name, value in fields.items()})
