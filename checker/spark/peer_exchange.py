"""Moving candidates between the Spark engine's tasks, directly, without Spark's shuffle.

The tasks of one search run at the same time (a barrier stage), so each can listen on a port of
its own and reach every other: task t connects to each task above it and accepts one connection
from each task below it, and these connections carry every level's candidates. They are
`multiprocessing.connection` connections: framed messages, and a handshake on a secret shared
by the search (HMAC), so nothing else on the network can join or feed the search.

A level's exchange is a stream: a task sends each peer a block of candidates per chunk of its
frontier, as soon as the chunk is expanded, then an end-of-level mark. Each peer has a sender
thread of its own (keeping its blocks in order) and a reader thread that takes in whatever that
peer sends and hands it on (to the task's store of candidates, which may spill it to disk), so expanding, sending and receiving overlap, no sender ever waits on a task that is
busy expanding, and the exchange cannot deadlock, whatever the sizes.
"""

from __future__ import annotations

import os
import socket
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Client, Connection, Listener
from typing import Callable

import numpy as np

from .shard_ops import Candidates

ARRAYS = ("fps", "parents", "codes")


def local_address(towards: tuple[str, int]) -> str:
    """This machine's address on the interface that reaches `towards` (the driver): one the
    other tasks can reach too. No packet is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(towards)
        return probe.getsockname()[0]


def no_delay(conn: Connection) -> Connection:
    """Turn off Nagle's algorithm on `conn`: a message goes out in several writes (header, then
    arrays), and with Nagle each small one waits for the peer's delayed acknowledgement (40 ms
    a level, measured)."""
    with socket.socket(fileno=os.dup(conn.fileno())) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def listener(host: str, tasks: int, authkey: bytes) -> Listener:
    """A listening socket for the peers of a search of `tasks` tasks, on a free port of `host`."""
    return Listener((host, 0), backlog=max(tasks, 1), authkey=authkey)


class Mesh:
    """Task `index`'s connections to every other task of the search (`addresses`, by task)."""

    def __init__(self, index: int, own: Listener, addresses: list[tuple[str, int]], authkey: bytes):
        self.index = index
        self.peers: dict[int, Connection] = {}
        for peer in range(index + 1, len(addresses)):
            conn = no_delay(Client(tuple(addresses[peer]), authkey=authkey))
            conn.send(index)
            self.peers[peer] = conn
        for _ in range(index):
            conn = no_delay(own.accept())
            self.peers[conn.recv()] = conn
        # one sender thread per peer keeps each peer's blocks in order; one reader thread per
        # peer drains what it sends, so that no sender ever waits on this task
        self.senders = {peer: ThreadPoolExecutor(1, thread_name_prefix=f"replcheck-send-{peer}") for peer in self.peers}
        self.readers = ThreadPoolExecutor(max(len(self.peers), 1), thread_name_prefix="replcheck-receive")

    def level(self, keep: Callable[[Candidates], None]) -> "LevelExchange":
        """Start one level's exchange: blocks go out as they are sent, and come in meanwhile,
        each handed to `keep` as it arrives (from a reader thread)."""
        return LevelExchange(self, keep)

    def close(self) -> None:
        """Close every connection."""
        for pool in (*self.senders.values(), self.readers):
            pool.shutdown(wait=False)
        for conn in self.peers.values():
            conn.close()


class LevelExchange:
    """One level's candidates between this task and its peers, a block at a time: `send` queues
    a block for a peer (blocks reach it in the order sent), each block a peer sends here goes to
    `keep` as it arrives (each peer's in the order sent), and `finish` says the level is over
    and waits until every block is sent and received."""

    def __init__(self, mesh: Mesh, keep: Callable[[Candidates], None]):
        self.mesh = mesh
        self.sent = []
        self.incoming = [mesh.readers.submit(_receive_level, conn, keep) for conn in mesh.peers.values()]

    def send(self, peer: int, block: Candidates) -> None:
        """Queue `block` for `peer`."""
        self.sent.append(self.mesh.senders[peer].submit(_send, self.mesh.peers[peer], block))

    def finish(self) -> None:
        """End the level: tell every peer, and wait until everything is sent and received."""
        for peer, conn in self.mesh.peers.items():
            self.sent.append(self.mesh.senders[peer].submit(_send, conn, None))
        for future in [*self.sent, *self.incoming]:
            future.result()


def _send(conn: Connection, block: Candidates | None) -> None:
    try:
        _write(conn, block)
    except BaseException:
        conn.close()  # the peer waiting for this block sees the connection end instead of waiting forever
        raise


def _write(conn: Connection, block: Candidates | None) -> None:
    if block is None:  # the level's end
        conn.send(None)
        return
    packed = isinstance(block.states, np.ndarray)
    conn.send((len(block.fps), block.states.shape[1:] if packed else None, None if packed else block.states))
    for name in ARRAYS:
        conn.send_bytes(_bytes(getattr(block, name)))
    if packed:
        conn.send_bytes(_bytes(block.states))


def _bytes(array: np.ndarray) -> memoryview:
    """The array's memory as flat bytes, without a copy where it is contiguous (a 2-D view would
    be sent as its number of rows)."""
    return memoryview(np.ascontiguousarray(array).view(np.uint8).reshape(-1))


def _receive_level(conn: Connection, keep: Callable[[Candidates], None]) -> None:
    """Hand every block a peer sends in one level to `keep`, in the order sent."""
    while (header := conn.recv()) is not None:
        keep(_receive(conn, header))


def _receive(conn: Connection, header) -> Candidates:
    n, row_shape, plain = header
    arrays = [np.frombuffer(conn.recv_bytes(), dtype) for dtype in Candidates.DTYPES]
    states = np.frombuffer(conn.recv_bytes(), np.int8).reshape((n, *row_shape)) if row_shape is not None else plain
    return Candidates(*arrays, states)
