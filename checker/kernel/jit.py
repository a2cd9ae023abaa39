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
from contextlib import contextmanager
from pathlib import Path

from .cache import cache_dir, prune_stale


@contextmanager
def _hidden(*modules: str):
    """Within this block, an import of any of `modules` (or below one) fails at once, as on a
    machine without it; a module imported already is not hidden. Numba probes for optional
    packages that no kernel uses and that take tens of milliseconds to import each."""
    hide = [name for name in modules if name not in sys.modules]
    for name in hide:
        sys.modules[name] = None
    try:
        yield
    finally:
        for name in hide:
            del sys.modules[name]


_NOT_USED = ("cffi",) + (() if Path(".numba_config.yaml").exists() else ("yaml",))
"""What numba imports and replcheck's kernels never use: cffi (for calling C functions from
cffi in compiled code) and PyYAML, which numba's configuration uses only to read a
`.numba_config.yaml` in the working directory (so it is hidden only where there is none)."""

CACHE_DIR = str(cache_dir())
"""Where this process's kernels are cached."""
prune_stale(Path(CACHE_DIR))

if "numba" not in sys.modules:
    os.environ["NUMBA_CACHE_DIR"] = CACHE_DIR
else:  # numba came first: point its config at the same place
    import numba.core.config

    numba.core.config.CACHE_DIR = CACHE_DIR

with _hidden(*_NOT_USED):
    from numba import njit  # noqa: E402  (the cache directory must be set first)
    from numba.core import errors, types  # noqa: E402
    from numba.core.registry import CPUDispatcher, cpu_target  # noqa: E402

from .cache_locator import install as install_cache_locator  # noqa: E402

install_cache_locator()


def _prepare_target() -> None:
    """Set up numba's CPU target (its tables of compiled implementations), as numba does before
    it first compiles or loads a function, with scipy.linalg hidden: where SciPy is installed,
    numba imports scipy.linalg there (about 0.15 s on a 2-core machine) only to offer np.dot and
    np.linalg in compiled code, which no kernel calls. Numba then runs as on a machine without
    SciPy, which it supports; scipy.linalg itself stays importable. Nothing is hidden when
    scipy.linalg was imported already. Likewise cffi and PyYAML (`_NOT_USED`)."""
    with _hidden("scipy.linalg", *_NOT_USED):
        cpu_target.target_context.refresh()


_prepare_target()


def _loose(argument_type):
    """The type a kernel is compiled for when another passes it an argument of `argument_type`:
    a constant's type rather than its value, and a 64-bit integer for any narrower one (a byte
    read off a packed row, a 32-bit count), which arithmetic widens to 64 bits anyway."""
    loose = types.unliteral(argument_type)
    if isinstance(loose, types.Integer) and loose.bitwidth < 64:
        return types.int64
    return loose


class _Dispatcher(CPUDispatcher):
    """numba's dispatcher, but a kernel called from another is compiled once per `_loose` type
    of its arguments: numba would otherwise compile a copy per constant value and per integer
    width passed, with every function below it (the fetch model's `holds` alone had 166
    copies). Where the loose types cannot be typed (an index into a tuple of mixed types needs
    its value), the kernel is compiled for the types as given. The optimiser still sees a
    constant wherever it inlines the call."""

    def get_call_template(self, args, kws):
        loose_args = tuple(_loose(a) for a in args)
        loose_kws = {k: _loose(v) for k, v in kws.items()}
        if loose_args != tuple(args) or loose_kws != kws:
            try:
                return super().get_call_template(loose_args, loose_kws)
            except errors.TypingError:
                pass
        return super().get_call_template(args, kws)


def kernel(function):
    """Compile `function` (nopython mode, cached on disk, GIL released), once per type of its
    arguments (`_Dispatcher`)."""
    dispatcher = njit(cache=True, nogil=True)(function)
    dispatcher.__class__ = _Dispatcher
    return dispatcher


def python_of(function):
    """The plain Python code of kernel `function` (itself where the kernels run as Python,
    `checker.interpreted`): for the few places that ask a rule's configuration outside a search."""
    return getattr(function, "py_func", function)
