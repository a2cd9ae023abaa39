"""The checkpoint manifest: where a search stood at the end of a BFS level, in a form either
engine can continue from (the states themselves are in `files`)."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..atomic_file import write_atomically
from ..coverage import Coverage
from ..output_kinds import CHECKPOINT_MANIFEST
from ..result import LevelStats
from ..seal import intact, sealed
from .files import PART
from .identity import CheckpointError, RunIdentity, is_name

FORMAT = "replcheck-checkpoint/3"
MANIFEST = "checkpoint.json"
NESTING = 8
"""A manifest nests lists and objects four deep; one nested deeper than this is not read further."""
COUNT = 2**63 - 1
"""The largest count or fingerprint a manifest holds (a signed 64-bit number)."""
SHA256 = re.compile(r"[0-9a-f]{64}")
"""A SHA-256 as a manifest writes it."""
FINGERPRINT = re.compile(r"-?[0-9]{1,19}")
"""A fingerprint as a manifest writes it (a string, so that JSON readers keep all 64 bits)."""


@dataclass
class Snapshot:
    """A search at the end of level `depth`: the run it belongs to (`identity`) and the limits
    it was started with (`stop_at_first`, `max_depth`), whether nothing new is left to explore
    (`exhausted`), per-level figures, successors generated, the coverage so far
    (`checker.coverage.Coverage.to_doc`: steps enabled, fired and new per action kind and
    replica, the guards' tally), the smallest violating fingerprint of each invariant (or state witness) at the
    first level where it was found (`found`), for each broken step property (or reached step
    witness) the fingerprint of the state its smallest breaking step leaves from (`broken`),
    how many part files each level's journal has (`parts`), whether the frontier of `depth` is
    saved, which engine wrote it, and the SHA-256 of each part file by name, level by level
    (`level_digests`) and of the frontier (`frontier_digests`; `Saver.commit` records both)."""

    identity: RunIdentity
    stop_at_first: bool
    max_depth: int | None
    depth: int
    exhausted: bool
    levels: list[LevelStats]
    generated: int
    coverage: dict[str, Any]
    found: dict[str, int]
    broken: dict[str, int]
    parts: list[int]
    frontier: bool
    engine: str
    level_digests: list[dict[str, str]] = field(default_factory=list)
    frontier_digests: dict[str, str] = field(default_factory=dict)

    @property
    def distinct(self) -> int:
        """Distinct states (orbits with symmetry) found up to `depth`."""
        return self.levels[-1].distinct_total

    @property
    def seconds(self) -> float:
        """Seconds of search up to `depth`, over every run that contributed."""
        return self.levels[-1].seconds_total

    def with_digests(self, levels: list[dict[str, str]], frontier: dict[str, str]) -> "Snapshot":
        """This snapshot with the SHA-256 of its part files (see the class docstring)."""
        return replace(self, level_digests=levels, frontier_digests=frontier)

    def to_json(self) -> dict[str, Any]:
        """The manifest document, sealed with its own SHA-256 (`sealed`)."""
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["identity"] = self.identity.to_json()
        doc["levels"] = [asdict(level) for level in self.levels]
        doc["found"] = {k: str(v) for k, v in self.found.items()}  # fingerprints are 64-bit: keep them exact
        doc["broken"] = {k: str(v) for k, v in self.broken.items()}
        return sealed({"format": FORMAT, **doc})

    @classmethod
    def from_json(cls, doc: Any) -> "Snapshot":
        """Rebuild from `to_json`; CheckpointError naming what is wrong: it is not a checkpoint,
        it changed since its run wrote it (its SHA-256 does not match), or (a forged one) a field
        is of the wrong kind or out of range, or its figures do not add up."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            written = doc.get("format") if isinstance(doc, dict) else None
            if isinstance(written, str) and re.fullmatch(r"replcheck-checkpoint/[0-9]{1,4}", written):
                raise CheckpointError(f"another replcheck version wrote it (format {written}; this one reads {FORMAT})")
            raise CheckpointError(f"it is not a replcheck checkpoint (format {FORMAT})")
        if _nested_deeper(doc, NESTING):
            raise CheckpointError("its manifest is damaged (nested too deeply)")
        if not intact(doc):
            raise CheckpointError("its manifest is damaged (its SHA-256 does not match its content)")
        kinds = {"stop_at_first": _flag, "max_depth": lambda v: v is None or _count(v), "depth": _count,
                 "exhausted": _flag, "levels": _list_of(_level), "generated": _count,
                 "coverage": _coverage, "found": _fingerprints, "broken": _fingerprints,
                 "parts": _list_of(lambda v: _count(v) and 0 < v <= 2**20), "frontier": _flag, "engine": is_name,
                 "level_digests": _list_of(_digests), "frontier_digests": _digests}
        for name, valid in kinds.items():
            if name not in doc or not valid(doc[name]):
                raise CheckpointError(f"its field {name!r} is missing or damaged")
        depth, parts = doc["depth"], doc["parts"]
        if not len(doc["levels"]) == len(parts) == len(doc["level_digests"]) == depth + 1:
            raise CheckpointError("its levels do not match its depth")
        if any(len(d) != n for d, n in zip(doc["level_digests"], parts)) or doc["frontier"] != bool(
                doc["frontier_digests"]):
            raise CheckpointError("its part files do not match its levels")
        levels = [LevelStats(**{**level, "violated": tuple(level["violated"]), "reached": tuple(level["reached"])})
                  for level in doc["levels"]]
        total = 0
        for d, level in enumerate(levels):
            total += level.new_states
            if level.depth != d or level.distinct_total != total:
                raise CheckpointError(f"its figures for level {d} do not add up")
        if not doc["exhausted"] and not doc["frontier"]:
            raise CheckpointError("it has no frontier to continue from")
        found, broken = ({k: int(v) for k, v in doc[name].items()} for name in ("found", "broken"))
        return cls(RunIdentity.from_json(doc.get("identity")), doc["stop_at_first"], doc["max_depth"], depth,
                   doc["exhausted"], levels, doc["generated"],
                   doc["coverage"], found, broken, parts,
                   doc["frontier"], doc["engine"], doc["level_digests"], doc["frontier_digests"])


def _nested_deeper(doc: Any, limit: int) -> bool:
    """Whether `doc` nests lists and objects more than `limit` deep (found without recursion)."""
    stack = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= limit:
                return True
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return False


def _flag(value: Any) -> bool:
    return type(value) is bool


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= COUNT


def _list_of(valid):
    return lambda value: isinstance(value, list) and all(valid(item) for item in value)


def _coverage(value: Any) -> bool:
    try:
        Coverage.from_doc(value)
    except ValueError:
        return False
    return True


def _fingerprints(value: Any) -> bool:
    return isinstance(value, dict) and all(is_name(k) and isinstance(v, str) and FINGERPRINT.fullmatch(v)
                                           and -COUNT - 1 <= int(v) <= COUNT for k, v in value.items())


def _digests(value: Any) -> bool:
    return isinstance(value, dict) and all(PART.fullmatch(k) and isinstance(v, str) and SHA256.fullmatch(v)
                                           for k, v in value.items())


def _seconds(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and value >= 0


LEVEL_FIELDS = {"depth": _count, "new_states": _count, "generated": _count, "distinct_total": _count,
                "seconds_total": _seconds, "task_seconds": _seconds, "violated": _list_of(is_name),
                "reached": _list_of(is_name)}
"""A level's figures in a manifest, each with what it must be."""


def _level(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == LEVEL_FIELDS.keys() and all(
        valid(value[name]) for name, valid in LEVEL_FIELDS.items())


def manifest_path(directory) -> Path:
    """Where a checkpoint directory's manifest is."""
    return Path(directory) / MANIFEST


def write_snapshot(directory, snapshot: Snapshot) -> None:
    """Save the manifest atomically: the checkpoint is now this one."""
    try:
        write_atomically(manifest_path(directory), json.dumps(snapshot.to_json(), indent=1) + "\n",
                         CHECKPOINT_MANIFEST)
    except OSError as exc:
        raise CheckpointError(f"cannot write {MANIFEST}: {exc.strerror or exc}") from None


def read_snapshot(directory) -> Snapshot | None:
    """The checkpoint saved in `directory`, or None when it holds none yet; CheckpointError when
    the manifest cannot be read or is not a replcheck checkpoint."""
    path = manifest_path(directory)
    if not os.path.lexists(path):
        return None
    try:  # (CheckpointError is a ValueError: the handlers below must not rewrap it)
        if not path.is_file():
            raise CheckpointError(f"{path} is not a regular file")
        if path.stat().st_size > 64 * 2**20:
            raise CheckpointError(f"{path} is too large to be a checkpoint manifest")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except CheckpointError:
        raise
    except OSError as exc:
        raise CheckpointError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise CheckpointError(f"{path} is damaged ({str(exc).splitlines()[0][:120]})") from None
    return Snapshot.from_json(doc)
