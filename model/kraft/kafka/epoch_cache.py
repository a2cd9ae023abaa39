"""Kafka's log arithmetic for the faithful variants, over packed logs: the leader-epoch cache's
answer to "where does epoch e end in my log", whether a follower's fetch position is valid, and
where a follower truncates on a diverging-epoch answer. Offsets are Kafka's: the first record
is at offset 0, and a log of length L ends at offset L (its LEO). A log's records carry their
epochs in order, so the cache (each epoch's start offset) is read off the log itself."""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..tla.layout import entry_epoch, last_epoch
from .layout import log_end


@kernel
def end_offset_for_epoch(s, lay, i, epoch):
    """(offset, epoch) as `KafkaMetadataLog.endOffsetForEpoch` answers for `epoch` on voter i's
    log (`LeaderEpochFileCache.endOffsetFor`): the log's latest epoch ends at the LEO; an epoch
    the log has, or falls between two it has, ends where the next one starts, with the epoch at
    or below it; an epoch below every cached one ends where the first starts; and where the
    cache has no answer (empty, or every epoch below `epoch`), the LEO and the log's last
    epoch."""
    end = log_end(s, lay, i)
    if end > 0 and last_epoch(s, lay, i) == epoch:
        return end, epoch
    for offset in range(end):
        if entry_epoch(s, lay, i, offset + 1) > epoch:
            return offset, entry_epoch(s, lay, i, offset) if offset > 0 else epoch
    return end, last_epoch(s, lay, i)


@kernel
def diverging(s, lay, i, fetch_offset, last_fetched_epoch):
    """`ReplicatedLog.validateOffsetAndEpoch` on leader i's log: (-1, -1) when a follower whose
    log ends at `fetch_offset` with `last_fetched_epoch` continues it (offset 0 always does),
    else the (offset, epoch) where the follower's last epoch ends in the leader's log, for it to
    truncate to."""
    if fetch_offset == 0:
        return -1, -1
    offset, epoch = end_offset_for_epoch(s, lay, i, last_fetched_epoch)
    if epoch != last_fetched_epoch or offset < fetch_offset:
        return offset, epoch
    return -1, -1


@kernel
def truncation_offset(s, lay, i, offset, epoch):
    """`ReplicatedLog.truncateToEndOffset`: where follower i cuts its log on the leader's
    diverging (offset, epoch): at that offset or the end of that epoch in its own log, whichever
    is first, when it has that epoch; else at the end of the last epoch it has below it."""
    if epoch == 0:
        return min(offset, log_end(s, lay, i))
    local_offset, local_epoch = end_offset_for_epoch(s, lay, i, epoch)
    return min(local_offset, offset) if local_epoch == epoch else local_offset
