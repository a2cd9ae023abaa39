"""Output for continuous integration: JUnit XML reports of verdicts (`junit`) and manifests of
expected verdicts that `replcheck verify` checks (`manifest`).

May import: the generic checker, the registries of models and invariants (`model.registry`,
`invariants.registry`, `model.rules`) and `traces`; never a model package itself, an engine
room or the command line.
"""
