"""The random numbers of simulation: SplitMix64, compiled, so a walk draws the same numbers in
every process and on every engine (numba's own generator is per thread and per version)."""

from __future__ import annotations

import numpy as np

from .jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
"""SplitMix64's increment: the generator's state advances by it before each draw."""


@kernel
def mix(x):
    """SplitMix64's finaliser: a well-spread 64-bit value from `x` (a uint64)."""
    z = np.uint64(x)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def walk_seed(seed, walk):
    """The generator state that walk number `walk` of a simulation seeded `seed` starts from."""
    return mix(np.uint64(seed) ^ mix(np.uint64(walk) + GOLDEN))


@kernel
def draw(state, below):
    """(next state, a number in 0..below-1) from generator `state`."""
    state = np.uint64(state + GOLDEN)
    return state, np.int64(mix(state) % np.uint64(below))

