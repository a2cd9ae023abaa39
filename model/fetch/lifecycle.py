"""Brokers crashing and restarting, flushing their log and checkpointing their HW."""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds
from checker.kernel.steps import action_code, emit

from .guards import (CHECKPOINT_ALIVE, CHECKPOINT_CHANGED, CLEAN_SHUTDOWNS_LEFT, CLEAN_SHUTDOWN_ALIVE,
                     CLEAN_SHUTDOWN_ELR, CRASHES_LEFT, CRASH_ALIVE, DISK_LOSSES_LEFT, FLUSH_ALIVE, FLUSH_ASYNC,
                     FLUSH_UNFLUSHED, RESTART_DOWN, RESTART_EMPTY_DOWN)
from .kinds import CHECKPOINT_HW, CLEAN_SHUTDOWN, CRASH, FLUSH, RESTART, RESTART_EMPTY
from .layout import (CLEAN_STOP, IDLE, UNCLEAN_STOP, alive, cache_trim, checkpoint, clear_fetch, controller_offline,
                     count_crash, count_disk_loss, crashes, disk_losses, drop_requests_up_to, fetch_kind, fetch_leader,
                     flushed, hw, leo, member, set_alive, set_checkpoint, set_flushed, set_hw, set_last_stop,
                     set_remote_leo, set_view, truncate)
from .retries import close_connections
from .state import NO_EPOCH, NONE
from .rule_kernels import bounce_missed, eligible_leaders


@kernel
def lose_memory(t, lay, r):
    """Broker r goes down: what was only in its page cache (the unflushed tail of its log, with
    its epoch-cache entries) and all its memory state (HW, epoch, leader, ISR, remote LEOs, its
    in-flight fetch, its unhandled LeaderAndIsr requests) are gone. Kafka 0.10 to 2.1's controller
    (`rule_kernels.bounce_missed`) resends what r had not answered to r's next incarnation, until
    it sees r dead: those requests stay in r's inbox while the controller counts r alive."""
    set_alive(t, lay, r, False)
    kept = flushed(t, lay, r)
    truncate(t, lay, r, kept)
    cache_trim(t, lay, r, kept)
    set_hw(t, lay, r, 0)
    set_view(t, lay, r, NO_EPOCH, NONE, 0)
    for f in range(lay.replicas):
        set_remote_leo(t, lay, r, f, -1)
    clear_fetch(t, lay, r)
    if not bounce_missed(lay) or member(controller_offline(t, lay), r):
        drop_requests_up_to(t, lay, r, lay.max_epoch)


@kernel
def go_down(t, lay, r, how):
    """Broker r stops (`how`: CLEAN_STOP or UNCLEAN_STOP, which kip966's controller learns when r
    registers again): it loses its memory and its unflushed records, and in-flight fetches and
    produce requests to r are dropped. Every stop counts against --max-crashes."""
    lose_memory(t, lay, r)
    for f in range(lay.replicas):
        if fetch_kind(t, lay, f) != IDLE and fetch_leader(t, lay, f) == r:
            clear_fetch(t, lay, f)
    close_connections(t, lay, r)
    count_crash(t, lay)
    if eligible_leaders(lay):
        set_last_stop(t, lay, r, how)


@kernel
def crash(s, lay, out, acts, tally, n):
    """Broker r crashes (while crashes remain in the bounds): an unclean shutdown, with no
    clean-shutdown marker left on disk."""
    if not holds(tally, CRASHES_LEFT, crashes(s, lay) < lay.max_crashes):
        return n
    for r in range(lay.replicas):
        if holds(tally, CRASH_ALIVE, alive(s, lay, r)):
            t = emit(s, out, acts, n, action_code(CRASH, r, 0, 0))
            go_down(t, lay, r, UNCLEAN_STOP)
            n += 1
    return n


