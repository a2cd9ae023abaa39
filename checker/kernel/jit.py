"""The one decorator every kernel function uses, with numba's cache pointed at `cache.cache_dir`.

Importing this module chooses the cache directory before numba is imported (numba reads
NUMBA_CACHE_DIR once), so every kernel is compiled once per machine and per version of the
sources, whatever bounds it later runs with: bounds travel at run time in the layout tuple.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .cache import cache_dir, prune_stale

CACHE_DIR = str(cache_dir())
"""Where this process's kernels are cached."""
prune_stale(Path(CACHE_DIR))

if "numba" not in sys.modules:
    os.environ["NUMBA_CACHE_DIR"] = CACHE_DIR
else:  # numba came first: point its config at the same place
    import numba.core.config

    numba.core.config.CACHE_DIR = CACHE_DIR

from numba import njit  # noqa: E402  (the cache directory must be set first)


def kernel(function):
    """Compile `function` (nopython mode, cached on disk, GIL released)."""
    return njit(cache=True, nogil=True)(function)
