"""The driver's end of the Spark engine: one barrier job whose tasks are the search's shards,
and the connections over which the driver steers them level by level.

The job (`start`) runs in a thread of its own while the driver talks to its tasks
(`checker.spark.shard` lists the messages). Each task connects back to the driver's listening
port, authenticated by a secret made for this search, so that nothing else on the network can
join or steer it. If a task dies (its Python worker killed, its executor lost) its connection
closes, or the job fails, and every wait here raises `TaskLost` instead of blocking.
"""

from __future__ import annotations

import queue
import secrets
import socket
import threading
import time
from functools import partial
from multiprocessing.connection import AuthenticationError, Connection, Listener, wait

from .master_url import embedded
from .peer_exchange import no_delay

POLL = 0.2
"""Seconds between looks at whether the job is still running, while waiting on tasks."""
SLOTS_WAIT = 60.0
"""Seconds to wait for a cluster's executors to register before giving up."""


class TaskLost(Exception):
    """A task of the search ended, or lost its connection, before the search did."""


class TaskFailed(Exception):
    """A task of the search raised an error (the same would happen again: not worth a retry)."""


def _answer(message):
    """`message`, unless it says that its task failed."""
    if isinstance(message, tuple) and message and message[0] == "failed":
        raise TaskFailed(message[1])
    return message


def task_slots(sc) -> int:
    """How many tasks the cluster runs at once (a barrier stage needs one slot per task); waits
    for a cluster's first executors to register."""
    jsc = sc._jsc.sc()
    profile = jsc.resourceProfileManager().defaultResourceProfile()
    deadline = time.monotonic() + SLOTS_WAIT
    while (slots := jsc.maxNumConcurrentTasks(profile)) == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    return max(slots, 1)


def driver_host(sc) -> str:
    """The address tasks reach the driver at: loopback on an embedded master, else Spark's own."""
    if embedded(sc.master):
        return "127.0.0.1"
    return sc.getConf().get("spark.driver.host")


class Job:
    """The barrier job of one attempt at the search, running in a thread."""

    def __init__(self, sc, tasks: int, body):
        self.error: BaseException | None = None
        rdd = sc.parallelize(range(tasks), tasks).barrier().mapPartitions(body)
        self.thread = threading.Thread(target=self._run, args=(rdd,), name="replcheck-search-job", daemon=True)
        self.thread.start()

    def _run(self, rdd) -> None:
        try:
            rdd.collect()
        except BaseException as exc:  # reported to the driver's thread through `failed`
            self.error = exc

    def failed(self) -> str | None:
        """Why the job ended before the search did (None while it runs)."""
        if self.thread.is_alive():
            return None
        return _first_line(self.error) if self.error is not None else "the job ended early"

    def join(self) -> None:
        """Wait for the job to end; TaskLost if it failed."""
        self.thread.join()
        if self.error is not None:
            raise TaskLost(_first_line(self.error))


class Coordinator:
    """The driver's listening port and its connections to the current attempt's tasks."""

    def __init__(self, host: str):
        self.authkey = secrets.token_bytes(32)
        self.listener = Listener((host, 0), backlog=64, authkey=self.authkey)
        self.incoming: queue.Queue = queue.Queue()
        self.closed = False
        threading.Thread(target=self._accept, name="replcheck-coordinator", daemon=True).start()
        self.conns: list[Connection] = []
        self.pids: list[int] = []
        self.job: Job | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self.listener.address

    def _accept(self) -> None:
        while not self.closed:
            try:
                self.incoming.put(no_delay(self.listener.accept()))
            except (AuthenticationError, EOFError, ConnectionError):
                continue  # a stranger, or a task that died while connecting
            except OSError:
                return  # the listener was closed

    def start(self, sc, tasks: int, task_body) -> None:
        """Submit `task_body` (see `shard.search_task`, less the coordinator's arguments)
        as a barrier job of `tasks` tasks; `welcome` then waits for them."""
        self.drop()
        self.tasks = tasks
        self.job = Job(sc, tasks, partial(task_body, coordinator=self.address, authkey=self.authkey))

    def welcome(self, start) -> None:
        """Wait until every task has said hello, then tell each its peers' addresses and where
        the search starts (`start`)."""
        hellos: dict[int, tuple] = {}
        while len(hellos) < self.tasks:
            try:
                conn = self.incoming.get(timeout=POLL)
            except queue.Empty:
                self._check_job()
                continue
            try:
                _, index, pid, address = _answer(conn.recv())
            except (EOFError, OSError):
                continue  # a task of an earlier attempt, gone
            hellos[index] = (conn, pid, address)
        self.conns = [hellos[i][0] for i in range(self.tasks)]
        self.pids = [hellos[i][1] for i in range(self.tasks)]
        addresses = [hellos[i][2] for i in range(self.tasks)]
        for conn in self.conns:
            conn.send((addresses, start))

    def ask(self, message, tasks=None) -> list:
        """Send `message` to `tasks` (default: all) and return their answers, in task order."""
        targets = range(len(self.conns)) if tasks is None else tasks
        return self.ask_each({t: message for t in targets})

    def ask_each(self, messages: dict[int, object]) -> list:
        """Send each task its message and return the answers, in the order of `messages`."""
        try:
            for t, message in messages.items():
                self.conns[t].send(message)
        except OSError as exc:
            raise TaskLost(f"a task's connection broke ({exc})") from None
        answers: dict[int, object] = {}
        waiting = {self.conns[t]: t for t in messages}
        while waiting:
            ready = wait(list(waiting), timeout=POLL)
            if not ready:
                self._check_job()
            for conn in ready:
                try:
                    answers[waiting.pop(conn)] = _answer(conn.recv())
                except (EOFError, OSError):
                    raise TaskLost("a task's connection closed mid-search (its Python worker or executor was lost)") \
                        from None
        return [answers[t] for t in messages]

    def finish(self) -> None:
        """Tell the tasks the search is over and wait for the job to end."""
        for conn in self.conns:
            try:
                conn.send(("finish",))
            except OSError:
                pass
        if self.job is not None:
            self.job.join()
        self.drop()

    def _check_job(self) -> None:
        if self.job is not None and (why := self.job.failed()) is not None:
            raise TaskLost(why)

    def drop(self) -> None:
        """Close the connections to the current attempt's tasks."""
        for conn in self.conns:
            conn.close()
        self.conns, self.pids = [], []

    def close(self) -> None:
        """Stop listening and drop every connection."""
        self.closed = True
        self.drop()
        try:  # wake the accepting thread, which then sees `closed`
            socket.create_connection(self.address, timeout=1).close()
        except OSError:
            pass
        self.listener.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    for line in text.splitlines():
        if "Error" in line or "Exception" in line:
            return line.strip()
    return text.splitlines()[0] if text else type(exc).__name__
