"""An oracle for the `kraft` model's symmetry over readable states, written apart from the
kernels' renaming (`model.kraft.tla.symmetry`, `model.kraft.kafka.symmetry`): voters are
interchangeable (the specification's SYMMETRY symmServers). A renaming moves each voter's own
variables to its new name and renames every voter a variable or message names; the
representative of an orbit is its smallest renaming (as tuples compare) among those that sort
the voters by their own variables: the same for every state of one orbit, so the number of
representatives of the reachable states is the number of orbits a search must store."""

from __future__ import annotations

from itertools import groupby, permutations, product

from model.kraft import voter_sets
from model.kraft.messages import BEGIN_QUORUM_RESPONSE, FETCH_RESPONSE, VOTE_RESPONSE
from model.kraft.state import KRaftState


def renamed_code(code: int, voter: tuple[int, ...]) -> int:
    """A voter set's code (`model.kraft.voter_sets`) with every member renamed."""
    n = len(voter) - 1
    return voter_sets.code({voter[v]: d for v, d in voter_sets.members(code, n).items()}, n)


def renamed_log(log: tuple, voter: tuple[int, ...]) -> tuple:
    """A log with the voters of each VotersRecord in it renamed."""
    return tuple((epoch, -renamed_code(-value, voter) if value < 0 else value) for epoch, value in log)


def renamed_message(m: tuple, voter: tuple[int, ...]) -> tuple:
    """`m` with every voter it names renamed (`voter[k]` is k's new name; voter[0] = 0)."""
    kind = m[0]
    out = [kind, voter[m[1]], voter[m[2]], *m[3:]]
    if kind == VOTE_RESPONSE:
        out[4] = voter[m[4]]
    elif kind == FETCH_RESPONSE:
        out[6] = voter[m[6]]
        out[10] = renamed_log(m[10], voter)
        out[11] = renamed_message(m[11], voter) if m[11] else ()
    elif kind == BEGIN_QUORUM_RESPONSE and len(m) > 5:
        out[5] = voter[m[5]]
    return tuple(out)


def renamed(s: KRaftState, perm: tuple[int, ...]) -> KRaftState:
    """s with voter k (index) renamed perm[k]."""
    n = len(perm)
    names = (0,) + tuple(p + 1 for p in perm)  # voter ids 1..n, and 0 (Nil) stays

    def moved(values: tuple) -> tuple:
        if not values:  # a field the variant does not keep
            return values
        out = [None] * n
        for k, value in enumerate(values):
            out[perm[k]] = value
        return tuple(out)

    def mask(bits: int) -> int:
        return sum(1 << perm[k] for k in range(n) if bits >> k & 1)

    def keys(row: tuple) -> tuple:
        """A leader's end offsets, one per controller or per (controller, directory) key."""
        disks = len(row) // n
        out = [0] * len(row)
        for slot, value in enumerate(row):
            out[perm[slot // disks] * disks + slot % disks] = value
        return tuple(out)

    return KRaftState(moved(s.epoch), moved(s.role), moved(tuple(names[v] for v in s.voted_for)),
                      moved(tuple(names[v] for v in s.leader)),
                      moved(tuple(renamed_message(m, names) if m else () for m in s.pending)),
                      moved(tuple(renamed_log(log, names) for log in s.log)), moved(s.hw),
                      moved(tuple(mask(v) for v in s.votes)), moved(tuple(keys(row) for row in s.end_offset)),
                      tuple(sorted((renamed_message(m, names), c) for m, c in s.messages)), s.acked,
                      s.elections, s.restarts, moved(s.flushed), moved(s.start_offset),
                      moved(tuple(mask(v) for v in s.heard)), moved(s.directory), s.disk_losses, moved(s.voter_op),
                      s.voter_changes, renamed_code(s.boot, names))


def _own(s: KRaftState, k: int) -> tuple:
    """Voter k's variables that name no other voter: a renaming moves them along unchanged (a
    VotersRecord in its log only as being one)."""
    log = tuple((epoch, min(value, -1)) for epoch, value in s.log[k])
    return (s.epoch[k], s.role[k], log, s.hw[k], *(field[k] for field in (s.flushed, s.start_offset, s.directory,
                                                                          s.voter_op) if field))


def _sorting(s: KRaftState):
    """Every renaming that puts the voters in order of their own variables (`_own`), voters
    with equal ones in every order among themselves."""
    own = [_own(s, k) for k in range(len(s.role))]
    order = sorted(range(len(own)), key=own.__getitem__)
    groups = [list(g) for _, g in groupby(order, key=own.__getitem__)]
    for arrangement in product(*(permutations(group) for group in groups)):
        places = [k for group in arrangement for k in group]  # places[new] = old
        perm = [0] * len(places)
        for new, old in enumerate(places):
            perm[old] = new
        yield tuple(perm)


def representative(s: KRaftState) -> KRaftState:
    """The smallest renaming of s among those that sort its voters by their own variables:
    the same for every state of one orbit (renaming s permutes that set of renamings, not the
    states they give), and found without trying every renaming when the voters differ."""
    return min(renamed(s, perm) for perm in _sorting(s))
