"""Running the kernels' compiled code without numba: a run's start-up without numba's import.

Importing numba and setting up its CPU target takes about 0.4 s, a quarter of a small search's
run; numba is needed to compile a kernel and to choose which compiled version (overload) of it
fits a call's argument types, not to run the compiled code. So a process that runs kernels with
numba also exports, when it ends (`native_export`), what each kernel called from Python ran:
the overload's machine code (numba's own cached object code: its Python-facing wrapper included,
which converts the arguments and the result, raises the kernel's errors and releases the GIL),
one file per kernel and per argument description (`describe`). A later process that calls the
kernel with arguments of the same description loads that file into an LLVM JIT (llvmlite,
which numba is built on; `_Runtime`) and calls the machine code directly, as numba would have;
numba is imported only for a call no file covers (then it exports it for the next run).

The description must pick the same overload numba would: it records exactly what numba's
`typeof` looks at (an array's dtype, dimensions, layout and writability; a scalar's type; a
tuple's items and named-tuple class; a layout record's fields), and a value it cannot describe
goes to numba. The files sit
in the kernel cache directory, which changes with the kernel sources, and name the numba and
Python versions that wrote them: anything else is ignored. `REPLCHECK_NATIVE=0` turns this off.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import importlib
import importlib.machinery
import importlib.util
import io
import os
import pickle
import sys
import threading
import types
from pathlib import Path

import numpy as np

from .cache import damaged
from .layout_record import record_dtype

RUNTIME = "runtime.pkl"
"""The file of what every entry needs (NRT's functions as object code, the math functions'
names) and the versions that wrote it."""


def describe(value):
    """What numba's typeof sees of `value` when a kernel is called with it from Python, as a
    hashable tuple; None for a value this module leaves to numba."""
    kind = type(value)
    if kind is np.ndarray:
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        if value.dtype.kind not in "biuf":
            return None
        return ("A", value.dtype.str, value.ndim, layout, not flags.writeable)
    if kind is bool or kind is np.bool_:
        return ("b",)
    if kind is int:
        return ("i", "int64") if -(1 << 63) <= value < (1 << 63) else None
    if kind is float:
        return ("f", "float64")
    if isinstance(value, (np.integer, np.floating)):
        return ("i" if isinstance(value, np.integer) else "f", value.dtype.name)
    if kind is np.void:  # a layout's record (`layout_record`): aligned int64 fields
        fields = value.dtype.names
        if fields and value.dtype == record_dtype(fields):
            return ("R", fields)
        return None
    if isinstance(value, tuple):
        items = tuple(describe(item) for item in value)
        if None in items:
            return None
        if kind is not tuple and not hasattr(kind, "_fields"):
            return None
        return ("T", None if kind is tuple else kind, items)
    if value is None:
        return ("N",)
    return None


def key_text(description) -> str:
    """A description as text (a named tuple's class by module and name): what its file is named after."""
    if description[0] == "T":
        cls = description[1]
        name = "" if cls is None else f"{cls.__module__}.{cls.__qualname__}"
        return f"T[{name}](" + ",".join(key_text(item) for item in description[2]) + ")"
    return ":".join(str(part) for part in description)


def entry_path(directory: Path, module: str, qualname: str, descriptions: tuple) -> Path:
    """Where the entry for kernel `module.qualname` called with `descriptions` is kept."""
    digest = hashlib.sha256(",".join(key_text(d) for d in descriptions).encode()).hexdigest()[:20]
    return directory / f"{module}.{qualname}" / f"{digest}.pkl"


def versions() -> dict:
    """The versions an exported entry is only valid under."""
    from importlib.metadata import version

    return {"python": sys.version, "numba": version("numba"), "llvmlite": version("llvmlite")}


class _Runtime:
    """What numba's compiled code needs from the process, set up without importing numba: its
    C helpers (numba's `_helperlib`, `_dynfunc` and NRT extension modules, loaded by file),
    their symbols and Python's exception classes made known to LLVM, and NRT's own functions
    (object code, from `RUNTIME`)."""

    def __init__(self, record: dict):
        import llvmlite.binding as llvm

        self.llvm = llvm
        modules = {name: _extension(name) for name in
                   ("numba._helperlib", "numba._dynfunc", "numba.core.runtime._nrt_python")}
        self.dynfunc = modules["numba._dynfunc"]
        llvm.add_symbol("_Py_NoneStruct", id(None))
        for helpers in (modules["numba._helperlib"].c_helpers, self.dynfunc.c_helpers):
            for name, address in helpers.items():
                llvm.add_symbol("numba_" + name, address)
        for name in record["math"]:
            llvm.add_symbol(name, modules["numba._helperlib"].c_helpers[name])
        for name, address in modules["numba.core.runtime._nrt_python"].c_helpers.items():
            llvm.add_symbol(name if name.startswith("_") else "NRT_" + name, address)
        import builtins

        for obj in vars(builtins).values():
            if isinstance(obj, type) and issubclass(obj, BaseException):
                llvm.add_symbol(f"PyExc_{obj.__name__}", id(obj))
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _prime(modules["numba._helperlib"])
        self.machine = llvm.Target.from_default_triple().create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), jit=True)
        self.nrt = record["nrt"]

    def function(self, kernel, entry: dict):
        """A Python function running the entry's machine code (as numba's compiled function is)."""
        llvm = self.llvm
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.machine)
        engine.add_object_file(llvm.ObjectFileRef.from_data(self.nrt))
        engine.add_object_file(llvm.ObjectFileRef.from_data(entry["object"]))
        engine.finalize_object()
        environments = []
        for name, module, constants in entry["environments"]:
            # Compiled code reads only an environment's constants; its globals are the module's
            # where that is loaded, and none for numba's own helpers (which would import numba).
            loaded = sys.modules.get(module)
            environment = self.dynfunc.Environment(loaded.__dict__ if loaded else {"__name__": module})
            environment.consts[:] = constants
            address = engine.get_global_value_address(name)
            if not address:
                raise LookupError(name)
            (ctypes.c_void_p * 1).from_address(address)[0] = id(environment)
            environments.append(environment)
        address = engine.get_function_address(entry["wrapper"])
        if not address:
            raise LookupError(entry["wrapper"])
        module = kernel.py_func.__globals__.get("__name__", kernel.__module__)
        return self.dynfunc.make_function(sys.modules.get(module), kernel.__name__, kernel.__doc__ or "", address,
                                          environments[0] if environments else None, (engine, environments))


