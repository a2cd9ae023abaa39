"""Where compiled kernels are kept: one on-disk cache per version of the kernel sources.

numba's own cache checks only the file that defines a function, so a changed helper in another
module would silently serve stale machine code. Here the cache directory is named after a
digest of every source file a kernel may compile from (the `model`, `invariants` and
`checker/kernel` packages), so any change to any of them selects a fresh, empty directory. A
module of those packages that no kernel compiles from, and whose values no kernel reads (the
rule table and the trace audit, say), says so with the line `KERNEL_SOURCE = False` and is left
out of the digest, so that editing it costs no recompilation (a test checks that such a module
defines no kernel and that no kernel source imports it).
The directory must be chosen before numba is imported; `checker.kernel.jit` does so.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: the packages below are found relative to it."""

SOURCE_PACKAGES = ("model", "invariants", "checker/kernel")
"""Every package a kernel may compile code from."""


NOT_KERNEL_SOURCE = "\nKERNEL_SOURCE = False\n"
"""The line by which a module says no kernel compiles from it."""


def write_cache_file(path: Path, content: str | bytes) -> None:
    """Write `content` (text as UTF-8) to the cache file `path`, making its directory: through a
    temporary file of this process renamed over it, so that another process reading the cache
    never sees half a file (and none is left behind where the write fails: a full disk)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise


_said: set[str] = set()
"""What this process has said about its kernel cache (`damaged`, `not_kept`): each once."""


def _say_once(kind: str, line: str) -> None:
    if kind not in _said:
        _said.add(kind)
        print(line, file=sys.stderr, flush=True)


def damaged(path: Path | str) -> None:
    """Say, once a process, that the kernel cache held a file that could not be read back (cut
    short, overwritten), which the caller then treats as absent: it is made again (compiled, or
    written) and replaced, so a cache is never broken for good."""
    _say_once("damaged", f"the kernel cache held a damaged file ({path}): it is made again")


def not_kept(error: OSError, path: Path | str) -> None:
    """Say, once a process, that writing `path` in the kernel cache failed (`error`: a full disk,
    say), which the caller then goes on without: compiled code is used but not kept."""
    _say_once("not kept", f"cannot write to the kernel cache ({path}: {error.strerror or error}): compiled "
                          "code is used but not kept, so later runs compile it again")


def kept_all() -> bool:
    """Whether every write to the kernel cache this process tried went through (`not_kept`)."""
    return "not kept" not in _said


def said_damaged() -> bool:
    """Whether this process has said that it makes a damaged cache file again (`damaged`): the
    compile that follows needs no notice of its own (`checker.compile_notice`), whose "once per
    machine" would not be true of it."""
    return "damaged" in _said


def source_files() -> list[Path]:
    """Every Python source a kernel may be compiled from, in a fixed order."""
    return sorted(p for package in SOURCE_PACKAGES for p in (ROOT / package).rglob("*.py")
                  if NOT_KERNEL_SOURCE not in p.read_text())


def source_digest() -> str:
    """A digest of the kernel sources (paths and contents): it changes whenever any of them does."""
    digest = hashlib.sha256()
    for path in source_files():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """Where every replcheck kernel cache lives: $REPLCHECK_CACHE_DIR, else the user's cache
    directory (~/.cache/replcheck)."""
    given = os.environ.get("REPLCHECK_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "replcheck"


OWNED = ".replcheck-kernel-cache"
"""The file by which replcheck marks a cache directory as its own (written when it first uses the
directory): only a directory holding it is ever pruned."""


def cache_dir() -> Path:
    """The cache directory for the current sources (created on demand, and marked as replcheck's
    own: `OWNED`, whose writing also finds a disk with no room left). When the user's cache
    directory cannot be written (a read-only home, a full disk), a directory under the system's
    temporary directory serves instead."""
    name, failed = f"kernels-{source_digest()}", OSError(errno.EACCES, "not writable")
    for root in (cache_root(), Path(tempfile.gettempdir()) / f"replcheck-{os.getuid()}"):
        path = root / name
        try:
            path.mkdir(parents=True, exist_ok=True)
            if not (path / OWNED).is_file():  # new here, or made by an older replcheck
                write_cache_file(path / OWNED, "replcheck's compiled kernels: removed when unused for "
                                 f"{STALE_DAYS} days\n")
            os.utime(path)  # in use: not stale
        except OSError as error:
            failed = error
            with contextlib.suppress(OSError):
                path.rmdir()  # made here and left empty (a full disk): gone again
            continue
        if os.access(path, os.W_OK):
            return path
    raise OSError(failed.errno, f"{failed.strerror} (and the temporary directory, tried next for compiled "
                                "kernels, too)", str(cache_root() / name))


STALE_DAYS = 7
"""A cache of other sources unused for this long is removed (it belongs to an older version)."""


def prune_stale(current: Path) -> None:
    """Remove the caches of other source versions that no process has used for `STALE_DAYS`:
    only directories replcheck marked as its own (`OWNED`), never another `kernels-*` beside them."""
    cutoff = time.time() - STALE_DAYS * 86400
    for other in current.parent.glob("kernels-*"):
        try:
            if other != current and (other / OWNED).is_file() and other.stat().st_mtime < cutoff:
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            pass
