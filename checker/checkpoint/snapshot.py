"""The checkpoint manifest: where a search stood at the end of a BFS level, in a form either
engine can continue from (the states themselves are in `files`)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..atomic_file import write_atomically
from ..result import LevelStats
from .identity import CheckpointError, RunIdentity

FORMAT = "replcheck-checkpoint/1"
MANIFEST = "checkpoint.json"


@dataclass
class Snapshot:
    """A search at the end of level `depth`: the run it belongs to (`identity`) and the limits
    it was started with (`stop_at_first`, `max_depth`), whether nothing new is left to explore
    (`exhausted`), per-level figures, successors generated, steps fired and new states per
    action kind, the smallest violating fingerprint of each invariant (or state witness) at the
    first level where it was found (`found`), for each broken step property (or reached step
    witness) the fingerprint of the state its smallest breaking step leaves from (`broken`),
    how many part files each level's journal has (`parts`), whether the frontier of `depth` is
    saved, and which engine wrote it."""

    identity: RunIdentity
    stop_at_first: bool
    max_depth: int | None
    depth: int
    exhausted: bool
    levels: list[LevelStats]
    generated: int
    fired: dict[str, int]
    new: dict[str, int]
    found: dict[str, int]
    broken: dict[str, int]
    parts: list[int]
    frontier: bool
    engine: str

    @property
    def distinct(self) -> int:
        """Distinct states (orbits with symmetry) found up to `depth`."""
        return self.levels[-1].distinct_total

    @property
    def seconds(self) -> float:
        """Seconds of search up to `depth`, over every run that contributed."""
        return self.levels[-1].seconds_total

    def to_json(self) -> dict[str, Any]:
        """The manifest document."""
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["identity"] = self.identity.to_json()
        doc["levels"] = [asdict(level) for level in self.levels]
        doc["found"] = {k: str(v) for k, v in self.found.items()}  # fingerprints are 64-bit: keep them exact
        doc["broken"] = {k: str(v) for k, v in self.broken.items()}
        return {"format": FORMAT, **doc}

    @classmethod
    def from_json(cls, doc: Any) -> "Snapshot":
        """Rebuild from `to_json`; CheckpointError naming what is wrong."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise CheckpointError(f"it is not a replcheck checkpoint (format {FORMAT})")
        kinds = {"stop_at_first": bool, "max_depth": (int, type(None)), "depth": int, "exhausted": bool,
                 "levels": list, "generated": int, "fired": dict, "new": dict, "found": dict, "broken": dict,
                 "parts": list, "frontier": bool, "engine": str}
        for name, kind in kinds.items():
            if not isinstance(doc.get(name), kind):
                raise CheckpointError(f"its field {name!r} is missing or damaged")
        try:
            levels = [LevelStats(**{**level, "violated": tuple(level.get("violated", ())),
                                    "reached": tuple(level.get("reached", ()))}) for level in doc["levels"]]
            found = {str(k): int(v) for k, v in doc["found"].items()}
            broken = {str(k): int(v) for k, v in doc["broken"].items()}
            counts = [{str(k): int(v) for k, v in doc[name].items()} for name in ("fired", "new")]
            parts = [int(p) for p in doc["parts"]]
        except (TypeError, ValueError) as exc:
            raise CheckpointError(f"its counters are damaged ({exc})") from None
        if len(levels) != doc["depth"] + 1 or len(parts) != doc["depth"] + 1 or min(parts, default=0) < 1:
            raise CheckpointError("its levels do not match its depth")
        if not doc["exhausted"] and not doc["frontier"]:
            raise CheckpointError("it has no frontier to continue from")
        return cls(RunIdentity.from_json(doc.get("identity")), doc["stop_at_first"], doc["max_depth"], doc["depth"],
                   doc["exhausted"], levels, doc["generated"], counts[0], counts[1], found, broken, parts,
                   doc["frontier"], doc["engine"])


def manifest_path(directory) -> Path:
    """Where a checkpoint directory's manifest is."""
    return Path(directory) / MANIFEST


def write_snapshot(directory, snapshot: Snapshot) -> None:
    """Save the manifest atomically: the checkpoint is now this one."""
    write_atomically(manifest_path(directory), json.dumps(snapshot.to_json(), indent=1) + "\n")


def read_snapshot(directory) -> Snapshot | None:
    """The checkpoint saved in `directory`, or None when it holds none yet; CheckpointError when
    the manifest cannot be read or is not a replcheck checkpoint."""
    path = manifest_path(directory)
    if not os.path.lexists(path):
        return None
    try:
        if not path.is_file():
            raise CheckpointError(f"{path} is not a regular file")
        if path.stat().st_size > 64 * 2**20:
            raise CheckpointError(f"{path} is too large to be a checkpoint manifest")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CheckpointError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise CheckpointError(f"{path} is damaged ({str(exc).splitlines()[0][:120]})") from None
    return Snapshot.from_json(doc)
