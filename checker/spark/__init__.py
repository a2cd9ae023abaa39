"""The Spark engine: the breadth-first search sharded over the tasks of one Spark barrier stage,
and breadth-first simulation's walkers as Spark tasks.

`engine` runs a search from the driver; `coordinator` is the driver's end of the tasks, `shard`
what one task runs, `shard_ops` a shard's share of the search (its visited set, how it expands
a frontier) and `peer_exchange` the candidates the tasks send one another. `context` starts and
stops the SparkContext, `java` finds a Java runtime, `jvm_archive` makes the JVM start faster,
`master_url` checks a master URL before a JVM is started, `workers` ends an embedded master's
Python workers on Ctrl-C, and `simulation` runs walks as tasks.

May import: the generic checker (`checker`, `checker.kernel`, `checker.checkpoint`) and
`checker.simulation`; never a model, the command line (`checker.commands`) or CI output.
"""
