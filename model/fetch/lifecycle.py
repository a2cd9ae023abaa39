"""Brokers crashing and restarting, flushing their log and checkpointing their HW."""

from __future__ import annotations

from .bounds import FetchConfig
from .state import NONE, NO_EPOCH, NO_FETCH, FetchState, with_broker


def crash(state: FetchState, config: FetchConfig):
    """Broker r crashes: all memory state is lost, and so is the unflushed tail of its log (with
    its epoch-cache entries); in-flight fetches to, from and of r, and the LeaderAndIsr requests
    it had not handled, are dropped."""
    if state.crashes >= config.max_crashes:
        return
    for r, b in enumerate(state.brokers):
        if not b.alive:
            continue
        log = b.log[:b.flushed]
        cache = tuple(entry for entry in b.cache if entry[1] < len(log))
        dead = b._replace(alive=False, log=log, cache=cache, hw=0, epoch=NO_EPOCH, leader=NONE, isr=0,
                          remote=(-1,) * config.replicas, fetch=NO_FETCH, inbox=())
        after = with_broker(state, r, dead)
        for f, other in enumerate(after.brokers):
            if other.fetch and other.fetch.leader == r:
                after = with_broker(after, f, other._replace(fetch=NO_FETCH))
        yield ("Crash", r), after._replace(crashes=state.crashes + 1)


def restart(state: FetchState, config: FetchConfig):
    """Broker r restarts from disk: HW = min(checkpointed HW, LEO); it knows no epoch or leader
    until a LeaderAndIsr request reaches it."""
    for r, b in enumerate(state.brokers):
        if not b.alive:
            yield ("Restart", r), with_broker(state, r, b._replace(alive=True, hw=min(b.checkpoint, b.leo)))


def checkpoint_hw(state: FetchState, config: FetchConfig):
    """A live broker writes its HW to its checkpoint file (Kafka does it periodically)."""
    for r, b in enumerate(state.brokers):
        if b.alive and b.checkpoint != b.hw:
            yield ("CheckpointHw", r), with_broker(state, r, b._replace(checkpoint=b.hw))


def flush(state: FetchState, config: FetchConfig):
    """Under flush=async, a live broker flushes its page cache: its whole log is on disk."""
    if config.flush != "async":
        return
    for r, b in enumerate(state.brokers):
        if b.alive and b.flushed < b.leo:
            yield ("Flush", r), with_broker(state, r, b._replace(flushed=b.leo))

