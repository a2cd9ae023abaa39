"""Ctrl-C held back while a block runs, then raised once the block is done.

Some libraries swallow a KeyboardInterrupt that lands inside their own import code (a broad
`except` around a feature probe), so a Ctrl-C pressed in the first second of a run could be
lost and the search would go on for minutes. Inside `ctrl_c_deferred` the press is only
recorded; it is raised as KeyboardInterrupt when the block ends, where the caller handles it.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager


@contextmanager
def ctrl_c_deferred():
    """Run the block with SIGINT recorded instead of raised; raise KeyboardInterrupt after it
    if the user pressed Ctrl-C meanwhile. The previous SIGINT handler is restored either way."""
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every cleanup path for an interrupted run (Spark's
    JVM, temporary files) runs for it too; the CLI reports it with exit code 143."""


@contextmanager
def sigterm_raises():
    """Run the block with SIGTERM raising `Terminated` in the main thread instead of ending the
    process on the spot; the previous handler is restored afterwards."""
    def terminate(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
