"""Running the compiled kernels as plain Python, while the real compile happens elsewhere.

Every kernel function is an ordinary Python function under numba's decorator (`py_func`), and
the model code calls its helpers by their global names. Inside `interpreted()` each module's
global that names a kernel function names a plain-Python stand-in instead, so a search that
calls `expand` runs the same rules, written once, in the interpreter: nothing is compiled in
this process, and the states, fingerprints and verdicts are those the compiled code gives (the
test suite checks that on every model). It is about a hundred times slower than compiled code:
a way to answer at once on a machine whose kernel cache is still empty
(`checker.background_compile`), not a way to search.

Two things differ between Python and numba's compiled code, and the stand-ins bridge them:
numba widens every integer read off an array to 64 bits before arithmetic, where NumPy keeps a
byte a byte (and `kind << 12` on one overflows), so small-integer arrays reach the plain
functions as int64 copies (`_stand_in`; the engines hand their large buffers over as int64
already, `wide`); and the two intrinsics that only compiled code can run (a table seen through
its address, a prefetch hint) get Python equivalents.
"""

from __future__ import annotations

import ctypes
import sys
from contextlib import contextmanager

import numpy as np

from .kernel.jit import Kernel


_depth = [0]
"""How many stand-ins are running: only the outermost (a call from the engines' Python) widens."""


def _small(argument) -> bool:
    return isinstance(argument, np.ndarray) and argument.dtype.kind in "iu" and argument.dtype.itemsize < 8


def _stand_in(function):
    """`function` (a kernel's Python code), called as compiled code would be: a call from outside
    the kernels gets every small-integer array (a packed row is int8) as an int64 copy, which
    is written back after the call, so that arithmetic on what it reads is 64-bit as in
    compiled code; calls between kernels pass their arrays on as they are."""
    def run(*args):
        if _depth[0]:
            return function(*args)
        wide = [np.array(a, np.int64) if _small(a) else a for a in args]
        _depth[0] += 1
        try:
            result = function(*wide)
        finally:
            _depth[0] -= 1
        for given, used in zip(args, wide):
            if used is not given and given.flags.writeable:
                np.copyto(given, used, casting="unsafe")
        return _given_back(result, args, wide)
    run.__name__ = getattr(function, "__name__", "kernel")
    return run


def _given_back(result, args, wide):
    """The result as compiled code returns it to Python: a NumPy scalar as a Python number, and
    any widened copy of an argument replaced by the argument itself."""
    if type(result) is tuple:
        return tuple(_given_back(r, args, wide) for r in result)
    if isinstance(result, np.generic):
        return result.item()
    for given, used in zip(args, wide):
        if result is used and used is not given:
            return given
    return result


def _table_at(address, size):
    """`checker.kernel.address.table_at` in Python: the int64 array at a memory address."""
    return np.ctypeslib.as_array((ctypes.c_int64 * int(size)).from_address(int(address)))


def _no_prefetch(array, index):
    """`checker.kernel.prefetch.prefetch` in Python: a hint with nothing to hint to."""


def _intrinsic_stand_ins() -> dict:
    from .kernel.address import table_at
    from .kernel.prefetch import prefetch

    return {id(table_at): _stand_in(_table_at), id(prefetch): _no_prefetch}


class _Swap:
    """The kernel functions stood in for so far, to be put back."""

    def __init__(self):
        self.stand_ins: dict[int, object] = _intrinsic_stand_ins()
        self.originals: dict[int, object] = {}
        self.modules_seen = 0

    def _namespaces(self):
        for module in list(sys.modules.values()):
            namespace = getattr(module, "__dict__", None)
            if isinstance(namespace, dict) and namespace is not globals():  # this module keeps its own names
                yield namespace

    def cover_new_modules(self) -> None:
        """Stand in for the kernel functions of every module imported since the last call."""
        if len(sys.modules) == self.modules_seen:
            return
        self.modules_seen = len(sys.modules)
        for namespace in self._namespaces():
            for name, value in list(namespace.items()):
                stand_in = self.stand_ins.get(id(value))
                if stand_in is None and isinstance(value, Kernel):
                    stand_in = self.stand_ins[id(value)] = _stand_in(value.py_func)
                if stand_in is not None and stand_in is not value:
                    self.originals[id(stand_in)] = value
                    namespace[name] = stand_in

    def undo(self) -> None:
        """Put the kernel functions back wherever a stand-in is, in the modules covered and in
        any imported meanwhile (which took a stand-in by name)."""
        for namespace in self._namespaces():
            for name, value in list(namespace.items()):
                original = self.originals.get(id(value))
                if original is not None:
                    namespace[name] = original


_active: list[_Swap] = []


@contextmanager
def interpreted():
    """Within the block every kernel function runs as plain Python (module docstring); the
    compiled functions are back when it ends. Not reentrant and not thread-safe: one search at
    a time, in the thread that entered it."""
    swap = _Swap()
    _active.append(swap)
    try:
        with np.errstate(over="ignore"):  # fingerprints multiply modulo 2**64, as compiled code does
            swap.cover_new_modules()
            yield
    finally:
        swap.undo()
        _active.remove(swap)


def is_interpreted() -> bool:
    """Whether kernels run as plain Python here now."""
    return bool(_active)


INTERPRETED_CHUNK = 64
"""Frontier states per call into a kernel running as plain Python (a few hundredths of a second's
work), so that a search looks for the end of the compile (`safe_point`) that often."""

_safe_point_hooks: list = []


def wide(dtype):
    """The dtype for an engine's buffer that kernels read and write: `dtype` when they run
    compiled, int64 while they run as plain Python (module docstring)."""
    return np.int64 if _active and np.dtype(dtype).itemsize < 8 else dtype


def chunk(compiled: int) -> int:
    """How many units of work (frontier states, walks) to hand a kernel per call: `compiled` when
    it runs compiled, `INTERPRETED_CHUNK` while it runs as plain Python."""
    return INTERPRETED_CHUNK if _active else compiled


def safe_point() -> None:
    """Called by the engines between calls into the kernels, where nothing compiled is on the
    stack: the place to switch from plain Python to compiled code (`checker.background_compile`),
    and to run as plain Python the kernels of modules imported meanwhile (a model's modules
    loaded late)."""
    for swap in _active:
        swap.cover_new_modules()
    for hook in _safe_point_hooks:
        hook()


def on_safe_point(hook) -> None:
    """Call `hook` at every `safe_point` from now on."""
    if hook not in _safe_point_hooks:
        _safe_point_hooks.append(hook)
