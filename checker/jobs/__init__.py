"""Searches run on the engine the user chose: the room between the engine rooms and the command
line.

`engines` chooses an engine (the one-process search in `checker.local`, or `checker.spark`) and
opens a session of it for a search or a simulation; `search_jobs` runs many independent small
searches side by side, one to a Spark task or one after another in this process; `ablation`
finds which of a variant's rules a guarantee needs with such searches, and `ablation_report`
writes its tables, JSON and JUnit testsuites.

May import: the generic checker and the engine rooms (`checker.spark`, `checker.simulation`,
`checker.ci`), the registries of models and invariants (`model.registry`, `model.rules`,
`invariants.registry`) and the trace file (`traces.store`); never a model package itself or the
command line (`checker.commands`), which imports this room.
"""
