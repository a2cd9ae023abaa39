"""Compiling a model's kernel ahead of the search, so the one-time cost shows as its own step,
and loading from the cache only what a run calls."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np

from . import side_compile
from .cache import kept_all, not_kept, write_cache_file
from .expansion import expand_all
from .fingerprint import fingerprint
from ..coverage import Coverage
from .jit import CACHE_DIR
from .symmetry import permutations
from .traces import Reducer
from .visited_set import VisitedSet
from .walk_weights import uniform_weights

SEARCH, WALK = "expand", "walk"
"""The search loop's entry points: a breadth-first search expands levels, a simulation walks."""


def part(kernel, entry: str) -> str:
    """The part of the model's kernel a run through `entry` (SEARCH or WALK) calls: that entry
    point, on the copy of the actions that counts guards where the run does (`--coverage`,
    `Kernel.count_guards`) and on the one that leaves the counting out elsewhere. Each part is
    compiled on its own, when a run first needs it: the counting copy is most of a second
    compile of the whole model, which a run without `--coverage` never calls."""
    name = "replcheck_search_" + kernel.module.replace(".", "_")
    return f"{name}.{entry}" + (".guards" if kernel.count_guards else "")


def _marker(kernel, entry: str) -> Path:
    return Path(CACHE_DIR) / "compiled" / part(kernel, entry)


def is_compiled(kernel, entry: str = SEARCH) -> bool:
    """Whether this machine's kernel cache already holds the part of the model's kernel that a
    run through `entry` calls (`part`)."""
    return _marker(kernel, entry).exists()


def compile_once(kernel, initial_state, entry: str = SEARCH, on_wait=lambda: None) -> bool:
    """Compile the part of the kernel a run through `entry` calls (`compile_all`) unless another
    process on this machine is compiling it: then call `on_wait` and wait for that one, which
    leaves it compiled for this process to `load`. Whether this process compiled. Two runs
    started together on a fresh machine (a user's two terminals, test workers) so compile once,
    not side by side."""
    with _machine_wide_lock(Path(CACHE_DIR) / f"{kernel.module}.lock", on_wait):
        if is_compiled(kernel, entry):
            return False
        compile_all(kernel, initial_state, entry)
        return True


@contextmanager
def _machine_wide_lock(path: Path, on_wait):
    try:
        import fcntl
    except ImportError:  # no POSIX file locks (Windows): each process compiles for itself
        yield
        return
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def compile_all(kernel, initial_state, entry: str = SEARCH) -> None:
    """Compile (or load from the cache) everything a run through `entry` calls on `kernel`, from
    `initial_state`, and mark that part compiled (`part`). SEARCH: a search's start and one
    expansion with and without symmetry (with `count_guards`, a count of a sample's guards
    too), the visited set's lookups and growth. WALK: one step of a random walk. Both: the
    replays that rebuild a trace. Compiling is then one step of this machine's first run, not
    pauses in later ones. Where the cache could not keep all of it (a full disk), nothing is
    marked: the next run compiles it again."""
    row, fps, invariants, steps = _start(kernel, initial_state)
    if entry == SEARCH:
        symmetric = permutations(kernel.replicas, True)
        with side_compile.helper(kernel, row, invariants, steps):
            expand_all(kernel, row, fps, invariants, steps, symmetric)  # the loop first, the rest beside it
            load(kernel, initial_state, SEARCH)
            Reducer(kernel, symmetric).representative(row[0])
            side_compile.visited_set_calls(fps)
    else:
        _walk(kernel, row, invariants, steps)
    for code, after in kernel.successor_rows(row[0])[:1]:
        kernel.search.step(row[0], kernel.layout, code, *kernel.buffers())
        kernel.search.broken_steps(row[0], code, after, kernel.layout, steps)
    if not kept_all():  # not all of it is in the cache (a full disk): the next run compiles again
        return
    marker = _marker(kernel, entry)
    try:
        write_cache_file(marker, "")
    except OSError as error:
        not_kept(error, marker)


def load(kernel, initial_state, entry: str) -> None:
    """Load from the cache what a run through `entry` calls first: for SEARCH, the start of a
    search from `initial_state` (fingerprint, visited set, a batch's invariants) and one expansion; for
    WALK, one step of a random walk. The rest (traces' replays) loads when it is used."""
    row, fps, invariants, steps = _start(kernel, initial_state)
    if entry == WALK:
        _walk(kernel, row, invariants, steps)
        return
    VisitedSet(1, 1).add(int(fps[0]))
    kernel.search.violated_rows(row, kernel.layout, invariants, np.zeros(1, np.int64))
    expand_all(kernel, row, fps, invariants, steps, permutations(kernel.replicas, False))


def _start(kernel, initial_state) -> tuple:
    """(the packed state as a one-row frontier, its fingerprints, every invariant's bit, every
    step property's bit)."""
    row = kernel.encode(initial_state).reshape(1, -1)
    fps = np.array([fingerprint(row[0])], np.int64)
    return row, fps, (1 << max(len(kernel.invariant_names), 1)) - 1, (1 << len(kernel.step_property_names)) - 1


def _walk(kernel, row: np.ndarray, invariants: int, steps: int) -> None:
    room, coverage = kernel.max_successors, Coverage(kernel.action_kinds)
    kernel.search.walk(row[0], kernel.layout, np.uint64(1), 1, uniform_weights(len(kernel.action_kinds)),
                       invariants, steps, np.zeros((room, kernel.width), np.int8), np.zeros(room, np.int64),
                       kernel.new_tally(), np.zeros(room, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                       coverage.fired, coverage.enabled, coverage.first, 0, -1, np.zeros((1, kernel.width), np.int8),
                       np.zeros(1, np.int64))
