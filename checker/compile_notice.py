"""What a run says while numba compiles a kernel, whichever command asked for it.

Compiling takes from seconds to minutes and happens once per machine and replcheck version;
a run that says nothing meanwhile looks hung. Inside `compile_notices` every compile is
reported as it starts: numba raises its `numba:compile` event for a compile and not for a load
from the kernel cache, so a warm run says nothing. The first compile prints one line on stderr
saying what compiles and that it happens once; on a terminal a spinner line below it shows the
function being compiled and the time elapsed, for as long as compiling goes on. A run that
found a damaged file in the kernel cache has said that it makes it again
(`checker.kernel.cache.damaged`): its compile has no notice besides that line.
"""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.errors import LiveError
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from .kernel.cache import said_damaged
from .kernel.jit import numba_events

_stderr: list[Console] = []
_subject: list[tuple[str, str | None]] = []
_notices: list[_Notice] = []


def stderr_console() -> Console:
    """The rich console on stderr that every live display of the process shares (the search's
    progress line, the compile notice), so that a notice raised during a search shows below
    its progress line instead of over it."""
    if not _stderr:
        _stderr.append(Console(stderr=True))
    return _stderr[0]


@contextmanager
def compiling(subject: str, estimate: str | None = None):
    """Name what compiles inside the block in the notice ("the fetch model's kernel"; by
    default it is "replcheck's kernels"), with how long it is expected to take where known
    ("about 70 s on 2 cores", `checker.kernel.compile_seconds`), and keep its spinner line,
    once up, until the block ends: its clock then times the whole step."""
    _subject.append((subject, estimate))
    try:
        yield
    finally:
        _subject.pop()
        for notice in _notices:
            notice.stop()


def notice_line(subject: str, estimate: str | None = None) -> str:
    """The line that announces a compile (`estimate`: how long it should take, where known)."""
    return (f"compiling {subject} for this machine{', ' + estimate if estimate else ''}: once per machine and "
            "replcheck version; later runs load the compiled code from the cache in a fraction of a second")


def background_line(subject: str, estimate: str | None = None) -> str:
    """The line that announces a compile in a second process while the run starts uncompiled
    (`checker.background_compile`)."""
    return (f"compiling {subject} for this machine in a second process{', ' + estimate if estimate else ''} (once "
            "per machine and replcheck version); meanwhile the run goes on uncompiled, about a hundred times slower")


def compiled_line(subject: str, seconds: float) -> str:
    """The line that says the compile in the second process is done and the run goes on compiled."""
    return f"compiled {subject} in {seconds:.0f} s; the run goes on compiled"


def detached_line(subject: str, pid: int) -> str:
    """The line of a run that ended before the compile in the second process did."""
    return (f"the run ended before {subject} finished compiling: the compile goes on in the background (process "
            f"{pid}), so that later runs load it")


def waiting_line(subject: str) -> str:
    """The line of a run that waits for another process compiling the same kernel."""
    return (f"waiting for another replcheck process that is compiling {subject} for this machine (once per machine "
            "and replcheck version)")


@contextmanager
def compile_notices():
    """Report every numba compile inside the block (module docstring)."""
    notice = _Notice()
    _notices.append(notice)
    try:
        with numba_events("numba:compile", notice):
            yield
    finally:
        _notices.remove(notice)
        notice.stop()


class _Notice:
    """The listener that shows the notice; nested compiles (a kernel's callees) keep one
    display up."""

    def __init__(self):
        self.depth, self.told, self.progress, self.task = 0, set(), None, None

    def on_start(self, event) -> None:
        """A compile starts: say so."""
        self.depth += 1
        function = event.data["dispatcher"].py_func
        self.show(*(_subject[-1] if _subject else ("replcheck's kernels", None)),
                  f"{function.__module__}.{function.__qualname__}")

    def on_end(self, event) -> None:
        """A compile ends: the spinner line goes once the outermost one has (outside a
        `compiling` block)."""
        self.depth -= 1
        if self.depth == 0 and not _subject:
            self.stop()

    def show(self, subject: str, estimate: str | None, function: str) -> None:
        """Announce `subject` (once), and on a terminal show `function` on the spinner line
        (numba's own helpers, compiled along with a kernel, leave the line as it is)."""
        console = stderr_console()
        if subject not in self.told:
            self.told.add(subject)
            if not said_damaged():  # the run said so already, in its one line about the damage
                console.print(notice_line(subject, estimate), highlight=False, soft_wrap=not console.is_terminal)
        if not console.is_terminal:
            return
        if self.progress is None:
            self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                     console=console, transient=True)
            self.task = self.progress.add_task("")
        if not function.startswith("numba."):
            self.progress.update(self.task, description=f"compiling {function}")
        if not self.progress.live.is_started:
            self.start()

    def start(self) -> None:
        """Put the spinner line up, its clock at zero (left out where another live display holds
        the console and this version of rich cannot nest them)."""
        self.progress.reset(self.task)
        try:
            self.progress.start()
        except LiveError:
            pass

    def stop(self) -> None:
        """Take the spinner line down, if it is up."""
        if self.progress is not None and self.progress.live.is_started:
            self.progress.stop()
