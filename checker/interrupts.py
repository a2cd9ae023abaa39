"""Interruptions (Ctrl-C, SIGTERM) held back while a block runs, then raised once it is done;
and SIGTERM raised like Ctrl-C, so that one clean-up path serves both.

Some libraries swallow a KeyboardInterrupt that lands inside their own import code (a broad
`except` around a feature probe, a ctypes callback), so a Ctrl-C pressed in the first second of
a run could be lost and the search would go on for minutes; and SIGTERM before the CLI's
handler exists ended the process without a word. Inside `interruptions_deferred` a signal is
only recorded; it is raised when the block ends, where the caller handles it.

Once the command line has loaded, Ctrl-C and SIGTERM raise at once, and are remembered too
(`ctrl_c`, `sigterm_raises`): a library that catches the interruption where it lands (numba's
loader does, inside llvmlite's callbacks) would otherwise leave the run going as if no signal
had come. A search asks at every level (`raise_if_swallowed`) and ends then.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager


_RECEIVED: list[int] = []
"""The Ctrl-C and SIGTERM signals that raised an interruption in this process (`ctrl_c`,
`sigterm_raises`). The process ends on the first: one found here later was swallowed."""


def ctrl_c(signum, frame):
    """The Ctrl-C handler once the command line has loaded: Python's own (a KeyboardInterrupt
    where the main thread is), and the signal remembered for `raise_if_swallowed`."""
    _RECEIVED.append(signum)
    raise KeyboardInterrupt


def interruption_received() -> KeyboardInterrupt | None:
    """The interruption of the Ctrl-C or SIGTERM this process received since the command line
    loaded (Terminated where SIGTERM came), None where none came."""
    if signal.SIGTERM in _RECEIVED:
        return Terminated()
    return KeyboardInterrupt() if _RECEIVED else None


def raise_if_swallowed() -> None:
    """Raise the interruption of a Ctrl-C or SIGTERM that came earlier and was caught on its way
    (by a library): a search calls this between levels, so that no signal is lost."""
    interruption = interruption_received()
    if interruption is not None:
        raise interruption


def quiet_swallowed(report) -> None:
    """`sys.unraisablehook` once the command line has loaded: Python's report of an error that
    nothing could raise, except for the Ctrl-C or SIGTERM that landed where Python cannot raise
    it, and for what such a signal left behind.

    A signal that arrives while the main thread is in C code (LLVM compiling a kernel for numba)
    is handled when Python code next runs there, and that is often a ctypes callback (llvmlite's
    object cache), which swallows the interruption and prints its traceback; the compile would
    go on for a minute. Here the traceback is left out and the signal sent again a moment later
    (`RESEND`), once the callback has returned, so that it interrupts the code that called into
    C. Once a signal has come (`interruption_received`), an error in a clean-up is one of an
    object the interruption left half made (llvmlite's, whose `__del__` then fails as the
    process ends), printed under the run's one line: left out too."""
    interruption = report.exc_value
    if isinstance(interruption, KeyboardInterrupt):
        signum = signal.SIGTERM if isinstance(interruption, Terminated) else signal.SIGINT
        again = threading.Timer(RESEND, _send_again, (signum,))
        again.daemon = True
        again.start()
    elif interruption_received() is None:
        sys.__unraisablehook__(report)


RESEND = 0.01
"""Seconds after a swallowed Ctrl-C or SIGTERM before it is sent again (`quiet_swallowed`): long
enough for the callback that swallowed it to return."""


def _send_again(signum: int) -> None:
    """Send `signum` to this process again, while a handler that raises it is in place."""
    handler = signal.getsignal(signum)
    if callable(handler) and not getattr(handler, "records_only", False):
        os.kill(os.getpid(), signum)


@contextmanager
def interruptions_deferred():
    """Run the block with SIGINT and SIGTERM recorded instead of acted on; afterwards raise
    Terminated if SIGTERM came, else KeyboardInterrupt if Ctrl-C did. The previous handlers are
    restored either way."""
    received: list[int] = []

    def record(number, frame):
        received.append(number)

    record.records_only = True  # `signalled`: no signal raises an interruption in the block
    previous = {signum: signal.signal(signum, record) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if signal.SIGTERM in received:
        raise Terminated
    if received:
        raise KeyboardInterrupt


def interruption_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM behind `error`, where a library turned it into an error of its own
    (numba reports a KeyboardInterrupt that lands while it loads a compiled function as a
    SystemError caused by it), or swallowed it and failed later for want of what it was doing
    (a KeyboardInterrupt in llvmlite's object-cache callback leaves numba with "no compiled
    object"): any error after a signal this process received is taken as its consequence
    (`interruption_received`). None when no interruption is among its causes and none came."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return interruption_received()


def signalled(interruption: KeyboardInterrupt) -> bool:
    """Whether `interruption` may have come from a signal: whenever a handler that can raise it is
    in place (Python's own for Ctrl-C, `sigterm_raises` for SIGTERM, Spark's, anybody's), unless
    that handler only records signals (`interruptions_deferred`, cli.py as it loads): then it was
    raised by the code that ran (a model package's, say), not by a Ctrl-C. Neither can come of a
    signal that is ignored or, for SIGTERM, ends the process."""
    handler = signal.getsignal(signal.SIGTERM if isinstance(interruption, Terminated) else signal.SIGINT)
    return callable(handler) and not getattr(handler, "records_only", False)


def forget_escaped_interruptions() -> None:
    """Make CPython forget the Ctrl-C it saw escape from source text it ran, so that the process
    ends with the exit code the command chose (130 for a Ctrl-C it reported).

    CPython notes, in a flag of its own, any KeyboardInterrupt that leaves code compiled from a
    string (`exec`/`eval` of source: numba and `collections.namedtuple` run generated source),
    as if it had ended the program; under `python -m` it then ends the process by SIGINT
    (status -2, no traceback) instead of with the exit code asked, even though replcheck caught
    the interruption and said so. Evaluating any source text to completion clears the flag."""
    eval("None")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every cleanup path for an interrupted run (Spark's
    JVM, temporary files) runs for it too; the CLI reports it with exit code 143."""


@contextmanager
def sigterm_raises():
    """Run the block with SIGTERM raising `Terminated` in the main thread instead of ending the
    process on the spot; the previous handler is restored afterwards."""
    def terminate(signum, frame):
        _RECEIVED.append(signum)
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
