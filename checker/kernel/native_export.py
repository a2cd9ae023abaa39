"""Exporting what numba ran for the kernels' calls from Python, for later runs to call without
numba (`native`, whose docstring tells the whole story). Imported only where numba is set up."""

from __future__ import annotations

import pickle
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
from numba.core import intrinsics, types
from numba.core.registry import cpu_target
from numba.core.runtime import rtsys
from numba.np.numpy_support import from_dtype

from .cache import ROOT, write_cache_file
from .layout_record import record_dtype
from .native import RUNTIME, entry_path, key_text, versions
from .numba_target import object_code


def numba_type(description):
    """The numba type `typeof` gives a value of `description` (`native.describe`)."""
    kind = description[0]
    if kind == "A":
        _, dtype, ndim, layout, readonly = description
        return types.Array(from_dtype(np.dtype(dtype)), ndim, layout, readonly=readonly)
    if kind == "b":
        return types.boolean
    if kind in "if":
        return from_dtype(np.dtype(description[1]))
    if kind == "T":
        return types.BaseTuple.from_types([numba_type(item) for item in description[2]], description[1] or tuple)
    if kind == "R":
        return from_dtype(record_dtype(description[1]))
    return types.none


def export(store, cache_dir: str) -> None:
    """Write an entry for each call `store` found none for and numba ran (of kernels compiled
    into `cache_dir`), and the runtime record once: files written whole (a temporary file
    renamed), so a reader never sees half of one."""
    directory, stamp = store.directory, versions()
    written = False
    for kernel, descriptions in list(store.missing.values()):
        dispatcher = kernel._dispatcher
        if dispatcher is None or not _in_digest(kernel, Path(cache_dir)):
            continue
        compiled = dispatcher.overloads.get(tuple(numba_type(d) for d in descriptions))
        if compiled is None or compiled.objectmode or compiled.lifted or compiled.reload_init:
            continue
        environments = {env.env_name: env for env in [compiled.environment, *compiled.referenced_envs]}
        entry = {"key": [key_text(d) for d in descriptions], "versions": stamp,
                 "object": object_code(compiled.library), "wrapper": compiled.fndesc.llvm_cpython_wrapper_name,
                 "environments": [(name, env.globals["__name__"], list(env.consts)) for name, env in environments.items()]}
        try:
            data = pickle.dumps(entry)
            pickle.loads(data)
        except Exception:  # a constant only numba can rebuild: numba keeps running this call
            continue
        write_cache_file(entry_path(directory, kernel.__module__, kernel.__qualname__, descriptions), data)
        written = True
    if written and _runtime_versions(directory) != stamp:
        nrt = cpu_target.target_context.codegen()._tm.emit_object(llvm.parse_assembly(str(rtsys.library._final_module)))
        write_cache_file(directory / RUNTIME, pickle.dumps({"versions": stamp, "nrt": nrt, "math": list(intrinsics.INTR_MATH)}))


def _in_digest(kernel, cache_dir: Path) -> bool:
    """Whether `kernel`'s source is one the cache directory's name is a digest of (the repository's
    kernel packages, or a search loop written into the cache directory): the directory, and
    the entries in it, change when it does. A kernel from elsewhere is not exported."""
    source = Path(kernel.py_func.__code__.co_filename).resolve()
    return source.is_relative_to(ROOT) or source.is_relative_to(cache_dir.resolve())


def _runtime_versions(directory: Path) -> dict | None:
    """The versions the runtime record names (None where there is none or it cannot be read)."""
    try:
        return pickle.loads((directory / RUNTIME).read_bytes())["versions"]
    except Exception:
        return None
