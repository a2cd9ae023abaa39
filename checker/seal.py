"""A document sealed with the SHA-256 of its own content, so that a change made to it after
replcheck wrote it is seen: a checkpoint's manifest (a damaged one is refused) and a saved
trace (an edited one is never replaced, `checker.output_kinds`).

The digest is of the document without its seal, as canonical JSON (keys sorted, no spaces), so
it is the same whatever the file's layout and however it is read back.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

SEAL = "sha256"
"""The field that holds a sealed document's digest."""


def sealed(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with the SHA-256 of the rest, as canonical JSON, added as its SEAL field."""
    return {**doc, SEAL: _digest(doc)}


def intact(doc: dict[str, Any]) -> bool:
    """Whether `doc` carries a seal and its content still matches it."""
    return doc.get(SEAL) == _digest(doc)


def _digest(doc: dict[str, Any]) -> str:
    rest = {k: v for k, v in doc.items() if k != SEAL}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