SERIALIZE = "numba.core.serialize"
"""The module numba's C helpers import (numba's package first) the first time compiled code
rebuilds a Python object it embeds: the class of an array or named tuple it returns, an
exception it raises. They keep the function they find there for the rest of the process."""

_PRIMING = object()


class _NeedsNumba(Exception):
    pass


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "numba" or module.startswith("numba."):
            raise _NeedsNumba
        return super().find_class(module, name)


def _prime(helperlib) -> None:
    """Have numba's C helpers find, once and for good, functions of ours where they would import
    numba (`SERIALIZE`): with stand-ins for numba's package and that module in sys.modules for
    the moment of one call to each helper, taken out again at once. Ours rebuild an embedded
    object with plain pickle, as numba does; one that needs numba's own code is handed to
    numba's module, imported then. Where numba is imported already, its own module serves."""
    if "numba" in sys.modules:
        return
    memo: dict = {}

    def _numba_unpickle(address, data, hashed):
        key = (address, hashed)
        if key not in memo:
            try:
                memo[key] = _Unpickler(io.BytesIO(data)).load()
            except _NeedsNumba:
                memo[key] = importlib.import_module(SERIALIZE)._numba_unpickle(address, data, hashed)
        return memo[key]

    def runtime_build_excinfo_struct(struct_gv, exc_args):
        if struct_gv is _PRIMING:
            return None
        return importlib.import_module(SERIALIZE).runtime_build_excinfo_struct(struct_gv, exc_args)

    serialize = types.ModuleType(SERIALIZE)
    serialize._numba_unpickle = _numba_unpickle
    serialize.runtime_build_excinfo_struct = runtime_build_excinfo_struct
    sys.modules["numba"], sys.modules[SERIALIZE] = types.ModuleType("numba"), serialize
    try:
        data = pickle.dumps(None)
        ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)(
            helperlib.c_helpers["unpickle"])(data, len(data), bytes(20))
        ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.py_object)(
            helperlib.c_helpers["runtime_build_excinfo_struct"])(_PRIMING, None)
    finally:
        del sys.modules["numba"], sys.modules[SERIALIZE]


def _extension(name: str):
    """numba's C extension module `name`, loaded from its file without importing numba itself
    (and left in sys.modules, so that numba, imported later, uses it rather than a second copy)."""
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.find_spec("numba")
    stem = name.removeprefix("numba.").replace(".", os.sep)
    found = [path for path in glob.glob(os.path.join(package.submodule_search_locations[0], stem + ".*"))
             if path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))]
    loader = importlib.machinery.ExtensionFileLoader(name, found[0])
    spec = importlib.util.spec_from_file_location(name, found[0], loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[name] = module
    return module


class Store:
    """The exported entries of one kernel cache directory (module docstring): which this process
    has loaded, and which calls it found none for (`missing`, exported at exit where numba ran them)."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.loaded: dict[tuple, object] = {}
        self.missing: dict[tuple, tuple] = {}
        self.lock = threading.Lock()
        self.runtime: _Runtime | None = None
        self.versions: dict | None = None
        self.broken = False

    def function(self, kernel, args: tuple):
        """The native function for calling `kernel` with `args`; None where numba must run it."""
        descriptions = tuple(describe(arg) for arg in args)
        key = (id(kernel), descriptions)
        found = self.loaded.get(key, self)
        if found is not self:
            return found
        with self.lock:
            if key not in self.loaded:
                self.loaded[key] = self._load(kernel, descriptions)
                if self.loaded[key] is None and None not in descriptions:
                    self.missing[key] = (kernel, descriptions)
        return self.loaded[key]

    def _load(self, kernel, descriptions: tuple):
        if self.broken or None in descriptions:
            return None
        path = entry_path(self.directory, kernel.__module__, kernel.__qualname__, descriptions)
        if not path.exists():
            return None
        try:
            entry = pickle.loads(path.read_bytes())
        except Exception:  # cut short or overwritten: numba runs the call, and exports it again
            damaged(path)
            return None
        try:
            if self.runtime is None:
                record = pickle.loads((self.directory / RUNTIME).read_bytes())
                self.versions = versions()
                if record["versions"] != self.versions:
                    self.broken = True
                    return None
                self.runtime = _Runtime(record)
            if entry["versions"] != self.versions or entry["key"] != [key_text(d) for d in descriptions]:
                return None
            return self.runtime.function(kernel, entry)
        except Exception:  # a foreign or unusable file: numba runs the call, and exports it again
            return None


_store: list[Store] = []


def store(cache_dir: str) -> Store | None:
    """This process's store of exported entries (None when `REPLCHECK_NATIVE=0`)."""
    if not _store:
        if os.environ.get("REPLCHECK_NATIVE", "1") == "0":
            return None
        _store.append(Store(Path(cache_dir) / "native"))
    return _store[0]
