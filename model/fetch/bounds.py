"""The `fetch` model's bounds and configuration."""

from __future__ import annotations

from typing import NamedTuple

from ..params import Param, choice_param, flag_param

PARAMS = (
    Param("replicas", 2, 1, 5, "number of replicas of the partition"),
    Param("log-size", 2, 1, 6, "the most records one replica's log can hold"),
    Param("max-records", 2, 1, 8, "how many producer writes can happen in one behaviour"),
    Param("max-epoch", 2, 1, 8, "highest leader epoch the controller may hand out (epoch 0 is the first leader's)"),
    Param("max-crashes", 2, 0, 6, "how many broker crashes one behaviour may contain"),
    Param("max-fencings", 0, 0, 3, "how many times the controller may fence a live broker (a missed heartbeat, an "
          "expired session): it fails the broker while it still runs, and takes it back when it registers again"),
    Param("max-disk-losses", 0, 0, 3, "how many crashed brokers may restart on an empty disk (log, epoch cache and HW "
          "checkpoint gone: a replaced disk); each also needs a crash"),
    choice_param("acks", "all", ("0", "1", "all"), "producer acks: 0 (no answer), 1 (leader append), all (HW)"),
    Param("min-insync-replicas", 2, 1, 5, "min.insync.replicas: acks=all needs an ISR at least this large"),
    flag_param("unclean-leader-election", False, "elect a live replica outside the ISR when no ISR member is alive"),
    flag_param("controlled-shutdown", False, "a broker may stop by a controlled shutdown: the controller moves its "
               "leadership and drops it from the ISR first, then it flushes and stops (each one a crash's worth)"),
    choice_param("flush", "sync", ("sync", "async"), "sync: every append is on disk; async: only after a Flush step"),
    choice_param("quorum", "isr", ("isr", "majority", "majority-naive"),
                 "isr: Kafka's ISR and controller; majority: Raft/KRaft votes and majority commit; majority-naive: "
                 "majority commit without Raft's own-epoch rule"),
    flag_param("retries", False, "the producer retries a failed or unanswered request (each record is a request, its "
               "answer may be lost); off: one atomic ProducerWrite per record"),
    Param("max-in-flight", 1, 1, 3, "max.in.flight.requests.per.connection: records sent and not yet acknowledged "
          "(with --retries)"),
    flag_param("idempotence", False, "KIP-98's idempotent producer: the leader refuses a sequence gap and drops a "
               "duplicate (with --retries)"),
)


class FetchConfig(NamedTuple):
    """Bounds and configuration of one `fetch` exploration (see `PARAMS`)."""

    replicas: int
    log_size: int
    max_records: int
    max_epoch: int
    max_crashes: int
    acks: str
    min_insync_replicas: int
    unclean_leader_election: bool
    flush: str
    quorum: str = "isr"
    retries: bool = False
    max_in_flight: int = 1
    idempotence: bool = False
    max_disk_losses: int = 0
    controlled_shutdown: bool = False
    max_fencings: int = 0
