"""The parts of a diagnosis (see `traces.diagnosis`): the kinds of cause, the step that did the
damage, the earlier steps that made it possible, and the diagnosis that ties them together."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from .partition import NONE
from .truncation import Truncation


class Cause(str, Enum):
    """What went wrong, in protocol terms (the values are the names people read)."""

    TRUNCATION_TO_LAGGING_HW = "truncation-to-lagging-hw"
    STALE_LEADER_AND_ISR = "stale-leader-and-isr"
    HW_TRUNCATION_ABOVE_DIVERGENCE = "hw-truncation-above-divergence"
    EPOCH_LOOKUP_ABOVE_DIVERGENCE = "epoch-lookup-above-divergence"
    EPOCH_WALK_CUT_SHORT = "epoch-walk-cut-short"
    UNDEFINED_EPOCH_ANSWER = "undefined-epoch-answer"
    UNFLUSHED_TAIL_LOST_IN_CRASH = "unflushed-tail-lost-in-crash"
    LAST_REPLICA_STANDING = "last-replica-standing"
    UNCLEAN_ELECTION = "unclean-election"
    ELR_MEMBER_WITHOUT_RECORD = "elr-member-without-record"
    ACKED_BEFORE_REPLICATED = "acked-before-replicated"
    NEW_LEADER_HW_BEHIND = "new-leader-hw-behind"
    EARLIER_EPOCH_COUNTED = "earlier-epoch-counted"
    RETRY_BEHIND_LATER_RECORD = "retry-behind-later-record"
    RETRY_AFTER_LOST_ANSWER = "retry-after-lost-answer"
    ISR_JOIN_ON_STALE_POSITION = "isr-join-on-stale-position"
    VOTE_AFTER_LOST_DISK = "vote-after-lost-disk"
    VOTER_SETS_WITHOUT_COMMON_MAJORITY = "voter-sets-without-common-majority"
    VOTE_FORGOTTEN_IN_EPOCH = "vote-forgotten-in-epoch"
    LEADERLESS = "leaderless"


class Damage(NamedTuple):
    """The step that did the damage. `effect` is 'lost' (`replica` lost `record` at `offset`),
    'kept' (`replica` truncated but kept `record` where its leader `peer` has `peer_record`),
    'elected' (the controller made `replica` leader without `record`; `peer` led before),
    'joined' (leader `peer` added `replica` to the ISR although it lacks `record` at
    `offset`, below the leader's HW), 'reordered' (leader `replica` appended `record` at `offset` behind `peer_record`, which the
    producer sent after it), 'duplicated' (leader `replica` appended `record` at `offset`
    although it holds the same producer record, `peer_record`, lower down), 'hw-behind' (`replica` became leader with HW `hw` below the `peer_hw` consumers had seen)
    or 'leaderless'. A truncation carries how its point was chosen and, when the LeaderAndIsr
    request it acted on was already superseded, the step at which the controller moved on
    (`stale_since`); a new leader that restarted after consumers saw the higher HW carries the
    step of that restart (`restarted`: its HW came from its checkpoint)."""

    step: int
    effect: str
    replica: int
    peer: int = NONE
    offset: int | None = None
    record: tuple | None = None
    peer_record: tuple | None = None
    hw: int | None = None
    peer_hw: int | None = None
    truncation: Truncation | None = None
    stale_since: int | None = None
    restarted: int | None = None


class Culprit(NamedTuple):
    """An earlier step that made the damage possible. `role` is 'commit' (`replica`, leading,
    raised its HW to `hw`, past `record` at `offset`), 'ack' (the producer's write of `record`
    was acknowledged by `replica`), 'write' (`replica` appended `record` at `offset`), 'loss'
    (`replica` lost `record` at `offset`), 'stale-request' (`replica` followed `peer` under the
    request of `epoch` though the controller was at `peer_epoch`), 'cross-epoch-fetch'
    (`replica`, in `epoch`, fetched `record` from `peer`, in `peer_epoch`), 'reported' (leader
    `peer` recorded `replica`'s FETCH at `offset` as its position), 'election' (the
    controller made `replica` leader of `epoch`), 'left-isr' (`replica` left the ISR and became
    an eligible leader replica), or a step of the retrying producer for the
    record whose id is `sequence`: 'send' (sent it to `replica`, which it believed led),
    'failure' (`replica` refused it, or its request or answer was lost) or 'retry' (sent it
    again to `replica`)."""

    step: int
    role: str
    replica: int
    peer: int = NONE
    record: tuple | None = None
    offset: int | None = None
    epoch: int | None = None
    peer_epoch: int | None = None
    hw: int | None = None
    sequence: int | None = None


@dataclass(frozen=True)
class Diagnosis:
    """Why `invariant` fails after step `failure`: the cause, the damage, its culprits
    (earliest first) and, for a lost record, the step that had committed it (context, and a
    culprit only where the cause says so)."""

    kind: Cause
    invariant: str
    failure: int
    damage: Damage
    culprits: tuple[Culprit, ...] = ()
    commit: Culprit | None = None

    @property
    def step(self) -> int:
        """The step that lost or diverged the record (or elected, or lowered the HW)."""
        return self.damage.step

    @property
    def culprit_steps(self) -> tuple[int, ...]:
        """The steps of the culprits, in order."""
        return tuple(c.step for c in self.culprits)
