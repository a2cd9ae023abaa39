"""A machine's first run: the kernels compile in a second process while the search starts here.

Compiling a model's kernel takes from ten seconds (`spec`) to a minute (`fetch`) on two cores,
once per machine and replcheck version. A run that searches in this process (the local engine,
or the Spark engine's in-process start) does not wait for it: `compiling_beside` starts the
compile in a separate process and runs the kernels meanwhile as plain Python
(`checker.interpreted`: the same rules, a hundred times slower). At each safe point (`poll`,
between chunks of a level and between walks) the search looks whether the compile is done;
when it is, the compiled kernels are loaded and the search goes on compiled, from where it was,
with the same states and the same results. A small run is often over before the compile: the
compile then goes on by itself, detached, so that the next run finds the kernel compiled; a
run stopped by Ctrl-C or SIGTERM stops it too (the next run compiles again what is left).

`python -m checker.background_compile` is the compiling process: it reads the jobs (pickled
models and entry points) on stdin, and keeps reading it as the run's lifeline. A run that ends
says DETACH there first and the compile goes on by itself; a run that is stopped, or dies
(`kill -9` of its process group, which does not reach the compile's own group), closes the pipe
without saying it, and the compile ends at once with the helpers it started (`_stop_with_run`).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .compile_notice import background_line, compiled_line, detached_line, stderr_console
from .interpreted import interpreted, on_safe_point

ROOT = Path(__file__).resolve().parent.parent


class _Compile:
    """The compiling process and the interpreted stretch of the search that waits on it."""

    def __init__(self, jobs: list, subject: str, payload: bytes):
        self.jobs, self.subject = jobs, subject
        self.started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, "-m", "checker.background_compile"], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, **_own_process_group())
        self.process.stdin.write(payload)
        self.process.stdin.flush()  # kept open: the compile's lifeline (module docstring)
        self.lowered = _lower_priority()
        self.interpreting = interpreted()
        self.interpreting.__enter__()

    def poll(self, wait: bool = False) -> None:
        """If the compile is over (or, with `wait`, once it is), go on compiled."""
        if self.interpreting is None or (self.process.poll() is None and not wait):
            return
        self.process.wait()
        self._leave_interpreted()
        seconds = time.perf_counter() - self.started
        from .kernel.warm import SEARCH, WALK, is_compiled

        if all(is_compiled(model.kernel, WALK if walks else SEARCH) for model, walks in self.jobs):
            stderr_console().print(compiled_line(self.subject, seconds), highlight=False, soft_wrap=True)
        _load(self.jobs)  # compiles here whatever the other process left undone

    def _leave_interpreted(self) -> None:
        interpreting, self.interpreting = self.interpreting, None
        interpreting.__exit__(None, None, None)
        _restore_priority(self.lowered)

    def end(self, interrupted: bool) -> None:
        """The run is over: leave the compile to finish by itself, or stop it (and the helpers it
        started) if the run was interrupted: the lifeline closes without DETACH (module
        docstring)."""
        if self.interpreting is not None:
            self._leave_interpreted()
        detach = not interrupted and self.process.poll() is None
        try:
            if detach:
                self.process.stdin.write(DETACH)
            self.process.stdin.close()
        except BrokenPipeError:  # the compile ended meanwhile
            detach = False
        if detach:
            stderr_console().print(detached_line(self.subject, self.process.pid), highlight=False, soft_wrap=True)
        else:
            self.process.wait()


_current: list[_Compile] = []

DETACH = b"detach"
"""What a run that ends says on the compile's lifeline: go on by yourself (module docstring)."""


def _own_process_group() -> dict:
    """Popen's options for a process the terminal's Ctrl-C does not reach (a process group of its
    own), yet in this session, where Linux's per-session CPU shares (autogroups) would otherwise
    give the compile no more CPU than this run's search, whatever their priorities."""
    if os.name != "posix":
        return {}
    return {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}


LOWER = 10
"""How much lower this thread's CPU priority (nice) is while it searches uncompiled: the compile,
which is most of a first run's time, comes first on a busy machine, and the uncompiled search
takes what CPU it leaves."""


def _lower_priority() -> int:
    """Lower this thread's priority by `LOWER` (on Linux `nice` is per thread); by how much it was."""
    try:
        before = os.nice(0)
        return os.nice(LOWER) - before
    except OSError:
        return 0


def _restore_priority(lowered: int) -> None:
    """Raise this thread's priority back by `lowered`, where the system lets a process do that
    (root may; others keep the lower priority for the rest of the run, which on a quiet machine
    changes nothing)."""
    if lowered:
        try:
            os.nice(-lowered)
        except OSError:
            pass


