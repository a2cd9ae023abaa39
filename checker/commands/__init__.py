"""The bodies of replcheck's commands. `cli.py` declares each command (its options and help)
and imports its body from here only when the command runs, so that building the command tree
(`replcheck --help`, a mistyped option) does not import numba, the models or rich.
"""
