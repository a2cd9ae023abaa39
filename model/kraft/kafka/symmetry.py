"""Renaming voters in a packed faithful state, for symmetry reduction: voter blocks move, every
slot naming a voter (vote, leader, a response's named leader) or a set of voters (votes
granted, voters heard from) is renamed, each leader's row of fetched end offsets is permuted,
and each connection's record moves to the renamed pair of voters. Voters are 1..n in slots (0
is Nil), indices 0..n-1 in a renaming."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.symmetry import rename_set

from ..messages import BEGIN_QUORUM_RESPONSE, FETCH_RESPONSE, VOTE_RESPONSE
from ..tla.layout import get, put
from ..tla.symmetry import permute_voters, renamed_voter
from .channels import connection
from .layout import HEARD, KIND, A, B, C


@kernel
def permute_head(s, lay, perm, t):
    """Write into t's first slots the header and the voter blocks of `s` with every voter
    renamed perm[index] (the voters heard from too). Returns how many slots that is: renamings
    are compared on them before the network is renamed."""
    permute_voters(s, lay, perm, t)
    for i in range(lay.replicas):
        put(t, lay, perm[i], HEARD, rename_set(perm, get(s, lay, i, HEARD)))
    return lay.channel_base


@kernel
def permute(s, lay, perm, t):
    """Write into `t` the state `s` with every voter renamed perm[index]."""
    permute_head(s, lay, perm, t)
    for x in range(lay.channel_base + lay.replicas * (lay.replicas - 1) * lay.record, s.shape[0]):
        t[x] = s[x]
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
