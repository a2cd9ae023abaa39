"""Voter sets in the faithful variants, as Kafka's `VoterSet` and `KRaftControlRecordStateMachine`
keep them, over packed rows.

A voter set is a set of replica keys (a node id and the id of its log directory). Under
static voters (KIP-595, `voter-key` id) it is every controller, known by node id alone, and never
changes. Under KIP-853 (`voter-key` directory, kraft.version 1) a replica's set is a function of
its log: the set of the last VotersRecord in its log, committed or not; with none, the set of
the bootstrap checkpoint `kafka-storage format --initial-controllers` wrote, if its disk was
formatted with one (the first, or a new one formatted so again: `--reformat`); else empty (an
observer until it fetches a VotersRecord).
`KRaftControlRecordStateMachine` replays the log into `VoterSetHistory` after every append and
truncation, so a replica adopts a change as soon as the record is in its log, and drops it when
the record is truncated. The row keeps no copy: `voter_set` reads the log.

A set is one whole number, its code (`model.kraft.voter_sets`): digit h (base `lay.radix`) is 0
when controller h (index) is not a member, else 1 + the directory id the set names for it. A log
entry whose value is negative is a control batch carrying a VotersRecord, value -code (client
values are 1..m, LeaderChange 0)."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..tla.layout import entry_value, get
from .layout import BOOT_SET, DIRECTORY, log_end


@kernel
def digit(lay, code, h):
    """Controller h's (index) digit of a set's code: 0 not a member, else 1 + its directory id."""
    return (code // lay.radix ** h) % lay.radix


@kernel
def has_id(lay, code, h):
    """Controller h (index) is a voter of the set, whatever its directory id."""
    return digit(lay, code, h) != 0


@kernel
def named_directory(lay, code, h):
    """The directory id the set names for controller h (index), a member."""
    return digit(lay, code, h) - 1


@kernel
def has_key(lay, code, h, directory):
    """The replica key (controller h, `directory`) is a voter of the set (`VoterSet.isVoter`):
    under static voters any directory id of a member is, under KIP-853 only the one the set
    names."""
    if not lay.directory_ids:
        return has_id(lay, code, h)
    return digit(lay, code, h) == 1 + directory


@kernel
def size(lay, code):
    """How many voters the set has."""
    count = 0
    for h in range(lay.replicas):
        count += 1 if has_id(lay, code, h) else 0
    return count


@kernel
def with_key(lay, code, h, directory):
    """The set with controller h (index, not a member) added under `directory`
    (`VoterSet.addVoter`)."""
    return code + (1 + directory) * lay.radix ** h


@kernel
def without_id(lay, code, h):
    """The set with controller h (index, a member) removed (`VoterSet.removeVoter`)."""
    return code - digit(lay, code, h) * lay.radix ** h


@kernel
def first_voters(lay, voters):
    """The set of the first `voters` controllers, each on its first directory (0): the bootstrap
    checkpoint, or under static voters `controller.quorum.voters`."""
    code = 0
    for h in range(voters):
        code = with_key(lay, code, h, 0)
    return code


@kernel
def voters_record_at(s, lay, i):
    """The offset (1-based; 0 none) of the last VotersRecord in voter i's log."""
    for offset in range(log_end(s, lay, i), 0, -1):
        if entry_value(s, lay, i, offset) < 0:
            return offset
    return 0


@kernel
def bootstrapped(s, lay, i):
    """Controller i's disk holds the bootstrap checkpoint `kafka-storage format --initial-controllers`
    wrote: it is in the bootstrap set, on the directory id that list names for it, its first (the
    first disk, or a new one formatted with the same command again)."""
    return get(s, lay, i, DIRECTORY) == 0 and has_id(lay, s[lay.extra_at + BOOT_SET], i)


@kernel
def voter_set(s, lay, i):
    """Controller i's (index) voter set (`KRaftControlRecordStateMachine.lastVoterSet`): every
    controller under static voters; under KIP-853 its log's last VotersRecord, else its bootstrap
    checkpoint's, else none."""
    if not lay.directory_ids:
        return first_voters(lay, lay.replicas)
    at = voters_record_at(s, lay, i)
    if at > 0:
        return -entry_value(s, lay, i, at)
    return int(s[lay.extra_at + BOOT_SET]) if bootstrapped(s, lay, i) else 0


@kernel
def is_voter(s, lay, i):
    """Controller i, with the directory id it has now, is in its own voter set
    (`QuorumState.isVoter`); else it is an observer."""
    return has_key(lay, voter_set(s, lay, i), i, get(s, lay, i, DIRECTORY))


@kernel
def majority(lay, code, granted):
    """More than half of the set's voters are in the bitmask `granted` of controllers
    (`CandidateState.isVoteGranted`)."""
    count = 0
    for h in range(lay.replicas):
        if has_id(lay, code, h) and (granted >> h) & 1:
            count += 1
    return 2 * count > size(lay, code)


@kernel
def refused(lay, code, granted, heard):
    """The set's voters can no longer grant a majority: too many of those heard from (bitmask
    `heard`) did not grant (`granted`) (`EpochElection.isVoteRejected`: granted plus unrecorded
    below a majority)."""
    everyone = (1 << lay.replicas) - 1
    return not majority(lay, code, everyone & ~(heard & ~granted))


@kernel
def rename_code(lay, perm, code):
    """A set's code with controller h renamed perm[h] (indices)."""
    out = 0
    for h in range(lay.replicas):
        out += digit(lay, code, h) * lay.radix ** perm[h]
    return out
