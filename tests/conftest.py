"""Shared helpers for the test suite."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from cli import main

VARIANTS = ("hw", "kip101", "kip279", "kip320")


def run_cli(*args: str):
    """Run `replcheck ARGS` in-process; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def without_compile_notices(stderr: str) -> list[str]:
    """The lines of `stderr` other than those announcing a kernel compile (`checker.compile_notice`:
    in this process or a second one, and its end), which a run prints only where the kernel
    cache is cold: what a test may expect whatever ran before it."""
    from checker import compile_notice

    mark = "\x00"
    announced = [compile_notice.notice_line(mark), compile_notice.notice_line(mark, mark),
                 compile_notice.background_line(mark), compile_notice.background_line(mark, mark),
                 compile_notice.compiled_line(mark, 7).replace("7", mark)]
    notice = re.compile("|".join(re.escape(line).replace(re.escape(mark), ".+") for line in announced))
    return [line for line in stderr.splitlines() if not notice.fullmatch(line)]


def run_json(*args: str) -> dict:
    """Run `replcheck ARGS --json` and parse its stdout."""
    result = run_cli(*args, "--json")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


SPARK_MODULES = {"test_spark_engine", "test_spark_cluster", "test_java"}
"""Test modules that start Spark (a JVM, and a standalone cluster on fixed ports): pytest-xdist
runs them one after another on one worker while the other workers take the rest."""


def pytest_collection_modifyitems(config, items):
    """Keep the Spark-starting modules in one xdist group (see SPARK_MODULES)."""
    for item in items:
        if item.module.__name__.rsplit(".", 1)[-1] in SPARK_MODULES:
            item.add_marker(pytest.mark.xdist_group("spark"))


@pytest.fixture
def cli():
    return run_cli


def pytest_configure(config):
    """Under pytest-xdist the workers already take every core: each in-process local search runs
    on one thread (`--threads`; tests/test_threads.py sets its own counts)."""
    import os

    if os.environ.get("PYTEST_XDIST_WORKER"):
        from checker.kernel.expansion import use_threads

        use_threads(1)
