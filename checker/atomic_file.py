"""Files that are either the old version or the complete new one, never half-written.

Everything a user asked to keep (a trace, a picture, a checkpoint) is written to a temporary
file in the target's directory, flushed to disk, and renamed over the target. Only a regular
file is ever replaced: a device, FIFO, symlink or directory at the target is refused, and so is
a file the running command has read (`checker.file_roles`) and a file that is not the same kind
of output, written by replcheck (`checker.output_kinds`: the rule every output follows).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO, Iterator

from .file_roles import refuse_to_replace
from .output_kinds import Kind, replace_error


@contextmanager
def atomic_output(path: Path, kind: Kind, run: dict | None = None) -> Iterator[BinaryIO]:
    """Yield a binary file that becomes `path`, an output of `kind` (for a saved trace, of the
    `run`: `checker.output_kinds.trace_run`), when the block ends without an error; on any
    error (Ctrl-C and a full disk included) the temporary file is removed and `path` is left
    as it was. OSError when `path` is a file this command read, or exists and is not `kind` of
    output replcheck wrote (a directory, a device, a user's file: `output_kinds.not_replaceable`)."""
    path = Path(path)
    refuse_to_replace(path)
    refused = replace_error(path, kind, run)
    if refused is not None:
        raise refused
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:  # a Ctrl-C just after the rename leaves no temporary file to remove
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_atomically(path: Path, content: str | bytes, kind: Kind, run: dict | None = None) -> None:
    """Write `content` (text as UTF-8), an output of `kind`, to `path` through `atomic_output`."""
    with atomic_output(path, kind, run) as out:
        out.write(content.encode("utf-8") if isinstance(content, str) else content)


def _umask() -> int:
    """The process umask (mkstemp creates files 0600; a saved file should get the usual mode)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
