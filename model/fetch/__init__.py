"""The `fetch` model: Kafka replication as operators see it (FETCH requests and responses,
remote LEOs, acks and min.insync.replicas, crashes, flushes, HW checkpoints, unclean election).

Modules follow the protocol's concerns: `state`, `bounds`, `hw` (how a leader's HW moves),
`producer`, `replication` (fetch), `isr`, `controller`, `lifecycle` (crash, restart, flush,
checkpoint), `leadership` (LeaderAndIsr handling, with each variant's truncation in `truncation`),
`ghost` (acked and committed records, for the invariants) and `model`.
"""
