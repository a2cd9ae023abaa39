"""How long compiling a part of a model's kernel takes: what the compile notice tells a user
before the wait.

Two sources, the first that knows wins: this machine's own record of its last compile of the
part (any version of the sources, kept beside the kernel caches, `cache.cache_root`), and the
figures `python -m benchmarks.startup --cold` measured on a 2-core machine for each model's
search, which compiles all of its actions as every other part does, and wrote to
`compile_seconds.json` beside this module. A part is named as `warm.part` names it
("replcheck_search_model_fetch_kernel.expand"), a model's kernel by its module
("model.fetch.kernel").
"""

from __future__ import annotations

import json
from pathlib import Path

from .cache import cache_root, write_cache_file

KERNEL_SOURCE = False

MEASURED = Path(__file__).with_name("compile_seconds.json")
"""The benchmark's figures: kernel module -> seconds to compile its search on a 2-core machine."""


def _machine_file() -> Path:
    return cache_root() / "compile-seconds.json"


def _read(path: Path) -> dict:
    try:
        figures = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return figures if isinstance(figures, dict) else {}


def estimate(part: str, module: str) -> tuple[float, str] | None:
    """(seconds, where from: "this machine" or "2 cores") that compiling `part` of the kernel
    `module` is expected to take, or None where neither source knows."""
    for path, key, source in ((_machine_file(), part, "this machine"), (MEASURED, module, "2 cores")):
        seconds = _read(path).get(key)
        if isinstance(seconds, (int, float)) and seconds > 0:
            return float(seconds), source
    return None


def record(part: str, seconds: float) -> None:
    """Remember that compiling `part` took `seconds` on this machine (best effort: a cache
    directory that cannot be written keeps no record)."""
    path = _machine_file()
    figures = _read(path)
    figures[part] = round(seconds, 1)
    try:
        write_cache_file(path, json.dumps(figures, indent=1, sort_keys=True) + "\n")
    except OSError:
        pass


def saying(seconds: float, source: str) -> str:
    """The estimate as the notice words it: "about 70 s on 2 cores"."""
    amount = f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
    return f"about {amount} {'here' if source == 'this machine' else 'on 2 cores'}"
