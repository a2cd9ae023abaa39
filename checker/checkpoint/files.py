"""A checkpoint directory's files, one concern each: the levels journal and the frontier.

    DIR/checkpoint.json                   the manifest (see `snapshot`), written last
    DIR/levels/<depth>/part-<n>.npz       states found at that depth: fingerprints, the chosen
                                          parent's fingerprint (an initial state's is its own),
                                          the action code that reached each
    DIR/frontier/<depth>/part-<n>.npz     the states of that depth themselves: fingerprints and
                                          packed rows (or the model's encoded bytes)

An engine writes one part per shard (the local engine one, Spark one per partition); readers
put the parts of a level back together, so the partition count of the writer does not matter.
Every file is renamed into place complete, and the manifest records each part's SHA-256
(`part_digests`): a reader given them takes no part file that changed since.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np

from traces.text import quoted
from ..atomic_file import atomic_output
from ..output_kinds import CHECKPOINT_PART
from .identity import CheckpointError

PART = re.compile(r"part-[0-9]{5,}\.npz")
"""The name of a part file (other files in a level's directory, a killed writer's temporary
files among them, are not read)."""
DEPTH = re.compile(r"[0-9]{8}")
"""The name of a level's directory."""
ZIP = (b"PK\x03\x04", b"PK\x05\x06")
"""How an .npz archive (a zip file, empty or not) starts."""


class LevelStates(NamedTuple):
    """The states found at one BFS level: fingerprints, parents' fingerprints, action codes."""

    fps: np.ndarray
    parents: np.ndarray
    codes: np.ndarray


def _part(directory: Path, kind: str, depth: int, part: int) -> Path:
    return Path(directory) / kind / f"{depth:08d}" / f"part-{part:05d}.npz"


def _write(path: Path, **arrays) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(path, CHECKPOINT_PART) as out:
            np.savez(out, **arrays)
    except OSError as exc:
        raise CheckpointError(f"cannot write {_name(path)}: {exc.strerror or exc}") from None


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
    folder = Path(directory) / kind / f"{depth:08d}"
    try:
        names = os.listdir(folder)
    except OSError:  # missing, or not a directory: it holds no parts
        return []
    return sorted(folder / name for name in names if PART.fullmatch(name))


def _name(path: Path) -> str:
    """A part file as messages name it: relative to its checkpoint directory."""
    return "/".join(path.parts[-3:])


