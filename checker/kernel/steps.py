"""How kernel actions hand back their successors: a buffer of rows and an action code per row.

An action value (kind, a, b, c) packs into one int: the kind's index in the model's list of
action kinds, then up to three small arguments (replica ids, epochs; each below 16). Codes
order like the tuples they stand for, which is how engines break ties between steps.
"""

from __future__ import annotations

from .jit import kernel

ARG_BITS = 4
ARG_LIMIT = 1 << ARG_BITS


@kernel
def action_code(kind, a, b, c):
    """The code of action (kind, a, b, c)."""
    return (kind << 12) | (a << 8) | (b << 4) | c


@kernel
def emit(s, out, acts, n, code):
    """Start successor n as a copy of state `s`, taken by action `code`; return its row, for
    the action to change."""
    t = out[n]
    for i in range(s.shape[0]):
        t[i] = s[i]
    acts[n] = code
    return t


def kind_of(codes):
    """The action kind index of each action code (an int or an array of them)."""
    return codes >> 12


def action_fields(code: int) -> tuple[int, int, int, int]:
    """(kind index, a, b, c) of an action code."""
    return code >> 12, (code >> 8) & 15, (code >> 4) & 15, code & 15
