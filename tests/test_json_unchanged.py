"""Issue 33 moved modules and pages, and nothing a user sees may change: the main commands'
JSON (and a saved trace) are what the code before the move printed, field for field, but for
the time a run took. The files under tests/data/json-before-issue-33/ were written by those
commands at 67dd7e0, the last revision before the move, in an empty directory; the three `fetch`
cases were written again when issue 45 corrected the fetch model's rules against Kafka's code
(their counts and traces changed then, by design), and again when issue 66 gave `hw` to `kip279`
Kafka 0.10 to 2.1's controller (`kip279` and `hw` changed; `kip320`'s only in naming the new
rule, preferred-replica). Issue 65 added one field to a saved trace,
its seal (`checker.seal`), which is checked apart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checker.seal import SEAL, intact

ROOT = Path(__file__).resolve().parents[1]
BEFORE = ROOT / "tests" / "data" / "json-before-issue-33"

CASES = {
    "check-spec": ["check", "--engine", "local", "--json"],
    "check-spec-hw-trace": ["check", "--engine", "local", "--variant", "hw", "--invariant", "strong-isr",
                            "--trace-dir", "traces", "--json"],
    "compare-spec": ["compare", "--engine", "local", "--invariant", "strong-isr", "--invariant", "weak-isr", "--json"],
    "check-fetch-kip279": ["check", "--engine", "local", "--model", "fetch", "--variant", "kip279", "--continue",
                           "--json"],
    "sweep-fetch": ["sweep", "--engine", "local", "--model", "fetch", "--variant", "kip320", "--acks", "1,all",
                    "--json"],
    "simulate-fetch-hw": ["simulate", "--engine", "local", "--model", "fetch", "--variant", "hw", "--walks", "200",
                          "--seed", "7", "--json"],
    "distinguish-spec": ["distinguish", "--model", "spec", "--variants", "hw,kip320", "--invariant", "strong-isr",
                         "--json"],
}

TIMES = {"seconds", "states_per_second", "first_found_seconds", "task_seconds"}
"""Fields that say how long something took: the only ones that may differ from run to run."""


def without_times(value):
    """`value` with every field of TIMES left out, at any depth."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in TIMES}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def test_times_are_the_only_fields_left_out():
    shown = {"seconds": 1.5, "levels": [{"depth": 1, "task_seconds": 0.2, "distinct": 3}], "verdict": "holds"}
    assert without_times(shown) == {"levels": [{"depth": 1, "distinct": 3}], "verdict": "holds"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_commands_json_is_what_it_was_before_the_move(name, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ran = subprocess.run([sys.executable, "-m", "cli", *CASES[name]], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert ran.returncode in (0, 1), ran.stderr
    assert without_times(json.loads(ran.stdout)) == without_times(json.loads((BEFORE / f"{name}.json").read_text()))
    trace = BEFORE / f"{name}.trace.json"
    if trace.exists():  # since issue 65 a saved trace ends with its seal, the SHA-256 of the rest
        saved = json.loads((tmp_path / "traces" / "spec-hw-strong-isr.json").read_text())
        assert intact(saved) and {k: v for k, v in saved.items() if k != SEAL} == json.loads(trace.read_text())