def _open(path: Path) -> BinaryIO:
    """A part file opened for reading; CheckpointError unless it is a regular file (a FIFO is
    opened without waiting for a writer, and refused)."""
    try:
        part = open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NONBLOCK))
    except OSError as exc:
        raise CheckpointError(f"cannot read {_name(path)}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(part.fileno()).st_mode):
        part.close()
        raise CheckpointError(f"{_name(path)} is not a regular file")
    return part


def _sha256(part: BinaryIO) -> str:
    return hashlib.file_digest(part, "sha256").hexdigest()


def part_digests(directory, kind: str, depth: int) -> dict[str, str]:
    """The SHA-256 of each part file of `kind` ("levels" or "frontier") at `depth`, by file name."""
    found = {}
    for path in _parts(directory, kind, depth):
        with _open(path) as part:
            found[path.name] = _sha256(part)
    return found


def _load(path: Path, kinds: dict[str, str], digest: str | None) -> dict[str, np.ndarray]:
    """The arrays of a part file, checked to have the SHA-256 `digest` (unless None) and to
    include `kinds` (name -> dtype kind), the packed rows 2-D and the others 1-D, of one length."""
    with _open(path) as part:
        if digest is not None and _sha256(part) != digest:
            raise CheckpointError(f"{_name(path)} is damaged (its SHA-256 is not the one its manifest records)")
        part.seek(0)
        if part.read(4) not in ZIP:
            raise CheckpointError(f"{_name(path)} is damaged (it is not an .npz archive)")
        part.seek(0)
        try:
            with np.load(part, allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        except Exception as exc:  # what a crafted archive makes numpy, zipfile or zlib raise has no end
            raise CheckpointError(f"{_name(path)} is damaged ({quoted(str(exc) or type(exc).__name__)})") from None
    for name, kind in kinds.items():
        array = arrays.get(name)
        if array is None or array.dtype.kind != kind or array.ndim != (2 if name == "rows" else 1):
            raise CheckpointError(f"{_name(path)} is damaged (no {name} array of the right type)")
    if len({len(arrays[name]) for name in kinds if name != "data"}) > 1:
        raise CheckpointError(f"{_name(path)} is damaged (its arrays differ in length)")
    return arrays


def _digest(recorded: dict[str, str] | None, path: Path) -> str | None:
    """The SHA-256 `recorded` for the part file `path` (None without a record); CheckpointError
    when the record does not name it."""
    if recorded is None:
        return None
    if path.name not in recorded:
        raise CheckpointError(f"{_name(path)} is not a part of its checkpoint")
    return recorded[path.name]


def read_level(directory, depth: int, parts: int, digests: dict[str, str] | None = None) -> LevelStates:
    """The states found at `depth`, from its `parts` part files (with `digests`, the SHA-256 of
    each by name, checked); CheckpointError when one is missing or damaged."""
    paths = _parts(directory, "levels", depth)
    if len(paths) != parts:
        raise CheckpointError(f"level {depth} has {len(paths)} of its {parts} part files")
    loaded = [_load(p, {"fps": "i", "parents": "i", "codes": "u"}, _digest(digests, p)) for p in paths]
    return LevelStates(*(np.concatenate([a[name] for a in loaded]).astype(kind, copy=False)
                         for name, kind in (("fps", np.int64), ("parents", np.int64), ("codes", np.uint16))))


def find_routes(directory, depth: int, fps) -> dict[int, tuple[int, int]]:
    """{fingerprint: (parent fingerprint, action code)} for those of `fps` found among the
    states journalled at `depth` in `directory` (whatever part files it holds)."""
    wanted = np.asarray(sorted(fps), np.int64)
    routes = {}
    for path in _parts(directory, "levels", depth):
        part = _load(path, {"fps": "i", "parents": "i", "codes": "u"}, None)
        hit = np.isin(part["fps"], wanted)
        routes.update(zip(part["fps"][hit].tolist(), zip(part["parents"][hit].tolist(), part["codes"][hit].tolist())))
    return routes


def read_frontier(directory, depth: int, width: int | None, digests: dict[str, str] | None = None
                  ) -> tuple[np.ndarray, np.ndarray | list[bytes]]:
    """(fingerprints, states) of the frontier saved at `depth`: packed rows of `width` columns
    for a model with a kernel, else a list of encoded states. With `digests` (the SHA-256 of
    each part file by name) the part files must be those."""
    paths = _parts(directory, "frontier", depth)
    if not paths:
        raise CheckpointError(f"the frontier of depth {depth} is missing")
    if digests is not None and len(paths) != len(digests):
        raise CheckpointError(f"the frontier of depth {depth} has {len(paths)} of its {len(digests)} part files")
    fps, states = [], []
    for path in paths:
        if width is not None:
            arrays = _load(path, {"fps": "i", "rows": "i"}, _digest(digests, path))
            if arrays["rows"].shape[1] != width:
                raise CheckpointError(f"{_name(path)} is damaged (its rows are not {width} wide)")
            states.append(arrays["rows"].astype(np.int8, copy=False))
        else:
            arrays = _load(path, {"fps": "i", "lengths": "i", "data": "u"}, _digest(digests, path))
            ends = np.cumsum(arrays["lengths"])
            if len(ends) and ends[-1] != len(arrays["data"]):
                raise CheckpointError(f"{_name(path)} is damaged (its states do not fill its data)")
            data = arrays["data"].tobytes()
            states.extend(data[end - n:end] for end, n in zip(ends.tolist(), arrays["lengths"].tolist()))
        fps.append(arrays["fps"].astype(np.int64, copy=False))
    rows = np.concatenate(states) if width is not None else states
    return np.concatenate(fps), rows


def _depths(directory: Path, kind: str) -> dict[int, Path]:
    """The levels' directories (or whatever stands under a level's name) of `kind`, by depth."""
    root = Path(directory) / kind
    try:
        names = os.listdir(root)
    except OSError:  # missing, or not a directory: it holds no levels
        return {}
    return {int(name): root / name for name in names if DEPTH.fullmatch(name)}


def _remove(path: Path) -> None:
    """Delete `path`: a directory with what it holds, or a file or link (never what a link
    points to); CheckpointError when it cannot be."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError as exc:
        raise CheckpointError(f"cannot remove {'/'.join(path.parts[-2:])}: {exc.strerror or exc}") from None


def remove_levels_after(directory, depth: int) -> None:
    """Delete the journal of levels deeper than `depth` (written after the last checkpoint)."""
    for d, path in _depths(directory, "levels").items():
        if d > depth:
            _remove(path)


def remove_frontiers_except(directory, depth: int | None) -> None:
    """Delete every saved frontier but the one at `depth` (None: all of them)."""
    for d, path in _depths(directory, "frontier").items():
        if d != depth:
            _remove(path)


def remove_frontier(directory, depth: int) -> None:
    """Delete the frontier saved at `depth`, if any (one from an attempt that did not finish)."""
    shutil.rmtree(Path(directory) / "frontier" / f"{depth:08d}", ignore_errors=True)
