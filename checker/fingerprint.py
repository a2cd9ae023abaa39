"""64-bit state fingerprints that agree across processes and machines.

CPython hashes ints, bools and tuples of them with a fixed algorithm (no per-process salt;
str and bytes hashes are salted, and before Python 3.12 so is None's, which hashes by address),
so `hash(state)` of a model state built only from ints, bools and tuples is a deterministic
64-bit fingerprint. Models must keep strings and None out of their states. Engines use it to order states and break ties, which keeps every result,
shortest traces included, independent of exploration order and of how work is partitioned.
"""

from __future__ import annotations

from .model import State


def fingerprint(state: State) -> int:
    """The state's 64-bit fingerprint as a signed int (the order engines use to break ties)."""
    return hash(state)
