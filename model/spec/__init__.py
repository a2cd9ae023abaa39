"""The `spec` model: Kafka partition replication at the level of the public TLA+ specification.

The modules follow the specification's own split: `state` (the variables), `bounds`,
`controller` and `leader` (actions every variant shares), then one module per variant that
states only what its KIP changed (`hw`, `kip101`, `kip279`, `kip320`).
"""
