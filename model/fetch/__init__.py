"""The `fetch` model: Kafka replication as operators see it (FETCH requests and responses,
remote LEOs, acks and min.insync.replicas, crashes, flushes, HW checkpoints, unclean election).

The rules are compiled kernels over packed states. `layout` declares the packed row and its
accessors, `codec` maps it to and from the readable `state`, and one module per protocol
concern holds one kernel per action: `producer`, `replication` (fetch), `isr`, `controller`
(noticing brokers, elections), `lifecycle` (crash, restart, flush, checkpoint) and `leadership`
(LeaderAndIsr handling), with `hw` (how a leader's HW moves), `truncation` (where a follower
truncates), `rules` (the protocol rules, their choices, and the variants as presets of them),
`rule_kernels` (what each choice means, as the kernel asks it) and `ghost` (acked and committed
records, for the invariants).
`successors` runs every action, `symmetry` renames replicas, `kernel` is what the compiled
search imports, and `model` is the checker's view of it all; `bounds`, `kinds`, `words` and
`json_state` name and show things; `tradeoffs` asks the model how Kafka's ISR weighs
against a majority quorum.
"""
