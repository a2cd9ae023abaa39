"""Generic explicit-state model checking: breadth-first exploration, invariants, shortest traces.

Nothing in this package knows about Kafka. A model is anything that satisfies
`checker.model.Model`; an invariant is a named predicate over its states.
"""
