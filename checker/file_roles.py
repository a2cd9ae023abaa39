"""Which files a command reads and which it writes, so that no output replaces an input.

A command's path options each play one role: an *input* it reads (a manifest, a trace, a
scenario), an *output* it writes (a JUnit report, a progress log, a trace directory, a
picture), or a directory it *owns* (a checkpoint directory, read and written as a whole).
`clash` is checked before a command runs: an output may not name an input (compared by the file
itself where both exist, so a symlink, a hard link or a `./` spelling is caught), two outputs may
not name one file, and nothing else may be written inside an owned directory.

`remember_read` and `refuse_to_replace` are the net behind it, for files found while the command
runs: every file read through `traces.store.read_text_file` is remembered, and no file this
command has read is replaced by anything it writes (`checker.atomic_file`, the progress log).
"""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

INPUT, OUTPUT, OWNED = "input", "output", "owned"
"""The roles a path option plays."""


@dataclass(frozen=True)
class Role:
    """One path the command line names: how the user named it (`--junit`, `MANIFEST`), the path
    as given, its role, and for an output what kind of output it is (`checker.output_kinds`)."""

    option: str
    path: Path
    role: str
    kind: str | None = None

    def __str__(self) -> str:
        """The option and its path, as an error line names them."""
        return f"{self.option} {self.path}"


def same_place(a: Path, b: Path) -> bool:
    """Whether `a` and `b` name one file or directory: the same inode where both exist, else the
    same absolute path once symlinks, `.` and `..` are resolved."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def within(a: Path, directory: Path) -> bool:
    """Whether `a` is `directory` or lies inside it (symlinks resolved)."""
    return same_place(a, directory) or Path(os.path.realpath(a)).is_relative_to(os.path.realpath(directory))


def clash(roles: Iterable[Role]) -> str | None:
    """Why these paths cannot serve one command, in one line, or None when they can: an output
    naming an input, two outputs naming one place, or an output inside an owned directory."""
    roles = list(roles)
    for i, out in enumerate(roles):
        if out.role != OUTPUT:
            continue
        for j, other in enumerate(roles):
            if j == i:
                continue
            if other.role == OWNED and within(out.path, other.path):
                return (f"{out} lies in {other}, the checkpoint directory this command keeps: "
                        f"give {out.option} a place outside it")
            if other.role == INPUT and same_place(out.path, other.path):
                return f"{out} is {other}, which this command reads: give {out.option} another place"
            if other.role == OUTPUT and j > i and same_place(out.path, other.path):
                return f"{out} and {other} name the same place: give each output its own"
    return None


_read: dict[str, tuple[int, int]] | None = None
"""The files the running command has read: real path -> (device, inode), or None outside a
command (a library caller, a test calling functions directly), where nothing is remembered."""


@contextmanager
def command_files() -> Iterator[None]:
    """Remember, while the block (one command) runs, the files it reads, so that none is replaced
    by what it writes."""
    global _read
    previous, _read = _read, {}
    try:
        yield
    finally:
        _read = previous


def remember_read(path: Path) -> None:
    """Note that the running command read the file `path`."""
    if _read is not None:
        info = os.stat(path)
        _read[os.path.realpath(path)] = (info.st_dev, info.st_ino)


def refuse_to_replace(path: Path) -> None:
    """OSError (one line, fit for "cannot write PATH: ...") when `path` is a file the running
    command has read: by its real path, or by its inode where it exists (a hard link)."""
    if not _read:
        return
    try:
        info = os.stat(path)
        inode = (info.st_dev, info.st_ino)
    except OSError:
        inode = None
    if os.path.realpath(path) in _read or (inode is not None and inode in _read.values()):
        raise OSError(errno.EEXIST, "it is a file this command reads, so it is not replaced", str(path))
