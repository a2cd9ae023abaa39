"""Checking a Spark master URL before a JVM is started for it, and telling an embedded master
from a cluster's.

Spark rejects a malformed master only after its JVM is up, with a long Java stack trace, and
`local[0]` starts a context that never runs a task. The forms Spark documents are checked here
so that a typo is a one-line error.
"""

from __future__ import annotations

import re

_LOCAL = re.compile(r"local(\[(\*|[1-9]\d*)(,[1-9]\d*)?\])?")
_CLUSTER = re.compile(r"(spark|mesos)://[^/\s:]+(:\d+)?(,[^/\s:]+(:\d+)?)*|yarn|k8s://\S+|local-cluster\[\d+,\d+,\d+\]")


def master_problem(url: str) -> str | None:
    """Why `url` is not a Spark master URL (None when it is one): local, local[N], local[*],
    local[N,F] with N ≥ 1 threads and F ≥ 1 task retries, spark://host:port, yarn, k8s://..."""
    if _LOCAL.fullmatch(url) or _CLUSTER.fullmatch(url):
        return None
    if url.startswith("local["):
        return f"{url!r} asks for no or an unreadable number of threads: use local[N] with N ≥ 1, or local[*]"
    return f"{url!r} is not a Spark master URL (local[N], local[*], spark://host:port, yarn, k8s://...)"


def embedded(url: str) -> bool:
    """Whether `url` is an embedded master (local, local[N], local[*], local[N,F]): its tasks are
    Python workers of this machine, started by the driver's own JVM."""
    return _LOCAL.fullmatch(url) is not None
