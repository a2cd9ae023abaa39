"""Variant `kip279` (Kafka 2.0): fixed leader-epoch truncation after fast leader changes.

Only the truncation point changes: the replica and the leader walk back through their epochs
until they agree, which lands exactly after the last record both logs share.
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from .layout import leo, same_record


@kernel
def truncation_point(s, lay, r, ldr):
    """One past the highest offset at which the replica and the leader hold the very same
    record (same id and epoch); 0 when there is none or either log is empty."""
    for offset in range(min(leo(s, lay, r), leo(s, lay, ldr)) - 1, -1, -1):
        if same_record(s, lay, r, ldr, offset):
            return offset + 1
    return 0