@contextmanager
def compiling_beside(jobs: list):
    """Run the block with the kernels of `jobs` ((model, walks) pairs: a model whose kernel is
    not compiled on this machine, and whether the run walks rather than searches) compiling in
    another process and running interpreted here until they are (module docstring)."""
    from .kernel.compile_seconds import estimate, saying
    from .kernel.warm import SEARCH, WALK, part

    models = [model for model, _ in jobs]
    try:
        from pyspark import cloudpickle  # models hold lambdas, which plain pickle refuses

        payload = cloudpickle.dumps(jobs)
    except Exception:  # a model from a plugin that cannot be pickled: compile here, first
        payload = None
    subject = _subject(models, any(walks for _, walks in jobs), any(m.kernel.count_guards for m in models))
    expected = [estimate(part(m.kernel, WALK if w else SEARCH), m.kernel.module) for m, w in jobs]
    seconds = sum(e[0] for e in expected if e) if all(expected) else None
    for model in models:
        model.kernel.search  # imported before the kernels are stood in for, so they are too
    try:
        compile_ = None if payload is None else _Compile(jobs, subject, payload)
    except OSError:  # no process to be had: compile here, first
        compile_ = None
    if compile_ is None:
        _load(jobs)
        yield
        return
    stderr_console().print(background_line(subject, saying(seconds, expected[0][1]) if seconds else None),
                           highlight=False, soft_wrap=True)
    _current.append(compile_)
    on_safe_point(poll)
    interrupted = True
    try:
        yield
        interrupted = False
    finally:
        _current.remove(compile_)
        compile_.end(interrupted)


@contextmanager
def kernels_ready(models, walks: bool = False, here: bool = False):
    """Run the block with the models' kernels ready (`prepare_kernels`). With `here` (the run's
    work starts in this process: the local engine, the Spark engine's in-process start), a
    kernel not yet compiled on this machine compiles in a second process while the block starts
    at once on the uncompiled kernel, and goes on compiled when it is ready (module docstring)."""
    from .kernel.warm import SEARCH, WALK, is_compiled
    from .progress import prepare_kernels

    entry = WALK if walks else SEARCH
    with_kernel = list({m.kernel.module: m for m in models if getattr(m, "kernel", None) is not None}.values())
    cold = [m for m in with_kernel if not is_compiled(m.kernel, entry)] if here else []
    prepare_kernels([m for m in with_kernel if m not in cold], walks)
    if not cold:
        yield
        return
    with compiling_beside([(model, walks) for model in cold]):
        yield


def _subject(models, walks: bool, guards: bool) -> str:
    names = list(dict.fromkeys(model.name for model in models))
    subject = f"the {names[0]} model's kernel" if len(names) == 1 else f"the {', '.join(names)} models' kernels"
    return subject + (" for random walks" if walks else "") + (" with guard counting" if guards else "")


def poll() -> None:
    """A safe point of the search (between chunks of work): go on compiled if the compile is done."""
    for compile_ in _current:
        compile_.poll()


def finish() -> None:
    """Wait for the compile, then go on compiled: for work that leaves this process (Spark
    tasks load the compiled kernels from the cache)."""
    for compile_ in _current:
        compile_.poll(wait=True)


def _load(jobs: list) -> None:
    """Load the compiled kernels (compiling here, with the usual notice, what the other process
    left undone)."""
    from .progress import prepare_kernels

    for model, walks in jobs:
        prepare_kernels([model], walks)


def _compile_jobs() -> None:
    """The compiling process (module docstring): every job's kernel part, each timed for the
    notices' estimates (`checker.kernel.compile_seconds`)."""
    jobs = pickle.load(sys.stdin.buffer)
    threading.Thread(target=_stop_with_run, args=(sys.stdin.buffer,), daemon=True).start()
    from .kernel.compile_seconds import record
    from .kernel.warm import SEARCH, WALK, compile_once, part

    for model, walks in jobs:
        entry = WALK if walks else SEARCH
        started = time.perf_counter()
        if compile_once(model.kernel, model.initial_states()[0], entry):
            record(part(model.kernel, entry), time.perf_counter() - started)


def _stop_with_run(lifeline) -> None:
    """In the compiling process, beside the compile: read the run's lifeline to its end; unless
    the run said DETACH there, it was stopped or died, and this process ends at once, with the
    helpers it started (`checker.kernel.side_compile`'s, multiprocessing's resource tracker): they
    are in its process group. A file the compile was writing into the cache is left as a
    temporary file, never half a cache file."""
    if lifeline.read() == DETACH:
        return
    if os.name == "posix" and os.getpgid(0) == os.getpid():  # its own group (`_own_process_group`)
        os.killpg(0, signal.SIGKILL)
    os._exit(1)


if __name__ == "__main__":
    _compile_jobs()
