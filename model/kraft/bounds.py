"""The `kraft` model's bounds: how many controllers (and how many of them start as spares), client
values, elections, restarts, lost disks and voter changes; and how a lost disk is formatted again."""

from __future__ import annotations

from typing import NamedTuple

from ..params import Param, choice_param

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

FRESH, LISTED = "no-initial-controllers", "initial-controllers"
"""The choices of `--reformat`: the `kafka-storage format` flag a lost disk is formatted with
again."""

PARAMS = (
    Param("replicas", 3, 1, 5, "number of voters (KRaft controllers) in the quorum"),
    Param("max-records", 1, 1, 4, "how many distinct values clients can write"),
    Param("max-elections", 1, 0, 4, "how many elections (a voter's timeout and Vote requests) one behaviour may hold"),
    Param("max-restarts", 0, 0, 3, "how many voter restarts one behaviour may hold"),
    Param("max-disk-losses", 0, 0, 2, "how many voters may come back on a new, empty disk in one behaviour "
          "(faithful variants only)"),
    Param("spares", 0, 0, 4, "how many of the controllers start outside the voter set, formatted without the "
          "bootstrap voters, as observers an AddVoter can make voters (kip853, kafka40)"),
    Param("max-voter-changes", 0, 0, 4,
          "how many AddVoter and RemoveVoter operations one behaviour may hold (kip853, kafka40)"),
    choice_param("reformat", FRESH, (FRESH, LISTED),
                 "how a lost disk is formatted again (kip853, kafka40): no-initial-controllers, as Kafka's docs "
                 "format a controller joining a running cluster (a new directory id: an observer); "
                 "initial-controllers, the first format command again (a bootstrap voter gets its listed directory "
                 "id and the bootstrap checkpoint back: the same voter, empty)"),
)


class KRaftBounds(NamedTuple):
    """Bounds of one `kraft` exploration (see `PARAMS`)."""

    replicas: int
    max_records: int
    max_elections: int
    max_restarts: int
    max_disk_losses: int = 0
    spares: int = 0
    max_voter_changes: int = 0
    reformat: str = FRESH
