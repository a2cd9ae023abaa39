"""What one task of the Spark engine runs: a shard of the breadth-first search that lives as
long as the search.

The search is one barrier stage of T tasks. Task t owns the states whose fingerprint fp has
`owner(fp) == t`: it keeps their fingerprints in its visited set, the states of the current
level in its frontier, and each level's route (parent fingerprint and action code per state) in
a file of its own, for the traces. The driver (`checker.spark.coordinator`) never sees a state
set; per level it sends an order and receives one report from each task.

Messages, task to driver then driver to task, each a tuple whose first item names it:

    ("hello", task, pid, (host, port))          once: who it is, where its peers reach it
    ("failed", reason)                          instead of any answer: the task failed (not lost)
    (addresses, start)                          once: every task's address; "fresh" or a checkpoint to resume
    ("level", depth, save_frontier)             expand the frontier into level `depth`
      -> LevelReport
    ("save-frontier", depth)                    save the frontier (of level `depth`) in the checkpoint
      -> "saved"
    ("routes", depth, fps)                      the parent and action code of these states of level `depth`
      -> {fp: (parent fp, code)}
    ("finish",)                                 the search is over: clean up and end

A level: expand the frontier, keep the successors this task owns and has not visited, send the
others to their owners, receive theirs, and admit everything in ascending parent order
(`checker.spark.shard_ops` says why that is the engines' tie rule).
"""

from __future__ import annotations

import ctypes
import gc
import os
import shutil
import tempfile
import threading
import time
from multiprocessing.connection import Client
from typing import NamedTuple

import numpy as np

from ..coverage import empty_counts, new_counts
from ..checkpoint import files
from .peer_exchange import Mesh, listener, local_address, no_delay
from ..kernel.sorted_runs import KEY, SortedRuns
from .shard_ops import (STATES, Candidates, candidate_records, candidates_of, frontier_records, joined_states,
                        shard_ops, states_of, take_states)


class LevelReport(NamedTuple):
    """One task's share of a level: new states, successors generated, states expanded, its
    coverage counts (`checker.coverage`: steps fired per action kind and actor, states in which
    each was enabled, the guards' tally, new states per action kind and actor), per invariant
    the smallest new violating fingerprint, per step property the smallest breaking (parent
    fingerprint, action), its visited-set size, seconds of its own work (waiting for peers left
    out), and seconds by phase (`PHASES`)."""

    new: int
    generated: int
    expanded: int
    fired: np.ndarray
    enabled: np.ndarray
    tally: np.ndarray
    new_counts: np.ndarray
    violations: dict
    broken: dict
    visited: int
    seconds: float
    phases: tuple


PHASES = ("expand", "split", "exchange", "admit", "write")
"""A level's phases in a task: expanding its frontier; splitting the successors by owner (and
dropping those it has visited) and queueing them for their owners; finishing the exchange
(mostly waiting for the slowest peer); admitting the candidates it owns; writing its routes."""


def owner(fps, partitions: int, tasks: int):
    """The task that owns fingerprint(s) `fps`: the fingerprint's shard (fp mod `partitions`),
    spread over the tasks."""
    return (fps % partitions) % tasks


def search_task(records, *, coordinator, authkey: bytes, tasks: int, partitions: int, model, properties,
                symmetry: bool, journal: str | None, work_dir: str | None, memory_budget: int | None = None):
    """The body of one barrier task (its one record is its task number): connect to the driver
    at `coordinator` and to the other tasks, then serve the driver's orders until it says the
    search is over. Each task has a scratch directory under `work_dir` (or Spark's local
    directory), removed when it ends, for its routes and, past `memory_budget` bytes of
    visited set, its spilled runs. With `journal` (a checkpoint directory every task reaches)
    each level's routes are written there instead, and frontiers when asked."""
    (index,) = list(records)  # read to the end, or Spark will not reuse this Python worker
    gc.disable()  # states and arrays are acyclic: a collection would only cost time
    gc.freeze()
    return_big_blocks_to_the_system()
    conn = no_delay(Client(tuple(coordinator), authkey=authkey))
    own = listener(local_address(tuple(coordinator)), tasks, authkey)
    scratch = mesh = None
    try:
        scratch = tempfile.mkdtemp(prefix="replcheck-task-", dir=_local_dir(work_dir))
        conn.send(("hello", index, os.getpid(), own.address))
        addresses, start = conn.recv()
        mesh = Mesh(index, own, addresses, authkey)
        own.close()
        ops = shard_ops(model, properties, symmetry, memory_budget, scratch)
        shard = Shard(index, tasks, partitions, ops, mesh, journal if journal is not None else scratch, journal)
        shard.start(start)
        while (order := conn.recv())[0] != "finish":
            if order[0] == "level":
                conn.send(shard.level(order[1], order[2]))
            elif order[0] == "save-frontier":
                shard.save_frontier(order[1])
                conn.send("saved")
            elif order[0] == "routes":
                conn.send(files.find_routes(shard.routes, order[1], order[2]))
    except (EOFError, ConnectionError):
        raise  # the driver or a peer is gone: nothing to tell
    except Exception as exc:  # this task's own failure: the driver reports it rather than trying again
        _tell(conn, ("failed", f"{type(exc).__name__}: {exc}"))
        raise
    finally:
        if mesh is not None:
            mesh.close()
        own.close()
        conn.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    yield index


