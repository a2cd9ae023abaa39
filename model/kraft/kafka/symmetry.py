"""Renaming voters in a packed faithful state, for symmetry reduction: voter blocks move, every
slot naming a voter (vote, leader, a response's named leader) or a set of voters (votes
granted, voters heard from, a VotersRecord in a log or a FETCH response, the bootstrap set) is
renamed, each leader's row of fetched end offsets is permuted key by key, and each connection's
record moves to the renamed pair of voters. Voters are 1..n in slots (0 is Nil), indices 0..n-1
in a renaming."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.symmetry import rename_set

from ..messages import BEGIN_QUORUM_RESPONSE, FETCH_RESPONSE, VOTE_RESPONSE
from ..tla.layout import LOG, get, put
from ..tla.symmetry import permute_voters, renamed_voter
from .channels import connection
from .layout import BOOT_SET, ENTRIES, ENTRY_PAIRS, HEARD, KIND, A, B, C, key_slot, log_end
from .voter_set import rename_code


@kernel
def _rename_entries(t, lay, perm, at, count):
    """Rename the voter sets of the VotersRecords among the `count` (epoch, value) pairs of row t
    from `at` on."""
    for k in range(count):
        value = t[at + 2 * k + 1]
        if value < 0:
            t[at + 2 * k + 1] = -rename_code(lay, perm, -value)


@kernel
def permute_head(s, lay, perm, t):
    """Write into t's first slots the header and the voter blocks of `s` with every voter
    renamed perm[index] (the voters heard from too). Returns how many slots that is: renamings
    are compared on them before the network is renamed."""
    permute_voters(s, lay, perm, t)
    directories = lay.max_disk_losses + 1 if lay.directory_ids else 1
    for i in range(lay.replicas):
        r = perm[i]
        put(t, lay, r, HEARD, rename_set(perm, get(s, lay, i, HEARD)))
        source = lay.voter_base + i * lay.voter_stride
        target = lay.voter_base + r * lay.voter_stride
        for h in range(lay.replicas):
            for d in range(directories):
                t[target + lay.end_offset_at + key_slot(lay, perm[h], d)] = s[source + lay.end_offset_at +
                                                                               key_slot(lay, h, d)]
        if lay.directory_ids:
            _rename_entries(t, lay, perm, target + LOG, log_end(t, lay, r))
    return lay.channel_base


@kernel
def permute(s, lay, perm, t):
    """Write into `t` the state `s` with every voter renamed perm[index]."""
    permute_head(s, lay, perm, t)
    permute_part(s, lay, perm, 1, t)


@kernel
def permute_part(s, lay, perm, part, t):
    """Write into `t` the renaming's one part after the head (`permute_head`): the bootstrap set
    and every connection's record, moved to the renamed pair of voters; returns the row's width."""
    for x in range(lay.extra_at, s.shape[0]):
        t[x] = s[x]
    t[lay.extra_at + BOOT_SET] = rename_code(lay, perm, s[lay.extra_at + BOOT_SET])
    for i in range(lay.replicas):
        for j in range(lay.replicas):
            if i == j:
                continue
            source, target = connection(lay, i, j), connection(lay, perm[i], perm[j])
            for x in range(lay.record):
                t[target + x] = s[source + x]
            kind = s[source + KIND]
            if kind == VOTE_RESPONSE:
                t[target + A] = renamed_voter(perm, s[source + A])
            elif kind == BEGIN_QUORUM_RESPONSE:
                t[target + B] = renamed_voter(perm, s[source + B])
            elif kind == FETCH_RESPONSE:
                t[target + C] = renamed_voter(perm, s[source + C])
                if lay.directory_ids:
                    _rename_entries(t, lay, perm, target + ENTRY_PAIRS, s[source + ENTRIES])
    return s.shape[0]
