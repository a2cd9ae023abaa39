"""What a checkpoint belongs to: the run a resumed search must be the same as."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any


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
        """Rebuild from `to_json`; CheckpointError when a field is missing or mistyped."""
        kinds = {"model": str, "variant": (str, type(None)), "parameters": dict, "invariants": list,
                 "symmetry": bool, "source": str, "version": str}
        if not isinstance(doc, dict) or any(not isinstance(doc.get(k), t) for k, t in kinds.items()):
            raise CheckpointError("its run description is damaged")
        if not all(isinstance(name, str) for name in doc["invariants"]):
            raise CheckpointError("its list of invariants is damaged")
        return cls(**{**{k: doc[k] for k in kinds}, "invariants": tuple(doc["invariants"])})


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
