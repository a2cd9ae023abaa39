"""What a checkpoint belongs to: the run a resumed search must be the same as."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any

NAME = re.compile(r"[A-Za-z0-9_.+-]{1,40}")
"""A name or word in a manifest (a model, variant, invariant, parameter, setting, action kind,
version, digest): short and plain, so that a message can show it as it is."""


class CheckpointError(ValueError):
    """A checkpoint cannot be used (missing, damaged, foreign, or of another run); one line."""


def replcheck_version() -> str:
    """The installed replcheck version ('unknown' when run from a bare source tree)."""
    try:
        return metadata.version("replcheck")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class RunIdentity:
    """The model instance and the question asked of it: the model and variant, its bounds and
    configuration, the invariants and step properties checked, whether one state per orbit is
    stored, a digest of the model sources, and the replcheck version. Two runs with the same
    identity explore the same states in the same order, whatever the engine."""

    model: str
    variant: str | None
    parameters: dict
    invariants: tuple[str, ...]
    symmetry: bool
    source: str
    version: str

    @classmethod
    def of(cls, model, invariants, symmetry: bool) -> "RunIdentity":
        """The identity of checking `invariants` on `model` (with `symmetry`) with this code."""
        from ..kernel.cache import source_digest

        return cls(model.name, model.variant, dict(model.parameters()), tuple(i.name for i in invariants),
                   bool(symmetry), source_digest(), replcheck_version())

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {**asdict(self), "invariants": list(self.invariants)}

    @classmethod
    def from_json(cls, doc: Any) -> "RunIdentity":
        """Rebuild from `to_json`; CheckpointError when a field is missing, mistyped, or not a
        plain name (see NAME), or the invariants are not up to 32 distinct names."""
        kinds = {"model": is_name, "variant": lambda v: v is None or is_name(v), "parameters": _parameters,
                 "invariants": _invariants, "symmetry": lambda v: type(v) is bool, "source": is_name,
                 "version": is_name}
        if not isinstance(doc, dict) or not all(k in doc and valid(doc[k]) for k, valid in kinds.items()):
            raise CheckpointError("its run description is damaged")
        return cls(**{**{k: doc[k] for k in kinds}, "invariants": tuple(doc["invariants"])})


def is_name(value: Any) -> bool:
    """Whether `value` is a plain name (see NAME)."""
    return isinstance(value, str) and NAME.fullmatch(value) is not None


def _invariants(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= 32 and all(map(is_name, value)) and len(set(value)) == len(value)


def _parameters(value: Any) -> bool:
    """Whether `value` is a model's parameters: up to 100 names, each with a plain value (none,
    on/off, a 64-bit whole number or a name)."""
    return isinstance(value, dict) and len(value) <= 100 and all(
        is_name(k) and (v is None or type(v) is bool or is_name(v) or type(v) is int and -2**63 <= v < 2**63)
        for k, v in value.items())


def difference(saved: RunIdentity, asked: RunIdentity) -> str | None:
    """The first way `asked` differs from the run that wrote a checkpoint (`saved`), in words,
    or None when they are the same run."""
    if saved.model != asked.model:
        return f"model {saved.model} there, {asked.model} here"
    if saved.variant != asked.variant:
        return f"variant {saved.variant} there, {asked.variant} here"
    for name in sorted(set(saved.parameters) | set(asked.parameters)):
        there, here = saved.parameters.get(name, "unset"), asked.parameters.get(name, "unset")
        if there != here:
            return f"--{name.replace('_', '-')} {_word(there)} there, {_word(here)} here"
    if sorted(saved.invariants) != sorted(asked.invariants):
        return f"invariants {', '.join(saved.invariants)} there, {', '.join(asked.invariants)} here"
    if saved.symmetry != asked.symmetry:
        return f"symmetry {_word(saved.symmetry)} there, {_word(asked.symmetry)} here"
    if saved.version != asked.version:
        return f"written by replcheck {saved.version}, this is {asked.version}"
    if saved.source != asked.source:
        return f"the model source changed since (digest {saved.source} there, {asked.source} here)"
    return None


def _word(value) -> str:
    return {True: "on", False: "off"}.get(value, str(value)) if isinstance(value, bool) else str(value)
