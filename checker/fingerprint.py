"""64-bit state fingerprints that agree across processes and machines.

CPython hashes ints and tuples of ints with a fixed algorithm (no per-process salt; only
str and bytes hashes are salted), so `hash(state)` of a model state is a deterministic
64-bit fingerprint. Engines use it to order states and break ties, which keeps every result,
shortest traces included, independent of exploration order and of how work is partitioned.
"""

from __future__ import annotations

from .model import State


def fingerprint(state: State) -> int:
    """The state's 64-bit fingerprint as a signed int (the order engines use to break ties)."""
    return hash(state)
