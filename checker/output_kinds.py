"""The one rule for every file replcheck writes, and the kinds of output it knows.

Every output is written through a temporary file renamed over it (`checker.atomic_file`; the
progress log, which runs append to, one whole line at a time). An existing file is replaced (or
appended to) only when replcheck wrote it as the same kind of output, recognised by its content,
not by its name:

- a JUnit report: XML whose root is `<testsuites name="replcheck">`;
- a coverage page, a trace page (HTML): `<meta name="generator" content="replcheck ...">`;
- a trace picture, a pair picture (SVG): the comment `<!-- replcheck ... -->` after the XML
  declaration; a trace picture as PNG: a tEXt chunk `Software` = `replcheck trace picture`;
- a trace graph: its first line, the comment `/* replcheck trace graph */` (DOT) or
  `<!-- replcheck trace graph -->` (GraphML), or the graph attribute `generator` (node-link JSON);
- a saved trace: format `replcheck-trace/1`, of the same run (the same model, variant, rules,
  bounds and property: a trace of another run is another user's result), and as replcheck wrote
  it: its content matches the SHA-256 it was sealed with (`checker.seal`), so a trace the user
  edited is kept;
- a progress log: JSON lines, each a level record;
- a checkpoint directory: new, empty, or holding only a checkpoint's files (`checkpoint.json`,
  `levels/`, `frontier/`); whose run it is, `checker.checkpoint.saver` decides.

Nothing else goes into a checkpoint directory (one holding a checkpoint's `checkpoint.json`),
at any depth: `resume` refuses one that holds anything but its checkpoint.

Anything else (a manifest, a checkpoint's file, a file of the user's, a directory) is refused
with one line naming the file and why, and so is a place where nothing can be written (a missing
or read-only directory, a full disk). Each command checks its outputs before its search starts
(`refusal`, from `checker.commands.command` for every path option, and `planned_refusal` for the
files a command will write into its trace directory); `checker.atomic_file` checks again when it
writes (`not_replaceable`), for what could not be known before.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .seal import SEAL, intact

HEAD = 64 * 1024
"""How much of an existing file is read to recognise it (a saved trace is read whole)."""

MAX_TRACE_BYTES = 64 * 2**20
"""The largest file read whole to tell whose run a saved trace is (`traces.store`'s limit)."""

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TRACE_FORMAT = "replcheck-trace/1"
RUN_FIELDS = ("model", "variant", "rules", "bounds", "invariant")
"""What makes two saved traces traces of the same run (the fields of `traces.store`'s format)."""
CHECKPOINT_ENTRIES = re.compile(r"checkpoint\.json|levels|frontier|\.checkpoint\.json\..*\.tmp")
"""What a checkpoint directory holds: its manifest, its journal and frontier, and a temporary
manifest a killed run left."""


@dataclass(frozen=True)
class Kind:
    """One kind of output: its `noun` in messages ("a JUnit report"), the pattern its first bytes
    match (`shape`), and the mark it carries within its first HEAD bytes (`mark`; None: the shape
    is the mark)."""

    noun: str
    shape: re.Pattern
    mark: bytes | None = None

    def wrote(self, head: bytes) -> bool:
        """Whether a file starting with `head` is this kind of output, written by replcheck."""
        return self.shape.match(head) is not None and (self.mark is None or self.mark in head)


def _meta(what: str) -> str:
    return f'<meta name="generator" content="replcheck {what}">'


def _comment(what: str) -> str:
    return f"<!-- replcheck {what} -->"


COVERAGE_META = _meta("coverage page")
"""The mark a coverage page carries in its head (`checker.coverage_html`)."""
TRACE_PAGE_META = _meta("trace page")
"""The mark a trace page carries in its head (`traces.html`)."""
PICTURE_MARK = "replcheck trace picture"
"""What marks a trace picture: an SVG comment, a PNG's `Software` text (`mark_picture`)."""
PAIR_COMMENT = _comment("pair picture")
"""The mark of `distinguish`'s pair picture (`traces.pair_picture`)."""
GRAPH_MARK = "replcheck trace graph"
"""What marks a trace graph (`traces.graph`): its `generator` attribute, and the comment on the
first line of its DOT and GraphML."""

_XML = re.compile(rb"<\?xml[^>]*\?>")
_HTML = re.compile(rb"<!DOCTYPE html>", re.IGNORECASE)
_JSON = re.compile(rb"\s*\{")

JUNIT = Kind("a JUnit report", re.compile(rb'<\?xml[^>]*\?>\s*<testsuites name="replcheck"[\s>]'))
COVERAGE_PAGE = Kind("a coverage page", _HTML, COVERAGE_META.encode())
TRACE_PAGE = Kind("a trace page", _HTML, TRACE_PAGE_META.encode())
SVG_PICTURE = Kind("a trace picture (svg)", _XML, _comment("trace picture").encode())
PNG_PICTURE = Kind("a trace picture (png)", re.compile(re.escape(PNG_SIGNATURE)),
                   b"tEXtSoftware\x00" + PICTURE_MARK.encode())
PAIR_PICTURE = Kind("a pair picture", _XML, PAIR_COMMENT.encode())
DOT_GRAPH = Kind("a trace graph (dot)", re.compile(re.escape(f"/* {GRAPH_MARK} */\n".encode())))
GRAPHML_GRAPH = Kind("a trace graph (graphml)", re.compile(re.escape(f"<!-- {GRAPH_MARK} -->\n".encode())))
JSON_GRAPH = Kind("a trace graph (json)", _JSON, f'"generator": "{GRAPH_MARK}"'.encode())
TRACE = Kind("a saved trace", _JSON, f'"format": "{TRACE_FORMAT}"'.encode())
PROGRESS_LOG = Kind("a progress log", _JSON)
"""Recognised line by line (`_progress_log`), not by its head's pattern alone."""
CHECKPOINT_MANIFEST = Kind("a checkpoint's manifest", _JSON, b'"format": "replcheck-checkpoint/')
CHECKPOINT_PART = Kind("a checkpoint's part file", re.compile(rb"PK\x03\x04"), b"fps.npy")
REFERENCE = Kind("the command reference", re.compile(rb"# Command reference\n"))

RENDERED = {"svg": SVG_PICTURE, "png": PNG_PICTURE, "html": TRACE_PAGE, "dot": DOT_GRAPH, "graphml": GRAPHML_GRAPH,
            "json": JSON_GRAPH}
"""The kind `trace render --format FORMAT` writes (a lanes or a graph picture alike)."""

KINDS = {"junit": JUNIT, "coverage page": COVERAGE_PAGE, "progress log": PROGRESS_LOG}
"""The kinds a path option names by a word (`checker.commands.paths.NonEmptyPath`'s `kind`)."""
TRACE_DIRECTORY, CHECKPOINT_DIRECTORY = "trace directory", "checkpoint directory"
"""The directories a path option names: where traces go, and a checkpoint directory."""

KNOWN = (TRACE, JUNIT, COVERAGE_PAGE, TRACE_PAGE, SVG_PICTURE, PNG_PICTURE, PAIR_PICTURE, DOT_GRAPH, GRAPHML_GRAPH,
         JSON_GRAPH, CHECKPOINT_MANIFEST, CHECKPOINT_PART, REFERENCE)
"""What `describe` can name a file as (a progress log is tried apart)."""


def mark_picture(data: bytes, fmt: str) -> bytes:
    """A trace picture's bytes (`fmt` svg or png, from matplotlib or Graphviz) with replcheck's
    mark: a comment after the SVG's XML declaration, or a PNG tEXt chunk after its header."""
    if fmt == "svg":
        declaration = _XML.match(data)
        at = declaration.end() if declaration else 0
        return data[:at] + b"\n" + _comment("trace picture").encode() + data[at:]
    ihdr_end = len(PNG_SIGNATURE) + 8 + 13 + 4  # length, type, 13 bytes of header, CRC
    text = b"tEXt" + b"Software\x00" + PICTURE_MARK.encode()
    chunk = struct.pack(">I", len(text) - 4) + text + struct.pack(">I", zlib.crc32(text))
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def trace_run(doc: dict) -> dict:
    """What makes a saved trace (a `replcheck-trace/1` document) a trace of its run."""
    return {key: doc.get(key) for key in RUN_FIELDS}


def model_run(model, invariant: str) -> dict:
    """The run a trace of `invariant` found on `model` belongs to (as `trace_run` reads it from
    the trace `traces.store` saves)."""
    rules = getattr(model, "rules", None)
    run = {"model": model.name, "variant": model.variant, "rules": dict(rules) if rules else None,
           "bounds": dict(model.parameters()), "invariant": invariant}
    return json.loads(json.dumps(run))


def _head(path: Path) -> bytes:
    with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NONBLOCK)) as file:
        return file.read(HEAD)


