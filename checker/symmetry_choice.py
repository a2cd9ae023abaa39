"""Whether a search may store one state per orbit under replica renaming.

Symmetry reduction is exact only when the model's rules treat every replica id alike and every
checked property's verdict is the same on renamed states. Models with a compiled kernel
provide the renaming, other models a `representative` function; each property declares
whether it is symmetric.
"""

from __future__ import annotations

from typing import Sequence

from model.params import ModelError


def supports_symmetry(model) -> bool:
    """The model can reduce a state to its orbit's representative (a compiled kernel renames
    replicas; a plain model offers `representative`)."""
    return getattr(model, "kernel", None) is not None or hasattr(model, "representative")


def choose_symmetry(models: Sequence, properties: Sequence, asked: bool | None) -> tuple[bool, str | None]:
    """(use symmetry, a one-line notice for the user or None). `asked` is the user's
    --symmetry (True), --no-symmetry (False) or nothing (None: on whenever it is sound).
    Asking for it where it is unsound is a ModelError."""
    if asked is False:
        return False, None
    lacking = next((m.name for m in models if not supports_symmetry(m)), None)
    asymmetric = next((p.name for p in properties if not p.symmetric), None)
    if asked:
        if lacking:
            raise ModelError(f"--symmetry: model {lacking} has no symmetry reduction")
        if asymmetric:
            raise ModelError(f"--symmetry: {asymmetric} is not symmetric under renaming replicas")
        return True, None
    if lacking:
        return False, None
    if asymmetric:
        return False, f"symmetry reduction off: {asymmetric} is not symmetric under renaming replicas"
    return True, None
