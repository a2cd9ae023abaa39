"""Where numba files each compiled kernel function inside the cache directory: by the source
file's place in the repository, not by its absolute path.

numba names a cached function's folder after a digest of the absolute path of its source, so a
second clone of the same sources (CI's fresh clone, a worktree, a copy in a virtual environment)
compiled everything again, though `cache.cache_dir` already keys the directory on the sources'
contents. Here the folder is named after the path relative to the repository (or, for the
search loops `checker.kernel.instantiate` writes there, relative to the cache directory), and the
freshness stamp is a digest of the file's contents rather than its modification time, so
every copy of the same sources on a machine loads one compile.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from numba.core import caching, config

from .cache import ROOT


def _relative(py_file: str) -> Path | None:
    """`py_file` relative to the repository or to the cache directory; None outside both."""
    path = Path(py_file).resolve()
    for base in (ROOT, Path(config.CACHE_DIR).resolve()):
        if path.is_relative_to(base):
            return path.relative_to(base)
    return None


@functools.lru_cache(maxsize=None)
def _contents_digest(path: str, mtime: float, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# numba's locator for NUMBA_CACHE_DIR (named with a leading underscore before numba 0.61)
_UserDirectoryLocator = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator


class RepositoryCacheLocator(_UserDirectoryLocator):
    """numba's locator for a cache directory of the user's choosing, keyed on where the source
    sits in the repository and on what it holds (module docstring)."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        return "_".join(_relative(py_file).parent.parts) or "top"

    def get_source_stamp(self):
        stat = Path(self._py_file).stat()
        return _contents_digest(self._py_file, stat.st_mtime, stat.st_size)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not config.CACHE_DIR or _relative(py_file) is None:
            return None  # numba's own locators take it
        return super().from_function(py_func, py_file)


def install() -> None:
    """Make this locator the first numba tries for every cached function."""
    tried = caching.CacheImpl._locator_classes
    if RepositoryCacheLocator not in tried:
        tried.insert(0, RepositoryCacheLocator)
