"""Telling one test's Spark processes from the others': test workers run side by side, and
another worker's Spark may be up while a test checks that its own run left no JVM behind."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from interrupting import started


def tagged_run(*args: str, env_extra: dict[str, str] | None = None, **popen) -> tuple[subprocess.Popen, str]:
    """`replcheck ARGS` in a new process started as `interrupting.started` starts one (`popen`:
    its other arguments; `env_extra`: variables added to its environment), and the tag its
    processes will carry."""
    tag = f"{os.getpid()}-{time.monotonic_ns()}"
    return started(*args, env=dict(os.environ, **(env_extra or {}), REPLCHECK_TEST_TAG=tag), **popen), tag


def tagged_processes(tag: str, kinds: tuple[bytes, ...] = (b"",)) -> set[int]:
    """The processes started by a process run with REPLCHECK_TEST_TAG=tag, itself included
    (children inherit the environment, so the tag tells them from other test workers'), or,
    naming `kinds`, those whose command line holds one of them."""
    pids = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
                if any(kind in cmdline for kind in kinds):
                    if f"REPLCHECK_TEST_TAG={tag}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                        pids.add(int(proc.name))
            except OSError:
                pass
    return pids


def spark_processes(tag: str, kinds: tuple[bytes, ...] = (b"org.apache.spark.deploy.SparkSubmit",
                                                          b"pyspark.daemon")) -> set[int]:
    """The Spark JVMs and Python workers (or, naming `kinds`, those whose command line holds one
    of them) of the run tagged `tag` (`tagged_processes`)."""
    return tagged_processes(tag, kinds)


def workers(tag: str) -> set[int]:
    """The Python workers of the Spark of the run tagged `tag`: there while its tasks run (a sign
    that its search or walks are under way)."""
    return spark_processes(tag, (b"pyspark.daemon",))
