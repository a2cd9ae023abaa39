"""The `kraft` model: KRaft, the Raft variant that replicates Kafka's `__cluster_metadata` log
among the controllers (KIP-595). Voters elect a leader by Vote requests, followers pull the log
with FETCH, a diverging-epoch answer makes a follower truncate, and the leader's high watermark
is the offset a majority of voters has fetched.

Variant `tla` takes exactly the steps of Jack Vanlightly's public TLA+ specification of KRaft
(`KRaft.tla`), message bag included, so that its counts can be set against TLC's."""

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""
