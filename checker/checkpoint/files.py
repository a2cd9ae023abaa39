"""A checkpoint directory's files, one concern each: the levels journal and the frontier.

    DIR/checkpoint.json                   the manifest (see `snapshot`), written last
    DIR/levels/<depth>/part-<n>.npz       states found at that depth: fingerprints, the chosen
                                          parent's fingerprint (an initial state's is its own),
                                          the action code that reached each
    DIR/frontier/<depth>/part-<n>.npz     the states of that depth themselves: fingerprints and
                                          packed rows (or the model's encoded bytes)

An engine writes one part per shard (the local engine one, Spark one per partition); readers
put the parts of a level back together, so the partition count of the writer does not matter.
Every file is renamed into place complete.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..atomic_file import atomic_output
from .identity import CheckpointError


class LevelStates(NamedTuple):
    """The states found at one BFS level: fingerprints, parents' fingerprints, action codes."""

    fps: np.ndarray
    parents: np.ndarray
    codes: np.ndarray


def _part(directory: Path, kind: str, depth: int, part: int) -> Path:
    return Path(directory) / kind / f"{depth:08d}" / f"part-{part:05d}.npz"


def _write(path: Path, **arrays) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as out:
        np.savez(out, **arrays)


def write_level_part(directory, depth: int, part: int, fps, parents, codes) -> None:
    """Save one shard's share of the states found at `depth` (see the module docstring)."""
    _write(_part(directory, "levels", depth, part), fps=np.asarray(fps, np.int64),
           parents=np.asarray(parents, np.int64), codes=np.asarray(codes, np.uint16))


def write_frontier_part(directory, depth: int, part: int, fps, states) -> None:
    """Save one shard's share of the frontier at `depth`: packed rows (a 2-D int8 array) or a
    list of encoded states (bytes)."""
    fps = np.asarray(fps, np.int64)
    if isinstance(states, np.ndarray):
        _write(_part(directory, "frontier", depth, part), fps=fps, rows=states)
    else:
        lengths = np.fromiter((len(s) for s in states), np.int64, len(states))
        data = np.frombuffer(b"".join(states), np.uint8)
        _write(_part(directory, "frontier", depth, part), fps=fps, lengths=lengths, data=data)


def _parts(directory: Path, kind: str, depth: int) -> list[Path]:
    return sorted((Path(directory) / kind / f"{depth:08d}").glob("part-*.npz"))


def _name(path: Path) -> str:
    """A part file as messages name it: relative to its checkpoint directory."""
    return "/".join(path.parts[-3:])


def _load(path: Path, kinds: dict[str, str]) -> dict[str, np.ndarray]:
    """The arrays of a part file, checked to include `kinds` (name -> dtype kind) of one length."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"{_name(path)} is damaged ({exc})") from None
    for name, kind in kinds.items():
        if name not in arrays or arrays[name].dtype.kind != kind:
            raise CheckpointError(f"{_name(path)} is damaged (no {name} array of the right type)")
    if len({len(arrays[name]) for name in kinds if name != "data"}) > 1:
        raise CheckpointError(f"{_name(path)} is damaged (its arrays differ in length)")
    return arrays


def read_level(directory, depth: int, parts: int) -> LevelStates:
    """The states found at `depth`, from its `parts` part files; CheckpointError when one is
    missing or damaged."""
    paths = _parts(directory, "levels", depth)
    if len(paths) != parts:
        raise CheckpointError(f"level {depth} has {len(paths)} of its {parts} part files")
    loaded = [_load(p, {"fps": "i", "parents": "i", "codes": "u"}) for p in paths]
    return LevelStates(*(np.concatenate([a[name] for a in loaded]).astype(kind, copy=False)
                         for name, kind in (("fps", np.int64), ("parents", np.int64), ("codes", np.uint16))))


def find_routes(directory, depth: int, fps) -> dict[int, tuple[int, int]]:
    """{fingerprint: (parent fingerprint, action code)} for those of `fps` found among the
    states journalled at `depth` in `directory` (whatever part files it holds)."""
    wanted = np.asarray(sorted(fps), np.int64)
    routes = {}
    for path in _parts(directory, "levels", depth):
        part = _load(path, {"fps": "i", "parents": "i", "codes": "u"})
        hit = np.isin(part["fps"], wanted)
        routes.update(zip(part["fps"][hit].tolist(), zip(part["parents"][hit].tolist(), part["codes"][hit].tolist())))
    return routes


def read_frontier(directory, depth: int, width: int | None) -> tuple[np.ndarray, np.ndarray | list[bytes]]:
    """(fingerprints, states) of the frontier saved at `depth`: packed rows of `width` columns
    for a model with a kernel, else a list of encoded states."""
    paths = _parts(directory, "frontier", depth)
    if not paths:
        raise CheckpointError(f"the frontier of depth {depth} is missing")
    fps, states = [], []
    for path in paths:
        if width is not None:
            arrays = _load(path, {"fps": "i", "rows": "i"})
            if arrays["rows"].ndim != 2 or arrays["rows"].shape[1] != width:
                raise CheckpointError(f"{_name(path)} is damaged (its rows are not {width} wide)")
            states.append(arrays["rows"].astype(np.int8, copy=False))
        else:
            arrays = _load(path, {"fps": "i", "lengths": "i", "data": "u"})
            ends = np.cumsum(arrays["lengths"])
            if len(ends) and ends[-1] != len(arrays["data"]):
                raise CheckpointError(f"{_name(path)} is damaged (its states do not fill its data)")
            data = arrays["data"].tobytes()
            states.extend(data[end - n:end] for end, n in zip(ends.tolist(), arrays["lengths"].tolist()))
        fps.append(arrays["fps"].astype(np.int64, copy=False))
    rows = np.concatenate(states) if width is not None else states
    return np.concatenate(fps), rows


def _depths(directory: Path, kind: str) -> list[int]:
    root = Path(directory) / kind
    return sorted(int(p.name) for p in root.iterdir() if p.name.isdigit()) if root.is_dir() else []


def remove_levels_after(directory, depth: int) -> None:
    """Delete the journal of levels deeper than `depth` (written after the last checkpoint)."""
    for d in _depths(directory, "levels"):
        if d > depth:
            shutil.rmtree(Path(directory) / "levels" / f"{d:08d}")


def remove_frontiers_except(directory, depth: int | None) -> None:
    """Delete every saved frontier but the one at `depth` (None: all of them)."""
    for d in _depths(directory, "frontier"):
        if d != depth:
            shutil.rmtree(Path(directory) / "frontier" / f"{d:08d}")


def remove_frontier(directory, depth: int) -> None:
    """Delete the frontier saved at `depth`, if any (one from an attempt that did not finish)."""
    shutil.rmtree(Path(directory) / "frontier" / f"{depth:08d}", ignore_errors=True)