M_MMAP_THRESHOLD = -3
"""glibc's mallopt parameter: allocations at least this large are mapped, and unmapped when freed."""


def return_big_blocks_to_the_system() -> None:
    """Make every allocation of 1 MiB or more a memory mapping of its own (glibc), so that the
    memory of a freed chunk of candidates goes back to the system at once. By default glibc
    raises that threshold as big blocks are freed and serves later ones from per-thread heaps
    that keep the memory: with the exchange's reader threads that doubled a task's resident
    memory on the fetch model (3.5 GB against 1.7 GB per task at 40 M states). No effect where
    the C library is not glibc."""
    try:
        ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, 1 << 20)
    except (OSError, AttributeError):
        pass


def _tell(conn, message) -> None:
    try:
        conn.send(message)
    except OSError:
        pass


def warm_up(records):
    """A task that only imports what a search task needs (numba and the kernels' support
    included), in a Python worker that Spark then reuses for the search."""
    list(records)
    from ..kernel import expansion, visited_set  # noqa: F401 (imported for their start-up cost)
    from model.registry import preload

    preload()

    yield os.getpid()


def _local_dir(work_dir: str | None) -> str | None:
    """Where a task keeps its scratch files: `work_dir`, else the first of Spark's local
    directories for this executor (Spark removes them with the executor)."""
    if work_dir is not None:
        os.makedirs(work_dir, exist_ok=True)
        return work_dir
    local = os.environ.get("SPARK_LOCAL_DIRS")
    return local.split(",")[0] if local else None


