"""Voter changes in the faithful variants (KIP-853), as Kafka 3.9's `AddVoterHandler`,
`RemoveVoterHandler` and `KafkaRaftClient` make them, over packed rows.

An operator asks the leader to add a controller to the voter set, or to remove one. The leader
takes one change at a time and only on settled ground: it must have a HW in its epoch (its
epoch's first batch committed, the fix for Raft's single-server-change bug), the last VotersRecord
in its log must be committed, and no other change may be pending. It then appends a VotersRecord
of the new set, which every replica (the leader first) adopts as soon as it is in its log
(`model.kraft.kafka.voter_set`). A leader that removed itself leads on without counting itself
until the removal is committed, then resigns at its next poll; a resigned controller outside the
voter set leaves the epoch when its election timer runs out.

Each function is one step of voter i (index) and appends its successor to `out`. The request,
its checks and the append are one step here; Kafka answers the operator only once the record is
committed, which changes nothing in the replicas. Not modelled: AddVoter's check that the new
voter is caught up and supports the kraft.version (`isReplicaCaughtUp`, the API_VERSIONS
exchange), which only delay a change, so the model has more behaviours than Kafka, not fewer;
the expiry of a pending RemoveVoter, after which Kafka never asks the removed leader to resign."""

from __future__ import annotations

from checker.kernel.guards import holds
from checker.kernel.jit import kernel
from checker.kernel.steps import action_code, emit

from ..state import LEADER, RESIGNED
from ..tla.layout import EPOCH, HW, ROLE, append, get
from .fetching import begin_flush
from .guards import CHANGES_LEFT, ID_ABSENT, ID_PRESENT, RESIGN_ASKED, RESIGNED_OBSERVER
from .kinds import ADD_VOTER, REMOVE_VOTER, RESIGN, RESIGNED_TIMEOUT
from .layout import DIRECTORY, FOOTER_CHANGES, RESIGN_REQUESTED, START_OFFSET, log_end, set_voter_op, voter_op
from .quorum_state import become, to_unattached
from .voter_set import has_id, is_voter, size, voter_set, voters_record_at, with_key, without_id


@kernel
def may_change_voters(s, lay, i):
    """Leader i would take a voter change now: a change remains (--max-voter-changes), its epoch's
    first batch is written (the request is handled after the poll that appends it), and (rule
    `voter-change-guard`, choice committed) it has a HW past its epoch's start
    (`LeaderState.highWatermark` present), the last VotersRecord in its log is committed, and no
    RemoveVoter is pending (`isOperationPending`)."""
    settled = (get(s, lay, i, HW) > get(s, lay, i, START_OFFSET) and voters_record_at(s, lay, i) <= get(s, lay, i, HW)
               and voter_op(s, lay, i) == 0)
    return (s[lay.extra_at + FOOTER_CHANGES] < lay.max_voter_changes and get(s, lay, i, ROLE) == LEADER and
            log_end(s, lay, i) != get(s, lay, i, START_OFFSET) and (settled or not lay.guarded_voter_changes))


@kernel
def _change(s, lay, out, acts, n, i, kind, h, code):
    """Leader i appends a VotersRecord of set `code` in its epoch, counting the change and its
    own LEO; returns the successor row."""
    t = emit(s, out, acts, n, action_code(kind, i + 1, h + 1, 0))
    append(t, lay, i, get(s, lay, i, EPOCH), -code)
    t[lay.extra_at + FOOTER_CHANGES] += 1
    return t


@kernel
def add_voter(s, lay, out, acts, tally, n, i):
    """Leader i adds each controller h whose node id is not in its voter set, under the directory
    id it has now (`AddVoterHandler.handleAddVoterRequest`, then `handleApiVersionsResponse`:
    `VoterSet.addVoter`, `LeaderState.appendVotersRecord`)."""
    if not holds(tally, CHANGES_LEFT, lay.max_voter_changes > 0 and may_change_voters(s, lay, i)):
        return n
    code = voter_set(s, lay, i)
    for h in range(lay.replicas):
        if not holds(tally, ID_ABSENT, not has_id(lay, code, h)):
            continue
        t = _change(s, lay, out, acts, n, i, ADD_VOTER, h, with_key(lay, code, h, get(s, lay, h, DIRECTORY)))
        begin_flush(s, t, lay, i)
        n += 1
    return n


@kernel
def remove_voter(s, lay, out, acts, tally, n, i):
    """Leader i removes each voter h of its set, itself included, while more than one remains
    (`RemoveVoterHandler.handleRemoveVoterRequest`: `VoterSet.removeVoter`, the record appended at
    once), and keeps the change pending until its HW passes the record."""
    if not holds(tally, CHANGES_LEFT, lay.max_voter_changes > 0 and may_change_voters(s, lay, i)):
        return n
    code = voter_set(s, lay, i)
    for h in range(lay.replicas):
        if not holds(tally, ID_PRESENT, has_id(lay, code, h) and size(lay, code) > 1):
            continue
        t = _change(s, lay, out, acts, n, i, REMOVE_VOTER, h, without_id(lay, code, h))
        set_voter_op(t, lay, i, log_end(t, lay, i))
        begin_flush(s, t, lay, i)
        n += 1
    return n


@kernel
def asked_to_resign(s, lay, i):
    """Voter i leads and its own removal is committed (`LeaderState.isResignRequested`)."""
    return get(s, lay, i, ROLE) == LEADER and voter_op(s, lay, i) == RESIGN_REQUESTED


@kernel
def resign(s, lay, out, acts, tally, n, i):
    """A leader asked to resign does so at its next poll (`pollLeader`, `transitionToResigned`),
    in memory only: its quorum-state file still names it leader of its epoch."""
    if not holds(tally, RESIGN_ASKED, asked_to_resign(s, lay, i)):
        return n
    t = emit(s, out, acts, n, action_code(RESIGN, i + 1, 0, 0))
    become(t, lay, i, RESIGNED, get(s, lay, i, EPOCH), i + 1, 0)
    return n + 1


@kernel
def resigned_timeout(s, lay, out, acts, tally, n, i):
    """A resigned controller outside its voter set, or under pre-vote (4.0) any resigned
    controller, its election timer run out, leaves the epoch: unattached in the next one, "to
    avoid FETCH responses with the leader being this replica" (`pollResigned`). Not an election:
    --max-elections does not count it."""
    if not holds(tally, RESIGNED_OBSERVER, get(s, lay, i, ROLE) == RESIGNED and
                 (lay.pre_vote or not is_voter(s, lay, i))):
        return n
    t = emit(s, out, acts, n, action_code(RESIGNED_TIMEOUT, i + 1, 0, 0))
    to_unattached(t, lay, i, get(s, lay, i, EPOCH) + 1)
    return n + 1
