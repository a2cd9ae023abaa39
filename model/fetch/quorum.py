"""A majority quorum's rules (Raft, and KRaft's metadata log): when a leader may count a record
as committed, which of two logs is more up to date (what a voter asks of a candidate), and
whether a follower's FETCH continues the leader's log.

Unlike the ISR, a majority needs no agreement on who is in sync: with 2f+1 replicas any two
majorities share a replica, so a record held by a majority is seen by every later election.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import epoch, known_leo, leo, record_epoch
from .state import NO_EPOCH
from .rule_kernels import own_epoch_rule


@kernel
def majority(lay):
    """How many replicas make a majority of the partition's replicas (leader included)."""
    return lay.replicas // 2 + 1


@kernel
def majority_end(s, lay, r):
    """The highest offset that leader r knows a majority of replicas to have reached: the
    majority-th largest of the LEOs it knows (its own and each follower's remote LEO)."""
    best = 0
    for f in range(lay.replicas):
        value = known_leo(s, lay, r, f)
        reached = 0
        for g in range(lay.replicas):
            if known_leo(s, lay, r, g) >= value:
                reached += 1
        if reached >= majority(lay) and value > best:
            best = value
    return best


@kernel
def majority_hw(s, lay, r):
    """The HW leader r may have under a majority quorum: the offset a majority has reached, but
    with Raft's rule only when the record just below it is of r's own epoch (then every earlier
    record is committed with it); otherwise r's HW as it is. Without the rule (majority-naive) a
    record of an earlier epoch counts as committed once a majority holds it, which a later
    leader may still overwrite (the Raft paper's Figure 8)."""
    end = majority_end(s, lay, r)
    if own_epoch_rule(lay) and end > 0 and record_epoch(s, lay, r, end - 1) != epoch(s, lay, r):
        return 0
    return end


@kernel
def last_epoch(s, lay, r):
    """The epoch of the last record in broker r's log (NO_EPOCH for an empty log)."""
    end = leo(s, lay, r)
    return record_epoch(s, lay, r, end - 1) if end else NO_EPOCH


@kernel
def at_least_as_up_to_date(s, lay, c, v):
    """Broker c's log is at least as up to date as broker v's (Raft's voting rule): its last
    record's epoch is higher, or the same with a log at least as long."""
    ce, ve = last_epoch(s, lay, c), last_epoch(s, lay, v)
    return ce > ve or (ce == ve and leo(s, lay, c) >= leo(s, lay, v))


@kernel
def continues_leader_log(s, lay, f, ldr, offset):
    """Follower f's FETCH at `offset` continues leader ldr's log: ldr's log reaches `offset` and
    its record just before it has the epoch of f's (the last fetched epoch a KRaft FETCH
    carries; f's log cannot change while its FETCH is in flight, so it is read here)."""
    if offset > leo(s, lay, ldr):
        return False
    return offset == 0 or record_epoch(s, lay, ldr, offset - 1) == record_epoch(s, lay, f, offset - 1)