class Shard:
    """Task `index`'s part of the search: its visited set and frontier (`ops`), its connections
    to the other tasks (`mesh`), and the directory its routes go to (`routes`)."""

    def __init__(self, index: int, tasks: int, partitions: int, ops, mesh: Mesh, routes: str, journal: str | None):
        self.index, self.tasks, self.partitions = index, tasks, partitions
        self.ops, self.mesh, self.routes, self.journal = ops, mesh, routes, journal
        self.frontier = ops.store()

    def mine(self, fps: np.ndarray) -> np.ndarray:
        """Which of `fps` this task owns."""
        return owner(fps, self.partitions, self.tasks) == self.index

    def start(self, start) -> None:
        """Take this task's initial states (`start` is "fresh"), or its share of a checkpoint's
        visited states and frontier (`start` is ("resume", directory, depth, has frontier, parts
        per level))."""
        if start == "fresh":
            fps, states = self.ops.initial()
            at = np.flatnonzero(self.mine(fps))
            self.ops.admit(fps[at])
            self.frontier.add(frontier_records(fps[at], take_states(states, at)))
            return
        _, directory, depth, has_frontier, parts = start
        for d, count in enumerate(parts):
            fps = files.read_level(directory, d, count).fps
            self.ops.admit(fps[self.mine(fps)])
        if has_frontier:
            fps, states = files.read_frontier(directory, depth, self.ops.width)
            at = np.flatnonzero(self.mine(fps))
            self.frontier.add(frontier_records(fps[at], take_states(states, at)))

    def level(self, depth: int, save_frontier: bool) -> LevelReport:
        """Expand the frontier into level `depth` together with the other tasks, a chunk of
        `ops.chunk` states at a time in ascending fingerprint order, each chunk's candidates sent to
        their owners as soon as it is expanded; the candidates this task owns (its own and
        those received) are kept in a store keyed by parent, then admitted in ascending parent
        order, and the new states become its frontier. Under a memory budget the frontier and
        the candidates pass the budget into sorted runs on disk (`SortedRuns`), and are read
        back a slice at a time."""
        ops, seconds = self.ops, dict.fromkeys(PHASES, 0.0)
        clock = time.perf_counter()

        def lap(phase: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            seconds[phase] += now - clock
            clock = now

        frontier, self.frontier = self.frontier, ops.store()
        expanding = len(frontier)
        seen = ops.level_set(expanding)
        candidates, lock = ops.store(), threading.Lock()

        def keep(block: Candidates) -> None:  # from this thread and the exchange's readers
            with lock:
                candidates.add(candidate_records(block))

        exchange = self.mesh.level(keep)
        generated, fired, enabled, tally, broken = self._expand(frontier, seen, keep, exchange, lap)
        frontier.close()
        del seen
        exchange.finish()
        lap("exchange")
        new = self._admitted(candidates)
        candidates.close()
        lap("admit")
        files.write_level_part(self.routes, depth, self.index, new.fps, new.parents, new.codes)
        if save_frontier:
            self.save_frontier(depth)
        by_kind = new_counts(ops.kind_of(new.codes), ops.actor_of(new.codes), ops.kinds)
        lap("write")
        return LevelReport(len(new.fps), generated, expanding, fired, enabled, tally, by_kind, new.violations, broken,
                           len(ops), sum(seconds.values()) - seconds["exchange"], tuple(seconds[phase] for phase in PHASES))

    def _expand(self, frontier: SortedRuns, seen, keep, exchange, lap) -> tuple:
        """Expand the `frontier` (consumed) a chunk at a time in ascending fingerprint order:
        each chunk's successors not yet `seen` this level go to their owners, this task's own
        (those it has not visited) to `keep`. Returns the successors generated, the coverage
        counts (steps fired, states enabled, the guards' tally) and per broken step property
        its smallest (parent fingerprint, action)."""
        ops = self.ops
        generated, broken = 0, {}
        fired, enabled = empty_counts(ops.kinds)
        tally = ops.tally()
        for part in frontier.in_key_order(ops.chunk, consume=True):
            expanded = ops.expand(part[KEY], states_of(part[STATES]), seen)
            generated, fired, enabled = (generated + expanded.generated, fired + expanded.fired,
                                         enabled + expanded.enabled)
            tally += expanded.tally
            for name, step in expanded.broken.items():
                broken[name] = min(step, broken.get(name, step))
            lap("expand")
            blocks = self._by_owner(expanded.candidates)
            mine = blocks[self.index]
            keep(mine.take(np.flatnonzero(~ops.known(mine.fps))))  # visited here: nothing to decide
            for peer in self.mesh.peers:
                exchange.send(peer, blocks[peer])
            lap("split")
        return generated, fired, enabled, tally, broken

    def _by_owner(self, found: Candidates) -> list[Candidates]:
        """`found` split by owning task, each part in its original (ascending parent) order."""
        owners = owner(found.fps, self.partitions, self.tasks).astype(np.uint16)
        order = np.argsort(owners, kind="stable")  # a radix sort, for 16-bit keys
        grouped = found.take(order)
        bounds = np.searchsorted(owners[order], np.arange(self.tasks + 1)).tolist()
        return [grouped.part(lo, hi) for lo, hi in zip(bounds, bounds[1:])]

    def _admitted(self, candidates: SortedRuns) -> "Admitted":
        """Admit the `candidates` (consumed) in ascending parent order, so that each new state
        keeps its smallest (parent, action): each block a task sent is in ascending parent
        order, a parent's successors are all in one block, and the store reads back in key
        order, stable within a key. The new states join the next frontier; their routes, and
        per invariant the smallest new violating fingerprint, are returned."""
        ops = self.ops
        fps, parents, codes, violations = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.uint16)], {}
        for records, order in candidates.sorted_slices(consume=True):
            at = np.sort(order[ops.admit(records.column("fps")[order])])  # the new ones, gathered as they lie
            new = candidates_of(records.take(at))
            fps.append(new.fps)
            parents.append(new.parents)
            codes.append(new.codes)
            self.frontier.add(frontier_records(new.fps, new.states))
            for name, hit in ops.violated(new.states).items():
                if hit.any():
                    violations[name] = min(int(new.fps[hit].min()), violations.get(name, _NONE))
        return Admitted(np.concatenate(fps), np.concatenate(parents), np.concatenate(codes), violations)

    def save_frontier(self, depth: int) -> None:
        """Save this task's frontier as its part of the checkpoint's frontier at `depth` (read
        whole into memory for it, even where it is on disk)."""
        parts = list(self.frontier.in_key_order())
        fps = np.concatenate([part[KEY] for part in parts]) if parts else np.zeros(0, np.int64)
        states = joined_states([states_of(part[STATES]) for part in parts]) if parts else self.ops.empty()
        files.write_frontier_part(self.journal, depth, self.index, fps, states)


class Admitted(NamedTuple):
    """A task's new states of one level: their fingerprints, parents' fingerprints and action
    codes (its routes), and per invariant the smallest new fingerprint that violates it."""

    fps: np.ndarray
    parents: np.ndarray
    codes: np.ndarray
    violations: dict


_NONE = np.iinfo(np.int64).max

