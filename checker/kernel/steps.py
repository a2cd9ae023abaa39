"""How kernel actions hand back their successors: a buffer of rows and an action code per row.

An action value (kind, a, b, c) packs into one 16-bit int: the kind's index in the model's list
of action kinds, then up to three small arguments (replica ids, epochs; each below 16). Kinds
0..14 have four bits of their own; kind 15 and above (up to 30) take at most two arguments and
are written as 15, kind - 15, a, b, so a model may have more than 16 kinds. Codes order like
the tuples they stand for, which is how engines break ties between steps.
"""

from __future__ import annotations

from .jit import kernel

ARG_BITS = 4
ARG_LIMIT = 1 << ARG_BITS
EXTENDED = 15
"""The first kind index written in two nibbles (15, kind - 15); such kinds take at most two
arguments."""


@kernel
def action_code(kind, a, b, c):
    """The code of action (kind, a, b, c); for kind EXTENDED and above, c must be 0."""
    if kind < EXTENDED:
        return (kind << 12) | (a << 8) | (b << 4) | c
    return (EXTENDED << 12) | ((kind - EXTENDED) << 8) | (a << 4) | b


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
    top = codes >> 12
    return top + (top == EXTENDED) * ((codes >> 8) & 15)


code_kind = kernel(kind_of)
"""`kind_of` of one code, compiled, for the search loop."""


def actor_of(codes):
    """The first argument of each action code (an int or an array of them): the replica (or
    record) that acts."""
    extended = (codes >> 12) == EXTENDED
    return ((codes >> 8) & 15) * (1 - extended) + ((codes >> 4) & 15) * extended


@kernel
def code_actor(code):
    """The first argument of an action code: the replica (or record) that acts."""
    if code >> 12 < EXTENDED:
        return (code >> 8) & 15
    return (code >> 4) & 15


def action_fields(code: int) -> tuple[int, int, int, int]:
    """(kind index, a, b, c) of an action code."""
    kind = kind_of(code)
    if kind < EXTENDED:
        return kind, (code >> 8) & 15, (code >> 4) & 15, code & 15
    return kind, (code >> 4) & 15, code & 15, 0
