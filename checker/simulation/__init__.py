"""Simulation: random walks through a model, for answers past exhaustive reach.

`walks` runs them (the walker, its weights, swarm and milestone steering), `weightings` names
how a walk weighs its steps, `splitting` restarts walks from the furthest milestones reached,
`shorten` shortens a violation a walk found before it is shown, `sketch` estimates how many
distinct states the walks met, and `report` is what `replcheck simulate` prints.

May import: the generic checker (`checker`, `checker.kernel`); never a model, Spark
(`checker.spark` runs walkers on Spark by importing this room, not the other way), the command
line or CI output.
"""