@kernel
def clean_shutdown(s, lay, out, acts, tally, n):
    """Under kip966, broker r shuts down cleanly (while stops remain in the bounds): it flushes
    its log, checkpoints its HW and leaves the clean-shutdown marker, which its registration
    will show the controller. (Elsewhere nothing reads the marker, and Flush, CheckpointHw and
    Crash reach the same states.)"""
    if not (holds(tally, CLEAN_SHUTDOWN_ELR, eligible_leaders(lay))
            and holds(tally, CLEAN_SHUTDOWNS_LEFT, crashes(s, lay) < lay.max_crashes)):
        return n
    for r in range(lay.replicas):
        if holds(tally, CLEAN_SHUTDOWN_ALIVE, alive(s, lay, r)):
            t = emit(s, out, acts, n, action_code(CLEAN_SHUTDOWN, r, 0, 0))
            set_flushed(t, lay, r, leo(t, lay, r))
            set_checkpoint(t, lay, r, hw(t, lay, r))
            go_down(t, lay, r, CLEAN_STOP)
            n += 1
    return n


@kernel
def restart(s, lay, out, acts, tally, n):
    """Broker r restarts from disk: HW = min(checkpointed HW, LEO); it knows no epoch or leader
    until a LeaderAndIsr request reaches it."""
    for r in range(lay.replicas):
        if holds(tally, RESTART_DOWN, not alive(s, lay, r)):
            t = emit(s, out, acts, n, action_code(RESTART, r, 0, 0))
            set_alive(t, lay, r, True)
            set_hw(t, lay, r, min(checkpoint(s, lay, r), leo(s, lay, r)))
            n += 1
    return n


@kernel
def restart_empty(s, lay, out, acts, tally, n):
    """Broker r restarts on an empty disk (while disk losses remain in the bounds): its log
    directory was lost or replaced, so it comes back with no records, no epoch cache, HW 0 and no
    clean-shutdown marker, under the same broker id (KIP-903's story, KAFKA-14139). Kafka
    recreates the partition's log empty (`LogManager.getOrCreateLog`) and the broker registers
    with a new broker epoch like any restart."""
    if not holds(tally, DISK_LOSSES_LEFT, disk_losses(s, lay) < lay.max_disk_losses):
        return n
    for r in range(lay.replicas):
        if holds(tally, RESTART_EMPTY_DOWN, not alive(s, lay, r)):
            t = emit(s, out, acts, n, action_code(RESTART_EMPTY, r, 0, 0))
            set_alive(t, lay, r, True)
            truncate(t, lay, r, 0)
            cache_trim(t, lay, r, 0)
            set_flushed(t, lay, r, 0)
            set_checkpoint(t, lay, r, 0)
            set_hw(t, lay, r, 0)
            if eligible_leaders(lay):
                set_last_stop(t, lay, r, UNCLEAN_STOP)
            count_disk_loss(t, lay)
            n += 1
    return n


@kernel
def checkpoint_hw(s, lay, out, acts, tally, n):
    """A live broker writes its HW to its checkpoint file (Kafka does it periodically)."""
    for r in range(lay.replicas):
        if holds(tally, CHECKPOINT_ALIVE, alive(s, lay, r)) and holds(tally, CHECKPOINT_CHANGED,
                                                                       checkpoint(s, lay, r) != hw(s, lay, r)):
            t = emit(s, out, acts, n, action_code(CHECKPOINT_HW, r, 0, 0))
            set_checkpoint(t, lay, r, hw(s, lay, r))
            n += 1
    return n


@kernel
def flush(s, lay, out, acts, tally, n):
    """Under flush=async, a live broker flushes its page cache: its whole log is on disk."""
    if not holds(tally, FLUSH_ASYNC, lay.flush_async):
        return n
    for r in range(lay.replicas):
        if holds(tally, FLUSH_ALIVE, alive(s, lay, r)) and holds(tally, FLUSH_UNFLUSHED,
                                                                  flushed(s, lay, r) < leo(s, lay, r)):
            t = emit(s, out, acts, n, action_code(FLUSH, r, 0, 0))
            set_flushed(t, lay, r, leo(s, lay, r))
            n += 1
    return n
