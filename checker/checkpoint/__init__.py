"""Checkpoints: a breadth-first search saved at a level boundary, so a long run can stop (Ctrl-C,
SIGTERM, a machine that dies) and later go on to exactly the result of an uninterrupted run.

A checkpoint directory holds, for every level reached, the fingerprint of each state found at
that level with its chosen parent's fingerprint and the action code that reached it
(`files`), the packed frontier of the last saved level, and a manifest (`snapshot`) that names
the run (`identity`: model, variant, bounds, invariants, symmetry, model source, replcheck
version) and its counters. The manifest is renamed into place last, so a run killed at any
moment leaves the previous complete checkpoint readable. The format does not depend on the
engine or the partition count, so either engine resumes what either wrote (`saver` is what the
engines talk to while they search).
"""
