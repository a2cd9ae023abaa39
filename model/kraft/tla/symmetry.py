"""Renaming voters in a packed `tla` state, for symmetry reduction (the specification's
SYMMETRY symmServers): voter blocks move, every slot naming a voter (vote, leader, a pending
FETCH's leader, a message's source, destination and named leader) or a set of voters (votes
granted) is renamed, each leader's row of fetched end offsets is permuted, and the bag is
sorted again. Voters are 1..n in slots (0 is Nil), indices 0..n-1 in a renaming."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.symmetry import rename_set

from ..messages import FETCH_RESPONSE, VOTE_RESPONSE
from . import messages as msg
from .bag import record_at, sort_records
from .layout import BAG_SIZE, LEADER, PENDING_LEADER, VOTED_FOR, VOTES, get, put


@kernel
def renamed_voter(perm, v):
    """Voter v (1..n; 0 is Nil) renamed."""
    return perm[v - 1] + 1 if v > 0 else 0


@kernel
def permute_voters(s, lay, perm, t):
    """Write into t the header of `s` and its voter blocks, moved and renamed as both kinds of
    variant keep them (vote, leader, votes granted, a leader's row of fetched end offsets); the
    slots a variant uses alone are its own to rename after."""
    for x in range(lay.voter_base):
        t[x] = s[x]
    for i in range(lay.replicas):
        r = perm[i]
        source, target = lay.voter_base + i * lay.voter_stride, lay.voter_base + r * lay.voter_stride
        for x in range(lay.voter_stride):
            t[target + x] = s[source + x]
        put(t, lay, r, VOTED_FOR, renamed_voter(perm, get(s, lay, i, VOTED_FOR)))
        put(t, lay, r, LEADER, renamed_voter(perm, get(s, lay, i, LEADER)))
        put(t, lay, r, VOTES, rename_set(perm, get(s, lay, i, VOTES)))
        base = lay.voter_base + r * lay.voter_stride + lay.end_offset_at
        source = lay.voter_base + i * lay.voter_stride + lay.end_offset_at
        for k in range(lay.replicas):
            t[base + perm[k]] = s[source + k]


@kernel
def permute_head(s, lay, perm, t):
    """Write into t's first slots the header and the voter blocks of `s` with every voter
    renamed perm[index] (a pending FETCH's leader too). Returns how many slots that is:
    renamings are compared on them before the bag is renamed."""
    permute_voters(s, lay, perm, t)
    for i in range(lay.replicas):
        put(t, lay, perm[i], PENDING_LEADER, renamed_voter(perm, get(s, lay, i, PENDING_LEADER)))
    return lay.bag_base


@kernel
def permute(s, lay, perm, t):
    """Write into `t` the state `s` with every voter renamed perm[index]."""
    permute_head(s, lay, perm, t)
    permute_part(s, lay, perm, 1, t)


@kernel
def permute_part(s, lay, perm, part, t):
    """Write into `t` the renaming's one part after the head (`permute_head`): the bag, every
    voter it names renamed and sorted again; returns the row's width."""
    for x in range(lay.bag_base, s.shape[0]):
        t[x] = s[x]
    for k in range(s[BAG_SIZE]):
        b = record_at(lay, k)
        t[b + msg.SOURCE] = renamed_voter(perm, s[b + msg.SOURCE])
        t[b + msg.DEST] = renamed_voter(perm, s[b + msg.DEST])
        if s[b] == VOTE_RESPONSE:
            t[b + msg.LEADER] = renamed_voter(perm, s[b + msg.LEADER])
        elif s[b] == FETCH_RESPONSE:
            t[b + msg.FETCH_LEADER] = renamed_voter(perm, s[b + msg.FETCH_LEADER])
    sort_records(t, lay)
    return s.shape[0]
