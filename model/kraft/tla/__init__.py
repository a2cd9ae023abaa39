"""Variant `tla` of the `kraft` model: the steps of Jack Vanlightly's TLA+ specification of
KRaft (`KRaft.tla`, github Vanlightly/raft-tlaplus at 69ad9d6), one for one, so that the
distinct and generated state counts equal TLC's, compiled over packed states (docs/kernels.md):
each of `elections` and `replication` holds the specification's actions, named as it names
them, and `successors` is its Next.

Where the specification and Kafka part (a combined timeout-and-Vote step, a restart that
forgets a vote, no flush, no quorum-state file), this variant follows the specification:
docs/models/kraft.md lists the differences."""
