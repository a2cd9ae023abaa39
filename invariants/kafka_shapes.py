"""What the invariants of both Kafka models share: replicas agreeing below a leader's HW, and a
predicate over packed rows asked of a readable state."""

from __future__ import annotations

from checker.kernel.jit import kernel
from model.kafka_accessors import hw, leo, member, same_record


@kernel
def agrees_below_hw(s, lay, r1, replicas):
    """Every replica in `replicas` holds exactly r1's record at every offset below r1's HW (an
    offset missing from either log is a disagreement; an empty set agrees vacuously)."""
    h = hw(s, lay, r1)
    for r2 in range(lay.replicas):
        if not member(replicas, r2):
            continue
        if leo(s, lay, r1) < h or leo(s, lay, r2) < h:
            return False
        for offset in range(h):
            if not same_record(s, lay, r1, r2, offset):
                return False
    return True


def on_readable(predicate, encode, fitting_layout):
    """A `predicate` over packed rows as a predicate over readable states, through the model's
    `encode` and `fitting_layout` (the smallest layout that holds a given state)."""
    def holds(state) -> bool:
        lay = fitting_layout(state)
        return bool(predicate(encode(state, lay), lay))
    holds.__doc__ = predicate.__doc__
    return holds
