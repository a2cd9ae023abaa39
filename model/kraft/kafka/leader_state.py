"""A faithful leader's high watermark, as Kafka's `LeaderState` keeps it, over packed rows: the
end offset a majority of its voter set has reached, counted only once it is past the epoch's
start offset, and never moved back; and what a committed RemoveVoter does to a leader it
removed.

The leader keeps each replica key's fetched end offset, voter or observer (`voterStates`,
`observerStates`); which keys count is read off its latest voter set, committed or not
(`updateVoterAndObserverStates`), so a key added keeps the offset it fetched as an observer, and
the leader counts itself only while it is in the set."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..state import ACKED, WRITTEN
from ..tla.layout import HW, acked, end_offset, entry_value, get, put, set_acked, set_end_offset
from .layout import DIRECTORY, HEARD, RESIGN_REQUESTED, START_OFFSET, key_slot, set_voter_op, voter_op
from .voter_set import has_id, has_key, named_directory, size, voter_set


@kernel
def _voter_offset(s, lay, i, code, h):
    """Leader i's record of the end offset of the key its voter set `code` names for controller h."""
    return end_offset(s, lay, i, key_slot(lay, h, named_directory(lay, code, h) if lay.directory_ids else 0))


@kernel
def majority_end_offset(s, lay, i):
    """The largest offset a majority of leader i's voter set has reached in its view: the voters'
    end offsets sorted from the highest, the one at index size // 2 (`maybeUpdateHighWatermark`),
    that is the highest offset that more than half of them have reached."""
    code = voter_set(s, lay, i)
    voters, best = size(lay, code), 0
    for k in range(lay.replicas):
        if not has_id(lay, code, k):
            continue
        offset = _voter_offset(s, lay, i, code, k)
        reached = 0
        for other in range(lay.replicas):
            if has_id(lay, code, other) and _voter_offset(s, lay, i, code, other) >= offset:
                reached += 1
        if 2 * reached > voters and offset > best:
            best = offset
    return best


@kernel
def update_high_watermark(t, lay, i):
    """Leader i after `maybeUpdateHighWatermark`: its HW goes up to the majority's end offset
    if that passes the epoch's start offset (so a majority holds the epoch's first record, the
    LeaderChange record; rule `commit-rule`, choice epoch-start) and the HW it has; the client
    values the HW passed are acknowledged (the append futures complete). A pending RemoveVoter
    whose record the HW passed completes (`RemoveVoterHandler.highWatermarkUpdated`): if it
    removed the leader itself, the leader is asked to resign."""
    offset, hw = majority_end_offset(t, lay, i), get(t, lay, i, HW)
    if (lay.commit_past_epoch_start and offset <= get(t, lay, i, START_OFFSET)) or offset <= hw:
        return
    for k in range(hw + 1, offset + 1):
        v = entry_value(t, lay, i, k)
        if v > 0 and acked(t, lay, v) == WRITTEN:
            set_acked(t, lay, v, ACKED)
    put(t, lay, i, HW, offset)
    pending = voter_op(t, lay, i)
    if 0 < pending <= offset:
        removed = not has_key(lay, voter_set(t, lay, i), i, get(t, lay, i, DIRECTORY))
        set_voter_op(t, lay, i, RESIGN_REQUESTED if removed else 0)


@kernel
def counted(t, lay, i, voter, directory, offset):
    """Leader i records that replica key (`voter` (index), `directory`) reached `offset`
    (`updateReplicaState`, `updateLocalState`); a key of its voter set has heard of its epoch,
    and moves the HW."""
    set_end_offset(t, lay, i, key_slot(lay, voter, directory), offset)
    if has_key(lay, voter_set(t, lay, i), voter, directory):
        put(t, lay, i, HEARD, get(t, lay, i, HEARD) | 1 << voter)
        update_high_watermark(t, lay, i)


@kernel
def counted_self(t, lay, i, offset):
    """Leader i counts its own LEO, `offset` (`flushLeaderLog` updates the leader's end offset
    before it flushes), and updates its HW over its latest voter set, itself a member or not
    (`updateLocalState`)."""
    set_end_offset(t, lay, i, key_slot(lay, i, get(t, lay, i, DIRECTORY)), offset)
    update_high_watermark(t, lay, i)
