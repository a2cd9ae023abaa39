"""Shared helpers for the test suite."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli import main

VARIANTS = ("hw", "kip101", "kip279", "kip320")


def run_cli(*args: str):
    """Run `replcheck ARGS` in-process; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def run_json(*args: str) -> dict:
    """Run `replcheck ARGS --json` and parse its stdout."""
    result = run_cli(*args, "--json")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.fixture
def cli():
    return run_cli