def _progress_log(head: bytes, whole: bool) -> bool:
    """Whether `head` (the whole file when `whole`) is lines of progress records."""
    lines = head.split(b"\n")
    if lines[-1] == b"" or not whole:
        lines.pop()  # the end of the last line, or a line cut by HEAD
    try:
        records = [json.loads(line) for line in lines]
    except ValueError:
        return False
    return bool(records) and all(isinstance(r, dict) and r.get("event") == "level" and "depth" in r for r in records)


def describe(head: bytes, whole: bool) -> str:
    """What a file starting with `head` is, as a message names it: one of replcheck's kinds of
    output, or "a file" of someone else's."""
    if _progress_log(head, whole):
        return PROGRESS_LOG.noun
    return next((kind.noun for kind in KNOWN if kind.wrote(head)), "a file")


def _not_ours(path: Path, run: dict) -> str | None:
    """Why the saved trace `path` is not a trace of `run` as replcheck wrote it, in words that
    follow the path (None: it is): it is another run's, or it was changed since replcheck wrote
    it (its content no longer matches its seal, `checker.seal`), or it carries no seal (saved by
    a replcheck from before seals, or edited). A trace changed in any way is the user's."""
    try:
        with open(path, "rb") as file:
            doc = json.loads(file.read(MAX_TRACE_BYTES + 1))
    except (OSError, ValueError, RecursionError):
        doc = None
    other = _other_run(doc, run)
    if other is not None:
        return f"is a saved trace of another run ({other})"
    if SEAL not in doc:
        return "is a saved trace with no SHA-256 of what replcheck wrote (an older replcheck's, or edited)"
    if not intact(doc):
        return "is a saved trace edited since replcheck wrote it (its content no longer matches its SHA-256)"
    return None


