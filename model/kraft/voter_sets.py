"""Voter sets as readable states and the packed kernels hold them: one whole number per set,
its code (`model.kraft.kafka.voter_set` reads and writes them in the kernel).

Digit h of the code, in base `radix(n)` for n controllers, is 0 when controller h+1 is not a
voter, else 1 + the id of the log directory the set names for it (0: its first disk, one more
per lost disk). A log entry that carries a VotersRecord has value -code; client values are
1..m and a LeaderChange record is 0. The base depends only on how many controllers there are,
so a readable state says which set an entry holds without its bounds: the largest base, up to
10, whose codes fit a packed slot (int8)."""

from __future__ import annotations

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def radix(replicas: int) -> int:
    """The base of the codes of sets of `replicas` controllers."""
    return max(r for r in range(2, 11) if r ** replicas - 1 <= 127)


def max_directory(replicas: int) -> int:
    """The highest directory id a set of `replicas` controllers can name."""
    return radix(replicas) - 2


def code(members: dict[int, int], replicas: int) -> int:
    """The code of the set of `members`, voter (1..n) to directory id."""
    base = radix(replicas)
    return sum((1 + directory) * base ** (voter - 1) for voter, directory in members.items())


def members(set_code: int, replicas: int) -> dict[int, int]:
    """The voters (1..n) of the set `set_code`, each with the directory id it names."""
    base, out = radix(replicas), {}
    for voter in range(1, replicas + 1):
        digit = set_code // base ** (voter - 1) % base
        if digit:
            out[voter] = digit - 1
    return out


def describe(set_code: int, replicas: int) -> str:
    """A set in words: `{n1, n2, n3}`, a voter on a later disk marked with its directory id
    (`n3/d1`)."""
    return "{" + ", ".join(f"n{v}" + (f"/d{d}" if d else "") for v, d in members(set_code, replicas).items()) + "}"
