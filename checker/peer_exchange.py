"""Moving candidates between the Spark engine's tasks, directly, without Spark's shuffle.

The tasks of one search run at the same time (a barrier stage), so each can listen on a port of
its own and reach every other: task t connects to each task above it and accepts one connection
from each task below it, and these connections carry every level's candidates. They are
`multiprocessing.connection` connections: framed messages, and a handshake on a secret shared
by the search (HMAC), so nothing else on the network can join or feed the search.

A level's exchange sends each peer its block from a thread of its own while the task reads the
blocks sent to it one peer after the other. Every sender has its own connection and no reader
ever waits on a send, so the exchange cannot deadlock, whatever the sizes.
"""

from __future__ import annotations

import os
import socket
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Client, Connection, Listener

import numpy as np

from .shard_ops import Candidates

ARRAYS = ("fps", "parents", "codes", "viol")


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
        self.senders = ThreadPoolExecutor(max_workers=max(len(self.peers), 1), thread_name_prefix="replcheck-send")

    def exchange(self, outgoing: dict[int, Candidates]) -> list[Candidates]:
        """Send each peer its block (`outgoing[peer]`) and return the blocks the peers sent here,
        in peer order."""
        sent = [self.senders.submit(_send, conn, outgoing[peer]) for peer, conn in self.peers.items()]
        received = [_receive(self.peers[peer]) for peer in sorted(self.peers)]
        for future in sent:
            future.result()
        return received

    def close(self) -> None:
        """Close every connection."""
        self.senders.shutdown(wait=False)
        for conn in self.peers.values():
            conn.close()


def _send(conn: Connection, block: Candidates) -> None:
    try:
        _write(conn, block)
    except BaseException:
        conn.close()  # the peer waiting for this block sees the connection end instead of waiting forever
        raise


def _write(conn: Connection, block: Candidates) -> None:
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


def _receive(conn: Connection) -> Candidates:
    n, row_shape, plain = conn.recv()
    arrays = [np.frombuffer(conn.recv_bytes(), dtype) for dtype in (np.int64, np.int64, np.uint16, np.int64)]
    states = np.frombuffer(conn.recv_bytes(), np.int8).reshape((n, *row_shape)) if row_shape is not None else plain
    return Candidates(*arrays, states)
