"""numba, set up for replcheck's kernels: imported by `jit` (which has chosen numba's cache
directory by then) the first time a kernel is compiled or loaded from the cache, never before.

Setting up files each cached function by its place in the repository (`cache_locator`), reads
and writes numba's cache files with damage and a full disk in mind (`cache_files`), makes
numba's CPU target as on a machine without SciPy (`_prepare_target`), registers the typing rules
declared with `jit.overload_when_compiled`, and starts the compile notices' listeners
(`listen`). Kernels are compiled once per loose type of their arguments (`_Dispatcher`).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path


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

with _hidden(*_NOT_USED):
    from numba import njit  # noqa: E402
    from numba.core import errors, event, types  # noqa: E402
    from numba.core.extending import overload  # noqa: E402
    from numba.core.codegen import CPUCodeLibrary  # noqa: E402
    from numba.core.registry import CPUDispatcher, cpu_target  # noqa: E402

from .cache_files import CheckedCache  # noqa: E402
from .cache_locator import install as install_cache_locator  # noqa: E402

install_cache_locator()

_hand_over = CPUCodeLibrary._object_getbuffer_hook.__func__


def _hand_over_and_keep(cls, ll_module):
    """numba's hook that hands a library's cached object code to LLVM's JIT, which then forgets
    it; here the library keeps it too (`object_code`), for `native_export`."""
    buffer = _hand_over(cls, ll_module)
    library = getattr(ll_module, "_CPUCodeLibrary__library", None)
    if buffer and library is not None:
        library.replcheck_object_code = buffer
    return buffer


CPUCodeLibrary._object_getbuffer_hook = classmethod(_hand_over_and_keep)  # before the JIT is made (`_prepare_target`)


def object_code(library) -> bytes:
    """The machine code of a compiled kernel's library, as numba's cache holds it: kept when it
    was loaded from the cache (`_hand_over_and_keep`), numba's own when compiled here."""
    library._ensure_finalized()
    return getattr(library, "replcheck_object_code", None) or library._get_compiled_object()


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

    def enable_caching(self):
        """Cache compiled versions on disk, with damaged files compiled again (`cache_files`)."""
        self._cache = CheckedCache(self.py_func)


def compiled(function, inline: bool = False) -> _Dispatcher:
    """numba's dispatcher for kernel `function` (nopython mode, cached on disk, GIL released;
    with `inline`, inlined into the kernels that call it)."""
    dispatcher = njit(nogil=True, inline="always" if inline else "never")(function)
    dispatcher.__class__ = _Dispatcher
    dispatcher.enable_caching()
    return dispatcher


def type_of_global(value):
    """The numba type of `value` where a kernel names it as a global (`jit.NumbaValue`). numba
    reads its tables of typing rules and implementations when a compile starts, and `value`
    may have been made (an intrinsic registered) since: they are read again first."""
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    return cpu_target.typing_context.resolve_value_type(value)


def register_overload(function, implementation) -> None:
    """Give compiled code `implementation` for plain function `function` (`jit.overload_when_compiled`)."""
    overload(function)(implementation)


class _Relay(event.Listener):
    """A numba listener that hands the start and end of each event to a plain object's
    `on_start` and `on_end`."""

    def __init__(self, target):
        self.target = target

    def on_start(self, event_):
        self.target.on_start(event_)

    def on_end(self, event_):
        self.target.on_end(event_)


_listening: dict[int, tuple[str, _Relay]] = {}


def listen(kind: str, target) -> None:
    """Hand numba's events of `kind` ("numba:compile") to `target` until `stop_listening`."""
    relay = _Relay(target)
    event.register(kind, relay)
    _listening[id(target)] = (kind, relay)


def stop_listening(target) -> None:
    """Stop handing numba's events to `target` (if they were)."""
    if id(target) in _listening:
        kind, relay = _listening.pop(id(target))
        event.unregister(kind, relay)


def set_up(overloads, listeners) -> None:
    """Register the typing rules declared so far (`jit.overload_when_compiled`) and start the
    listeners of the `jit.numba_events` blocks now open."""
    for function, implementation in overloads:
        register_overload(function, implementation)
    for kind, listener in listeners:
        listen(kind, listener)
