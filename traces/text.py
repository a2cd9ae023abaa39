"""Text from a file or a command line made safe to print: control characters escaped, so that a
newline cannot break an error line and no escape sequence reaches the terminal, and a long value
cut to its start. Cheap to import (the models use it in their error messages)."""

from __future__ import annotations

from typing import Any


def one_line(text: str) -> str:
    """`text` with every unprintable character (newline, carriage return, escape, other control
    and separator characters) written as its Python escape, so it prints as one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def printable(text: str) -> str:
    """`text` as the terminal may show it: as `one_line`, but line breaks kept (a note of several
    lines), so that no escape sequence or other control character from a file reaches it."""
    return "\n".join(one_line(line) for line in text.split("\n"))


QUOTED_CHARACTERS = 40
"""The most characters of a user's value an error message quotes (`quoted`)."""


def quoted(value: Any, limit: int = QUOTED_CHARACTERS) -> str:
    """`value` as an error message quotes it: its repr, control characters escaped (so it prints
    as one line and no escape sequence reaches the terminal), cut to its first `limit`
    characters with a note of how long the value was. A value nested too deeply to repr, or an
    integer too long to write out, is named by its type."""
    size = len(value) if isinstance(value, str) else None
    if size is not None and size > 4 * limit:  # no need to copy 10 MB to show 40 characters
        value = value[:4 * limit]
    try:
        text = one_line(repr(value))
    except (RecursionError, ValueError):  # nested thousands deep; an int of thousands of digits
        return f"<{type(value).__name__} too large to show>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({size if size is not None else len(text):,} characters)"
