"""How much each step a random walk may take weighs: one draw of weights per walk.

A walk that draws every enabled step uniformly is a poor explorer of a replication protocol:
crashes and ISR shrinks are enabled almost everywhere, so a uniform walk spends its crash budget
in its first steps and rarely lets one replica lag while another races ahead, which is what
most lost-record stories need. Weighted walks give each walk its own weight for each action
kind and for each replica's steps of each kind (powers of two, 1 to 16), drawn from the walk's
seed: one walk has a follower that fetches eagerly and a broker that rarely crashes, the next
the opposite. This is the idea of PCT's random priorities and of swarm testing's random
configurations, without leaving any kind out. A kind of weight 0 is never taken (swarm walks).
"""

from __future__ import annotations

import numpy as np

from .jit import kernel
from .prng import draw, mix
from .steps import ARG_LIMIT

ACTORS = ARG_LIMIT
"""Steps are weighed by their first argument (the acting replica, or the record), below 16;
column ACTORS of a weight table is the kind's own weight."""

EXPONENTS = 5
"""Weights are 2**0 .. 2**(EXPONENTS - 1)."""

WEIGHT_SALT = np.uint64(0x3E16475)
"""Mixed into a walk's seed to draw its weights, so that the steps it draws are the same
whether it is weighted or not."""


@kernel
def walk_weights(state, dropped, weighted, table):
    """Fill `table` (kinds x ACTORS + 1) with the weights of the walk whose generator starts at
    `state`: all ones when not `weighted`, else a random power of two for each kind and each
    (kind, acting replica); kinds in the bitmask `dropped` get weight 0."""
    g = mix(np.uint64(state) ^ WEIGHT_SALT)
    for kind in range(table.shape[0]):
        for actor in range(ACTORS + 1):
            if weighted:
                g, e = draw(g, EXPONENTS)
                table[kind, actor] = 1 << e
            else:
                table[kind, actor] = 1
        if (dropped >> kind) & 1:
            table[kind, ACTORS] = 0
    return table


def uniform_weights(kinds: int) -> np.ndarray:
    """A weight table that draws every step uniformly (a kind first, then one of its steps)."""
    return np.ones((kinds, ACTORS + 1), np.int64)
