"""The decorators kernel code is written with, and the kernel cache's directory.

Every kernel function is declared with `kernel`, and the few things only compiled code uses
(an LLVM intrinsic, numba's `carray`, a typing rule) with `numba_value` and
`overload_when_compiled`. None of them imports numba: numba is imported, and set up for
replcheck (`numba_target`), the first time a kernel is called from Python or typed inside
another kernel being compiled. A process that never runs a kernel, or runs only calls an
earlier run exported the machine code of (`checker.kernel.native`), never imports it.

Importing this module chooses numba's cache directory (numba reads NUMBA_CACHE_DIR once, when
it is imported): `cache.cache_dir`, one per version of the sources.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from .cache import cache_dir, prune_stale
from .layout_record import as_record, is_layout

CACHE_DIR = str(cache_dir())
"""Where this process's kernels are cached."""
prune_stale(Path(CACHE_DIR))

if "numba" not in sys.modules:
    os.environ["NUMBA_CACHE_DIR"] = CACHE_DIR
else:  # numba came first: point its config at the same place
    import numba.core.config

    numba.core.config.CACHE_DIR = CACHE_DIR

_making = threading.RLock()
"""Held while numba is set up or a dispatcher made: by one thread at a time."""


class Kernel:
    """A kernel function: its plain Python (`py_func`, what the interpreted search runs), and
    numba's compiled version of it (`dispatcher`), made on first use. Called from Python, it
    runs the machine code an earlier run exported for arguments like these, without numba
    (`checker.kernel.native`), else numba's compiled code. Inside another kernel being compiled,
    numba types it as its dispatcher (`_numba_type_`). Attributes it lacks are the dispatcher's
    (`overloads`, `signatures`)."""

    def __init__(self, function, inline: bool = False):
        functools.update_wrapper(self, function)
        self.py_func = function
        self.inline = inline
        self._dispatcher = None

    @property
    def dispatcher(self):
        """numba's dispatcher for this kernel (imports and sets up numba the first time)."""
        if self._dispatcher is None:
            with _making:
                if self._dispatcher is None:
                    self._dispatcher = _numba().compiled(self.py_func, self.inline)
        return self._dispatcher

    @property
    def _numba_type_(self):
        return self.dispatcher._numba_type_

    def __call__(self, *args, **kwargs):
        args = tuple(as_record(arg) if is_layout(arg) else arg for arg in args)
        natives = _natives[0] if _natives else _open_natives()
        if natives is not None and not kwargs:
            function = natives.function(self, args)
            if function is not None:
                return function(*args)
        return (self._dispatcher or self.dispatcher)(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_dispatcher", "py_func"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __reduce__(self):
        return _kernel_named, (self.__module__, self.__qualname__)

    def __repr__(self) -> str:
        return f"<kernel {self.__module__}.{self.__qualname__}>"


_natives: list = []


def _open_natives():
    """This process's store of kernels' machine code exported by earlier runs (`native`)."""
    with _making:
        if not _natives:
            from .native import store

            _natives.append(store(CACHE_DIR))
    return _natives[0]


def _export_natives() -> None:
    """At exit, where numba ran kernels' calls that no exported entry covered: export them."""
    natives = _natives[0] if _natives else None
    if natives is not None and natives.missing:
        try:
            from .native_export import export

            export(natives, CACHE_DIR)
        except BaseException:  # the run is over; a next run exports what this one could not
            pass


def _kernel_named(module: str, qualname: str) -> Kernel:
    """The kernel `qualname` of `module` (how a pickled kernel is found again)."""
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def kernel(function=None, *, inline: bool = False):
    """Declare `function` a kernel: compiled by numba in nopython mode, cached on disk, with the
    GIL released, once per loose type of its arguments (`numba_target`); see `Kernel`. With
    `inline` (`@kernel(inline=True)`), every kernel that calls it gets its code in place of the
    call (numba's inlining, before LLVM's own): for a function called in a hot loop whose body
    costs less than a call (its arrays passed with their shapes and reference counts), which
    LLVM would not inline for its size."""
    if function is None:
        return lambda function: Kernel(function, inline)
    return Kernel(function, inline)


class NumbaValue:
    """Something only compiled kernels refer to (an LLVM intrinsic, numba's `carray`): made by
    `make` (which may import numba) the first time numba types a kernel that names it."""

    def __init__(self, make):
        self._make = make
        self._value = None
        self._type = None

    @property
    def value(self):
        """What `make` made."""
        if self._value is None:
            self._value = self._make()
        return self._value

    @property
    def _numba_type_(self):
        if self._type is None:  # once: typing it refreshes numba's tables
            self._type = _numba().type_of_global(self.value)
        return self._type


def numba_value(make) -> NumbaValue:
    """Declare a module global that only compiled code uses, made by `make` when numba needs it."""
    return NumbaValue(make)


_overloads: list[tuple] = []
"""(Python function, its compiled implementation) pairs for numba, registered when it is set up."""


def overload_when_compiled(function):
    """Give compiled code its own implementation of the plain function `function` (numba's
    `overload`), registered with numba when numba is set up: for a rule that plain Python and
    compiled code compute differently (as constants, say)."""
    def register(implementation):
        _overloads.append((function, implementation))
        if _numba_set_up():
            _numba_set_up().register_overload(function, implementation)
        return implementation
    return register


_listeners: list[tuple[str, object]] = []
"""(numba event kind, listener) pairs for `numba_events` blocks now open."""


def _numba_set_up():
    """`numba_target` where numba is set up in this process, else None."""
    return _set_up[0] if _set_up else None


_set_up: list = []


def _numba():
    """`numba_target`, imported and set up (the typing rules and listeners declared so far
    handed to it) the first time it is needed."""
    with _making:
        if not _set_up:
            from . import numba_target

            numba_target.set_up(_overloads, _listeners)
            _set_up.append(numba_target)
            atexit.register(_export_natives)
    return _set_up[0]


@contextmanager
def numba_events(kind: str, listener):
    """Within the block, hand numba's events of `kind` ("numba:compile") to `listener` (its
    `on_start` and `on_end`), from the moment numba is set up, if it is."""
    if _numba_set_up() or "numba.core.event" in sys.modules:  # numba is here: listen now
        _numba().listen(kind, listener)
    _listeners.append((kind, listener))
    try:
        yield
    finally:
        _listeners.remove((kind, listener))
        if _numba_set_up():
            _numba_set_up().stop_listening(listener)


def python_of(function):
    """The plain Python code of kernel `function` (itself where the kernels run as Python,
    `checker.interpreted`): for the few places that ask a rule's configuration outside a search."""
    return getattr(function, "py_func", function)
