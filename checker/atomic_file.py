"""Files that are either the old version or the complete new one, never half-written.

Everything a user asked to keep (a trace, a picture, a checkpoint) is written to a temporary
file in the target's directory, flushed to disk, and renamed over the target. Only a regular
file is ever replaced: a device, FIFO, symlink or directory at the target is refused, and so is
a file the running command has read (`checker.file_roles`).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from .file_roles import refuse_to_replace


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """Yield a binary file that becomes `path` when the block ends without an error; on any
    error (Ctrl-C included) the temporary file is removed and `path` is left as it was.
    OSError when `path` exists and is not a regular file, or is a file this command read."""
    path = Path(path)
    refuse_to_replace(path)
    if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(errno.EEXIST, "it exists and is not a regular file, so it is not replaced")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write `content` (text as UTF-8) to `path` through `atomic_output`."""
    with atomic_output(path) as out:
        out.write(content.encode("utf-8") if isinstance(content, str) else content)


def _umask() -> int:
    """The process umask (mkstemp creates files 0600; a saved file should get the usual mode)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
