"""The faithful variants of the `kraft` model (kip595, kafka39, kip853): the steps of Kafka's
`raft` module (`KafkaRaftClient`, `QuorumState`, `LeaderState`, the leader-epoch cache), under
a rule set (`model.kraft.rules`), compiled over packed states (docs/kernels.md): `elections`,
`fetching` and `crashes` hold the steps, `quorum_state`, `leader_state`, `epoch_cache` and
`channels` what they share, and `successors` tries them all."""
