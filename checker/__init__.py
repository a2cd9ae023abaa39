"""Generic explicit-state model checking: breadth-first exploration, invariants, shortest traces.

Nothing in this package knows about Kafka. A model is anything that satisfies
`checker.model.Model`; an invariant is a named predicate over its states.

The rooms (docs/architecture.md draws them; tests/test_architecture.py holds them to it):

- the generic search: this package's modules, `kernel` (compiled search) and `checkpoint`.
  They may import each other, `traces.trace` and the models' common machinery
  (`model.params`, `model.rules`, `model.registry`, `invariants.registry`), never a model.
- rooms built on it: `simulation` (random walks), `spark` (the Spark engine; it may import
  `simulation`) and `ci` (JUnit reports, manifests of expected verdicts).
- `jobs` puts those rooms together: it chooses an engine, runs searches on it (many side by
  side for an ablation) and reports an analysis as JUnit.
- `commands`: each command's body, the command line's room; it may import everything,
  models included, and nothing outside `cli.py` and `benchmarks` imports it.
"""
