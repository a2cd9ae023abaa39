"""The one decorator every kernel function uses, with numba's cache pointed at `cache.cache_dir`.

Importing this module chooses the cache directory before numba is imported (numba reads
NUMBA_CACHE_DIR once) and files each function in it by its place in the repository
(`cache_locator`), so every kernel is compiled once per machine and per version of the sources,
whichever copy of them runs and whatever bounds it later runs with: bounds travel at run time in
the layout tuple.
It also sets up numba's CPU target as on a machine without SciPy (`_prepare_target`).
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
from numba.core.registry import cpu_target  # noqa: E402

from .cache_locator import install as install_cache_locator  # noqa: E402

install_cache_locator()


def _prepare_target() -> None:
    """Set up numba's CPU target (its tables of compiled implementations), as numba does before
    it first compiles or loads a function, with scipy.linalg hidden: where SciPy is installed,
    numba imports scipy.linalg there (about 0.15 s on a 2-core machine) only to offer np.dot and
    np.linalg in compiled code, which no kernel calls. Numba then runs as on a machine without
    SciPy, which it supports; scipy.linalg itself stays importable. Nothing is hidden when
    scipy.linalg was imported already."""
    hide = "scipy.linalg" not in sys.modules
    if hide:
        sys.modules["scipy.linalg"] = None  # an import of it (or below it) fails at once
    try:
        cpu_target.target_context.refresh()
    finally:
        if hide:
            del sys.modules["scipy.linalg"]


_prepare_target()


def kernel(function):
    """Compile `function` (nopython mode, cached on disk, GIL released)."""
    return njit(cache=True, nogil=True)(function)
