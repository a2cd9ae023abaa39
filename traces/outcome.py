"""What a trace's last step shows: an invariant violated, or a witness reached. Every title,
header, legend and account of a trace takes its words from here, so a reached witness is never
called a violation."""

from __future__ import annotations

from invariants.registry import invariants_for

from .trace import Trace


def property_of(trace: Trace):
    """The invariant or witness the trace ends at (its model's property of that name)."""
    return invariants_for(trace.model)[trace.invariant]


def is_witness(trace: Trace) -> bool:
    """The trace ends where a witness is reached (rather than where an invariant fails)."""
    return property_of(trace).witness


def outcome(trace: Trace) -> str:
    """'strong-isr violated after 10 steps', or 'reached acked-with-1-down in 10 steps'."""
    if is_witness(trace):
        return f"reached {trace.invariant} in {len(trace)} steps"
    return f"{trace.invariant} violated after {len(trace)} steps"


def at_last_step(trace: Trace) -> str:
    """What the last step's header says: 'strong-isr fails here' or 'acked-with-1-down reached here'."""
    return f"{trace.invariant} {'reached' if is_witness(trace) else 'fails'} here"


def last_mark(trace: Trace) -> str:
    """The mark of the last step in pictures and graphs: `reached` (a witness) or `fails`."""
    return "reached" if is_witness(trace) else "fails"
