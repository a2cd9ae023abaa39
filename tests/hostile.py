"""The hostile-input contract (cli.py), shared by the tests that feed the command line broken
files and absurd option values.

A valid file or command line exits 0 or 1 as documented; bad input exits 2 with one
`Error: ...` line on stderr (click's usage errors print their `Usage:` block, a hint and an
empty line before it); never a Python traceback or another exception; and nothing partial or
temporary is left where output goes.

Every property test runs a fixed number of examples (`hostile(n)`), the same ones on every run,
so the suite stays fast and deterministic. An occasional deeper run multiplies them:

    REPLCHECK_HOSTILE_SCALE=20 python -m pytest tests/test_hostile_*.py

(the examples are then drawn at random, so each deep run tries new ones).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, settings
from hypothesis.errors import InvalidArgument

from cli import main

SCALE = int(os.environ.get("REPLCHECK_HOSTILE_SCALE", "1"))
"""How many times the suite's examples a hostile-input property test runs (see the module
docstring); above 1 the examples are random rather than the suite's fixed ones."""


MANIFEST = """[[expect]]
model = "two-phase"
bounds = { rms = 2 }
property = "consistent"
outcome = "holds"
"""
"""A small `verify` manifest: a file of the user's that a command reads, and no output may replace."""


MAX_ERROR_LINE = 1_100
"""The longest line stderr may have: an error line is cut at 1,000 characters (a value in it is
quoted by its start), plus the `Error: ` before it."""


def hostile(examples: int) -> settings:
    """Hypothesis settings for these tests: `examples` examples (times SCALE), the same ones on
    every run of the suite (so CI is deterministic), no deadline (a render takes a while),
    fixtures shared across examples."""
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=SCALE == 1,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def invoke(args: list[str]):
    """`replcheck ARGS` in-process, exceptions caught (so that one shows as result.exception)."""
    return CliRunner().invoke(main, args)


def assert_documented_answer(result, codes: set[int], notices: bool = False) -> None:
    """`result` exited with one of `codes`, through SystemExit or normally, with no traceback
    and no control character (an escape sequence from a file) in what it printed, nor a stderr
    line longer than MAX_ERROR_LINE;
    exit 2 ends stderr with exactly one `Error: ...` line, preceded only by click's usage block
    (`Usage:`, the hint, an empty line) or, where `notices`, by the notices a search prints.
    Inside a property test the exit code is recorded for `pytest --hypothesis-show-statistics`."""
    try:
        event(f"exit {result.exit_code}")
    except InvalidArgument:  # a plain test
        pass
    assert "Traceback" not in result.output
    shown = {c for c in result.output if not c.isprintable() and c != "\n"}
    assert not shown, f"control characters reached the terminal: {shown}"
    longest = max((len(line) for line in result.stderr.splitlines()), default=0)
    assert longest <= MAX_ERROR_LINE, f"a stderr line of {longest:,} characters: {result.stderr[:300]}"
    assert result.exception is None or type(result.exception) is SystemExit, repr(result.exception)
    assert result.exit_code in codes, (result.exit_code, result.output[-2000:])
    if result.exit_code != 2:
        return
    lines = result.stderr.splitlines()
    assert lines and lines[-1].startswith("Error: "), result.stderr
    before = lines[:-1]
    if before and before[0].startswith("Usage: "):
        assert len(before) == 3 and before[1].startswith("Try ") and before[2] == "", result.stderr
    elif not notices:
        assert before == [], result.stderr
    assert sum(line.startswith("Error:") for line in lines) == 1, result.stderr


def assert_one_error_line(result) -> None:
    """Exit 2 with stderr exactly one `Error: ...` line."""
    assert result.exit_code == 2, result.output[-2000:]
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr


def leftovers(folder: Path, expected: set[str]) -> set[str]:
    """The names in `folder` other than `expected` (temporary files, half-written output)."""
    return {p.name for p in Path(folder).iterdir()} - expected


@pytest.fixture(scope="module")
def no_spark():
    """Any attempt to start Spark fails the test that made it (use with
    `pytestmark = pytest.mark.usefixtures("no_spark")` after importing it)."""
    import checker.spark.context

    def refuse(*args, **kwargs):
        raise AssertionError("a hostile-input test started Spark")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker.spark.context, "spark_context", refuse)
        yield


def places(doc, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON document, as the keys and indexes that lead there (the root is ())."""
    found = [prefix]
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        found += places(value, prefix + (key,))
    return found


def at(doc, path: tuple):
    """The value at `path` in `doc`."""
    for key in path:
        doc = doc[key]
    return doc