def _other_run(doc: Any, run: dict) -> str | None:
    """How the saved trace `doc` (None: unreadable) differs from a trace of `run`, in words
    (None: the same run)."""
    if doc is None:
        return "it cannot be read as a trace"
    theirs = trace_run(doc) if isinstance(doc, dict) else {}
    for key in RUN_FIELDS:
        there, here = theirs.get(key), run.get(key)
        if there != here and isinstance(there, dict) and isinstance(here, dict):  # bounds, rules: the first that differs
            name = next(k for k in sorted({*there, *here}) if there.get(k) != here.get(k))
            return f"{'--' + name.replace('_', '-') if key == 'bounds' else name} {_word(there.get(name))} there, " \
                   f"{_word(here.get(name))} here"
        if there != here:
            return f"{key} {_word(there)} there, {_word(here)} here"
    return None


def _word(value: Any) -> str:
    return {True: "on", False: "off", None: "none"}.get(value, str(value)) if isinstance(value, (bool, type(None))) \
        else str(value)


def not_replaceable(path: Path, kind: Kind, run: dict | None = None) -> str | None:
    """Why the existing file `path` may not be replaced by (or, for a progress log, appended
    to as) `kind` of output, in words that follow the path ("is a saved trace, not a JUnit
    report replcheck wrote"), or None when it may: it does not exist, or replcheck wrote it as
    `kind` (for a saved trace with `run`, a trace of that run)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return "is a directory"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file" + (" (a symbolic link)" if stat.S_ISLNK(info.st_mode) else "")
    try:
        head = _head(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror}), so it is not known to be replcheck's"
    whole = info.st_size <= HEAD
    ours = _progress_log(head, whole) if kind is PROGRESS_LOG else kind.wrote(head)
    if not ours:
        what = describe(head, whole)
        return f"is {what}, not {kind.noun} replcheck wrote" if what != "a file" else \
            f"is not {kind.noun} replcheck wrote"
    if kind is TRACE and run is not None:
        return _not_ours(path, run)
    return None


def _why_not(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _nearest(path: Path) -> Path:
    """`path` or the nearest of its parents that exists."""
    path = Path(os.path.abspath(path))
    return next((p for p in (path, *path.parents) if os.path.lexists(p)), Path("/"))


def unwritable(directory: Path, make: Callable[[str], str]) -> str | None:
    """Why nothing can be written in `directory` (which exists), or None: a temporary file or
    directory is made there (`make`, tempfile.mkstemp-like, returns its name) and removed, and its
    disk must have room left."""
    try:
        made = make(str(directory))
    except OSError as exc:
        return _why_not(exc)
    (os.rmdir if os.path.isdir(made) else os.unlink)(made)
    try:
        space = os.statvfs(directory)
    except OSError:
        return None
    return "the disk is full" if space.f_bavail == 0 and space.f_blocks > 0 else None


def _make_file(directory: str) -> str:
    fd, name = tempfile.mkstemp(dir=directory, prefix=".replcheck-probe-")
    os.close(fd)
    return name


def _make_dir(directory: str) -> str:
    return tempfile.mkdtemp(dir=directory, prefix=".replcheck-probe-")


def checkpoint_around(path: Path) -> Path | None:
    """The checkpoint directory that `path` is or lies in, or None: the nearest of `path` and its
    parents (symlinks resolved) that holds a checkpoint's manifest (`checkpoint.json`, by its
    content), whether or not the path exists yet."""
    place = Path(os.path.realpath(path))
    for directory in (place, *place.parents):
        try:
            if CHECKPOINT_MANIFEST.wrote(_head(directory / "checkpoint.json")):
                return directory
        except OSError:
            continue
    return None


def _in_checkpoint(option: str, path: Path, around: Path) -> str | None:
    """Why `path`, given as `option`, may not be written because it is or lies in a checkpoint
    directory, looked for from `around` (`checkpoint_around`), as one line, or None: `resume`
    takes a checkpoint directory only while it holds nothing but its checkpoint."""
    home = checkpoint_around(around)
    if home is None:
        return None
    where = "is a checkpoint directory" if os.path.realpath(path) == str(home) else \
        f"lies in {home}, a checkpoint directory"
    return f"{option} {path} {where}, which resume takes only with nothing else in it: give {option} a place outside it"


def file_refusal(option: str, path: Path, kind: Kind, run: dict | None = None) -> str | None:
    """Why `path`, given as `option`, cannot take `kind` of output, as one line, or None when it
    can: it is a directory or another non-file, an existing file replcheck did not write as
    `kind` (for a trace with `run`, a trace of another run or one edited since), a place in a
    checkpoint directory, or a place where no file can be made (a missing directory, a
    read-only disk, a full one)."""
    reason = not_replaceable(path, kind, run)
    if reason is not None and reason.startswith(("is a directory", "is not a regular", "cannot be looked")):
        return f"{option} {path}: cannot write {kind.noun} there (it {reason})"
    if reason is not None:
        return f"{option} {path} {reason}: it is left as it is (give {option} another place)"
    inside = _in_checkpoint(option, path, path)
    if inside is not None:
        return inside
    parent = Path(path).parent
    if not os.path.isdir(parent):
        return f"{option} {path}: cannot write {kind.noun} there (No such file or directory)"
    problem = unwritable(parent, _make_file)
    return f"{option} {path}: cannot write {kind.noun} there ({problem})" if problem else None


def directory_refusal(option: str, path: Path, kind: str) -> str | None:
    """Why `path`, given as `option`, cannot serve as a `kind` directory (TRACE_DIRECTORY or
    CHECKPOINT_DIRECTORY), as one line, or None when it can: it exists and is not a directory,
    it is a checkpoint directory holding files that are not a checkpoint's, it lies in another
    checkpoint directory (or, a trace directory, is one), or neither it nor the parent it would
    be made in takes a new file (read-only, full, or no such place)."""
    if os.path.lexists(path) and not os.path.isdir(path):
        return f"{option} {path} is not a directory: it is left as it is (give {option} a directory)"
    inside = _in_checkpoint(option, path, Path(path).parent if kind == CHECKPOINT_DIRECTORY else path)
    if inside is not None:
        return inside
    if kind == CHECKPOINT_DIRECTORY and os.path.isdir(path):
        foreign = sorted(name for name in os.listdir(path) if not CHECKPOINT_ENTRIES.fullmatch(name))
        if foreign:
            return (f"{option} {path} holds files that are not a checkpoint's ({foreign[0]}"
                    f"{f' and {len(foreign) - 1:,} more' if len(foreign) > 1 else ''}): they are left as they are "
                    f"(give {option} a new or empty directory)")
    problem = unwritable(_nearest(path), _make_dir)
    return f"{option} {path}: cannot write there ({problem})" if problem else None


def refusal(option: str, path: Path, kind: str) -> str | None:
    """Why the path option `option` (naming `path`, its output `kind`: a word of KINDS,
    TRACE_DIRECTORY or CHECKPOINT_DIRECTORY) cannot be written, as one line, or None."""
    if kind in (TRACE_DIRECTORY, CHECKPOINT_DIRECTORY):
        return directory_refusal(option, path, kind)
    return file_refusal(option, path, KINDS[kind])


def planned_refusal(option: str, planned: dict[Path, tuple[Kind, dict | None]], others: dict[str, Path | None]
                    ) -> str | None:
    """Why a command cannot write the files it will write inside the directory `option` names
    (`planned`: path -> (kind, the run of a trace, else None)), as one line, or None: one of them
    is an existing file it may not replace (`not_replaceable`), or is a file another output
    option (`others`: option -> path) names."""
    from .file_roles import same_place

    for path, (kind, run) in planned.items():
        for other, where in others.items():
            if where is not None and same_place(Path(where), path):
                return f"{other} {where} is a file this run writes into {option} ({kind.noun}): give {other} another place"
        reason = not_replaceable(path, kind, run)
        if reason is not None:
            return f"{option} would write {path}, which {reason}: it is left as it is (give {option} another place)"
    return None


def replace_error(path: Path, kind: Kind, run: dict | None = None) -> OSError | None:
    """The OSError (one line, fit for "cannot write PATH: ...") that writing `kind` over `path`
    meets, or None when it may (`not_replaceable`)."""
    reason = not_replaceable(path, kind, run)
    if reason is None:
        return None
    return OSError(errno.EEXIST, f"it {reason}", str(path))
