"""One compiled search loop per model, made from `search_template` (see its docstring).

The copy for a model lives in the kernel cache directory (so it changes whenever any kernel
source does), differs from the template only in the line marked MODEL, and is imported under
its own module name. A copy that differs from what it should be (damaged) is written again.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from .cache import damaged, write_cache_file
from .jit import CACHE_DIR

TEMPLATE = Path(__file__).with_name("search_template.py")
MARK = "  # MODEL"


def search_module(kernel_module: str):
    """The search loop compiled against `kernel_module` (a module path such as
    'model.spec.kernel' exporting what the template's lines marked MODEL import from it)."""
    name = "replcheck_search_" + kernel_module.replace(".", "_")
    if name in sys.modules:
        return sys.modules[name]
    lines = []
    for line in TEMPLATE.read_text().splitlines():
        if line.endswith(MARK):
            line = line.replace("MODEL_KERNEL", kernel_module)
        lines.append(line)
    path = Path(CACHE_DIR) / "generated" / f"{name}.py"
    text = ("\n".join(lines) + "\n").encode("utf-8")
    if not path.exists() or path.read_bytes() != text:
        if path.exists():  # the directory is named after the template's digest: only damage changes it
            damaged(path)
        write_cache_file(path, text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
