"""Kafka's log arithmetic for the faithful variants: the leader-epoch cache's answer to "where
does epoch e end in my log", whether a follower's fetch position is valid, and where a follower
truncates on a diverging-epoch answer. Offsets are Kafka's: the first entry is at offset 0, and
a log of length L ends at offset L (its LEO); a log's entries are (epoch, value) pairs, so the
cache (each epoch's start offset) is read off the log itself.
"""

from __future__ import annotations

from .state import last_epoch

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _starts(log: tuple) -> list[tuple[int, int]]:
    """The epoch cache: (epoch, start offset) for each epoch of the log, oldest first."""
    starts: list[tuple[int, int]] = []
    for offset, (epoch, _) in enumerate(log):
        if not starts or starts[-1][0] != epoch:
            starts.append((epoch, offset))
    return starts


def end_offset_for_epoch(log: tuple, epoch: int) -> tuple[int, int]:
    """(offset, epoch) as `KafkaMetadataLog.endOffsetForEpoch` answers for `epoch`
    (`LeaderEpochFileCache.endOffsetFor`): the log's latest epoch ends at the LEO; an epoch the
    log has, or falls between two it has, ends where the next one starts, with the epoch at or
    below it; an epoch below every cached one ends where the first starts; and where the cache
    has no answer (empty, or every epoch below `epoch`), the LEO and the log's last epoch."""
    starts = _starts(log)
    if starts and starts[-1][0] == epoch:
        return len(log), epoch
    higher = next(((e, start) for e, start in starts if e > epoch), None)
    if higher is None:
        return len(log), last_epoch(log)
    floor = [e for e, _ in starts if e <= epoch]
    return higher[1], floor[-1] if floor else epoch


def diverging(log: tuple, fetch_offset: int, last_fetched_epoch: int) -> tuple[int, int] | None:
    """`ReplicatedLog.validateOffsetAndEpoch` on the leader's log: None when a follower whose log
    ends at `fetch_offset` with `last_fetched_epoch` continues it (offset 0 always does), else
    the (offset, epoch) where the follower's last epoch ends in the leader's log, for it to
    truncate to."""
    if fetch_offset == 0:
        return None
    end = end_offset_for_epoch(log, last_fetched_epoch)
    return end if end[1] != last_fetched_epoch or end[0] < fetch_offset else None


def truncation_offset(log: tuple, offset: int, epoch: int) -> int:
    """`ReplicatedLog.truncateToEndOffset`: where a follower cuts its log on the leader's
    diverging (offset, epoch): at that offset or the end of that epoch in its own log, whichever
    is first, when it has that epoch; else at the end of the last epoch it has below it."""
    if epoch == 0:
        return min(offset, len(log))
    local_offset, local_epoch = end_offset_for_epoch(log, epoch)
    return min(local_offset, offset) if local_epoch == epoch else local_offset
