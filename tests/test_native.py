"""Kernels run without numba from the machine code an earlier run exported (`checker.kernel.native`):
the same overload numba would choose, the same results and errors, and numba only for what no
exported entry covers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numba
import numpy as np
import pytest

from checker.kernel.layout_record import as_record
from checker.kernel.native import describe
from checker.kernel.native_export import numba_type

ROOT = Path(__file__).resolve().parents[1]

Pair = namedtuple("Pair", "a b")
Bounds = namedtuple("Bounds", "replicas stride")


def _values():
    grid = np.arange(24, dtype=np.int64).reshape(4, 6)
    frozen = np.zeros(3, np.int8)
    frozen.flags.writeable = False
    arrays = [np.zeros(5, dtype) for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64,
                                                np.bool_, np.float32, np.float64)]
    return arrays + [grid, grid.T, grid[:, ::2], grid[::2], np.zeros((0, 3), np.int8), np.zeros((2, 3, 4), np.int8),
                     frozen, 0, -1, (1 << 63) - 1, True, False, 1.5, np.int64(3), np.uint64(2 ** 63), np.int32(-4),
                     np.int8(1), np.bool_(True), np.float32(0.5), (), (1, 2, 3), (1, True), (grid, 1, (2, frozen)),
                     Pair(1, 2), Pair(grid, 1.0), None, as_record(Bounds(3, 40)), as_record(Pair(1, 2))]


@pytest.mark.parametrize("value", _values(), ids=lambda v: type(v).__name__)
def test_a_description_is_what_numba_types_the_value_as(value):
    """The description picks the overload: it must give numba's own type for the value."""
    assert numba_type(describe(value)) == numba.typeof(value)


def test_values_numba_types_apart_are_described_apart():
    values = _values()
    types = {}
    for value in values:
        types.setdefault(describe(value), set()).add(numba.typeof(value))
    assert all(len(found) == 1 for found in types.values()), types


@pytest.mark.parametrize("value", [1 << 63, np.zeros(2, object), np.zeros(1, [("a", np.int32)])[0],
                                   np.zeros(1, [("a", np.int64), ("b", np.int8)])[0], np.memmap, [1, 2], {"a": 1}, "text",
                                   (1, "text"), np.zeros(2, np.complex128), np.datetime64("2024-01-01")],
                         ids=repr)
def test_what_it_cannot_describe_is_left_to_numba(value):
    assert describe(value) is None


SCRIPT = """
import json, sys
from pathlib import Path
from checker.kernel import jit
from checker.kernel.native import Store
jit._natives[:] = [Store(Path(sys.argv[1]))]
sys.argv = ["replcheck", *sys.argv[2:]]
import cli
try:
    cli.main()
except SystemExit as end:
    code = end.code
numba_imported = "numba.core.config" in sys.modules
import numba  # numba imported directly after exported code ran: numba as ever
assert numba.njit(lambda x: x + 1)(1) == 2
print(json.dumps({"exit": code, "numba": numba_imported,
                  "native": sum(f is not None for f in jit._natives[0].loaded.values())}), file=sys.stderr)
"""


def run(directory: Path, *args: str) -> tuple[dict, dict | None, str]:
    """(how the run went, its JSON output, stderr's other lines) of `replcheck ARGS` in a fresh
    process whose exported kernels live in `directory`."""
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(directory), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    *said, how = done.stderr.strip().splitlines()
    return json.loads(how), json.loads(done.stdout) if done.stdout.strip() else None, "\n".join(said)


CHECK = ("check", "--engine", "local", "--model", "spec", "--variant", "kip101", "--replicas", "2", "--json")


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """The models' kernels compiled beforehand: a first run then runs every call through numba
    (on a cold cache it would run them as plain Python while they compile)."""
    from checker.progress import prepare_kernels
    from model.registry import build_model

    prepare_kernels([build_model("spec", "kip101", replicas=2), build_model("kraft", "tla")])


def _same(result: dict) -> dict:
    return {key: value for key, value in result.items() if key not in ("seconds", "states_per_second", "levels")}


def test_a_second_run_calls_the_exported_code_and_never_imports_numba(tmp_path):
    first, found, _ = run(tmp_path, *CHECK)
    assert first["exit"] == 1 and first["numba"] and first["native"] == 0
    assert list(tmp_path.rglob("*.pkl")), "nothing was exported"
    second, again, _ = run(tmp_path, *CHECK)
    assert second == {"exit": 1, "numba": False, "native": second["native"]} and second["native"] >= 5
    assert _same(again) == _same(found)


def test_a_damaged_or_missing_entry_is_run_by_numba_and_exported_again(tmp_path):
    _, found, _ = run(tmp_path, *CHECK)
    entries = sorted(p for p in tmp_path.rglob("*.pkl") if p.name != "runtime.pkl")
    entries[0].write_bytes(b"not an entry")
    entries[1].unlink()
    damaged, again, _ = run(tmp_path, *CHECK)
    assert damaged["numba"] and _same(again) == _same(found)
    mended, third, _ = run(tmp_path, *CHECK)
    assert not mended["numba"] and _same(third) == _same(found)


def test_an_error_raised_in_exported_code_is_the_same_one_line(tmp_path):
    """A kernel's own error (a state outgrowing its layout) raised by the exported machine code
    reaches the user as it does from numba."""
    script = tmp_path / "overflow.py"
    script.write_text("from model.kraft.tla import layout\nlayout.bag_capacity = lambda *bounds: 3\n" + SCRIPT)
    outcomes = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script), str(tmp_path / "native"), "check", "--engine", "local",
                               "--model", "kraft", "--variant", "tla"], cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
        *said, how = done.stderr.strip().splitlines()
        outcomes.append((json.loads(how), said[-1]))
    assert outcomes[0][0]["exit"] == outcomes[1][0]["exit"] == 2
    assert not outcomes[1][0]["numba"]
    assert outcomes[0][1] == outcomes[1][1] == (
        "Error: a state did not fit the packed layout its bounds sized (the kraft message bag outgrew its layout): "
        "a replcheck bug, please report the command")
