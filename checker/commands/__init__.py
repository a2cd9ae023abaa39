"""The bodies of replcheck's commands. `cli.py` declares each command (its options and help)
and imports its body from here only when the command runs, so that building the command tree
(`replcheck --help`, a mistyped option) does not import numba, the models or rich.

The top room: it may import every other, Kafka's models and their reports included
(`tradeoff_report` prints `model.fetch.tradeoffs`).
"""
