"""Start-up: the command line imports only what a command needs, numba leaves SciPy alone, the
garbage collector leaves the imported modules alone, a cached kernel loads only what the run
calls, and a compile is announced whichever command triggers it."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from checker.compile_notice import background_line, compile_notices, compiling, notice_line
from checker.kernel.compile_seconds import MEASURED, estimate, record, saying
from benchmarks.startup import wait_for_exit
from checker.progress import prepare_kernels
from conftest import run_cli
from model.registry import build_model

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "numba", "rich", "matplotlib", "pyspark", "networkx", "traces.store", "model.spec.model")
"""What building the command tree must not import (each takes tens to hundreds of milliseconds)."""

IMPORTED_BY = '''
import json, sys
sys.argv = ["replcheck", *{args!r}]
import cli
try:
    cli.main()
except SystemExit:
    pass
print(json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)), file=sys.stderr)
'''


def heavy_imports(*args: str) -> list[str]:
    """Which of HEAVY `replcheck ARGS` imported, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", IMPORTED_BY.format(args=list(args), heavy=HEAVY)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    return json.loads(out.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [(), ("--help",), ("check", "--help"), ("sweep", "--help"), ("check", "--bogus")])
def test_the_command_tree_imports_nothing_heavy(args):
    assert heavy_imports(*args) == []


def test_a_spec_run_imports_neither_the_other_models_nor_matplotlib_nor_what_numba_probes_for():
    script = ('import subprocess, sys\nsys.argv = ["replcheck", "check", "--engine", "local", "--replicas", "2"]\n'
              'import cli\ntry:\n    cli.main()\nexcept SystemExit:\n    pass\n'
              'print(sorted(m for m in ("model.fetch.model", "matplotlib", "scipy.linalg", "pyspark", "cffi", "yaml") '
              'if m in sys.modules), file=sys.stderr)\nimport importlib.util\n'
              'for name in ("scipy.linalg", "cffi", "yaml"):  # hidden from numba only, still importable\n'
              '    if importlib.util.find_spec(name.split(".")[0]):\n        importlib.import_module(name)\n')
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "[]"


def test_ctrl_c_while_a_command_imports_its_body_is_one_line():
    """SIGINT arrives while `check` imports its body (numba, the models): held back until the
    import is done, then reported like any Ctrl-C."""
    script = '''
import importlib.abc, os, signal, sys

class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "checker.commands.check":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["replcheck", "check", "--engine", "local", "--model", "two-phase"]
import cli
cli.main()
'''
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (130, "")
    assert out.stderr == "Error: interrupted by the user; no result or trace was written\n"


def test_ctrl_c_that_escapes_generated_source_still_exits_130(tmp_path):
    """A Ctrl-C that raises inside source text compiled at run time (numba and namedtuple run
    such code while the kernels load) and is reported as usual: under `python -m`, CPython
    would end the process by SIGINT (status -2) unless told to forget it; the run exits 130."""
    (tmp_path / "interrupted_in_exec.py").write_text(
        "import sys\nimport checker.commands.check as check\n"
        "def interrupted(**options):\n    exec('raise KeyboardInterrupt')\n"
        "check.check = interrupted\nsys.argv = ['replcheck', 'check', '--model', 'two-phase']\n"
        "import cli\ncli.main()\n")
    out = subprocess.run([sys.executable, "-m", "interrupted_in_exec"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (out.returncode, out.stdout) == (130, "")
    assert out.stderr == "Error: interrupted by the user; no result or trace was written\n"


@pytest.mark.parametrize("args", [("list",), ("check", "--model", "nope")])
def test_a_command_leaves_the_garbage_collector_as_it_found_it(args):
    """A command freezes what its imports made out of the collector's reach while it runs: in a
    process that goes on afterwards (these tests), nothing stays frozen."""
    run_cli(*args)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_cached_kernel_loads_only_what_the_run_calls():
    """numba loads from its cache only the part of a kernel a run calls (here with the exported
    machine code turned off, which would run these calls without numba)."""
    prepare_kernels([build_model("spec", "kip320", replicas=2)])  # the cache holds the whole kernel now
    script = """
from checker.progress import prepare_kernels
from model.registry import build_model
model = build_model("spec", "kip320", replicas=2)
search = model.kernel.search
prepare_kernels([model])
print(len(search.expand.overloads), len(search.walk.overloads))
prepare_kernels([model], walks=True)
print(len(search.walk.overloads))
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "REPLCHECK_NATIVE": "0"})
    assert out.stdout.split() == ["1", "0", "1"], out.stderr


def test_a_compile_is_announced_once_on_one_line(capsys):
    @njit
    def doubled(x):
        return 2 * x

    with compile_notices(), compiling("the test's kernel"):
        assert doubled(np.int64(2)) == 4  # compiles
        assert doubled(np.float64(1.5)) == 3.0  # compiles another signature: no second notice
        assert doubled(np.int64(3)) == 6  # compiled already
    assert capsys.readouterr().err == notice_line("the test's kernel") + "\n"
    assert "once per machine and replcheck version" in notice_line("x")


def test_a_compile_estimate_comes_from_this_machine_before_the_shipped_figures(tmp_path, monkeypatch):
    monkeypatch.setenv("REPLCHECK_CACHE_DIR", str(tmp_path))
    module = "model.fetch.kernel"
    shipped = json.loads(MEASURED.read_text())[module]
    assert estimate("replcheck_search_model_fetch_kernel.walk", module) == (shipped, "2 cores")
    record("replcheck_search_model_fetch_kernel.walk", 12.34)
    assert estimate("replcheck_search_model_fetch_kernel.walk", module) == (12.3, "this machine")
    assert estimate("replcheck_search_model_fetch_kernel.expand", module) == (shipped, "2 cores")
    assert estimate("replcheck_search_other.expand", "model.other.kernel") is None
    (tmp_path / "compile-seconds.json").write_text("{not json")  # a damaged record is no record
    assert estimate("replcheck_search_model_fetch_kernel.walk", module) == (shipped, "2 cores")
    assert saying(70.4, "2 cores") == "about 70 s on 2 cores" and saying(150, "this machine") == "about 2 min here"
    assert notice_line("the fetch model's kernel", "about 70 s on 2 cores").startswith(
        "compiling the fetch model's kernel for this machine, about 70 s on 2 cores: once per machine")


def test_no_notice_without_a_compile(capsys):
    @njit
    def tripled(x):
        return 3 * x

    tripled(1)
    with compile_notices():
        assert tripled(2) == 6
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_a_cold_sweep_starts_at_once_compiles_once_beside_it_and_a_warm_run_says_nothing(tmp_path):
    """The issue's case: `sweep` compiled for minutes without a word, and a first run waited for
    the whole compile. On an empty kernel cache it says on one line of stderr that the kernel
    compiles in a second process, and searches at once on the uncompiled kernel; two runs
    started together compile once between them (the second compile waits for the first, and
    finds it done); whichever is still compiling when its run ends goes on alone, and leaves
    the kernel compiled; the next run loads it silently, and every run gives the same answer."""
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "cli", "sweep", "--model", "spec", "--replicas", "2,3", "--max-epoch", "1",
               "--engine", "local", "--invariant", "leader-in-isr-or-none", "--json"]
    runs = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=900) + (run.returncode,) for run in runs]
    subject = "the spec model's kernel"
    shipped = json.loads(MEASURED.read_text())["model.spec.kernel"]  # this cache has no record of its own yet
    for out, err, code in outputs:
        lines = err.splitlines()
        assert code == 0 and lines[0] == background_line(subject, saying(shipped, "2 cores")), err
        assert len(lines) == 2 and (lines[1].startswith(f"compiled {subject} in ") or
                                    lines[1].startswith(f"the run ended before {subject} finished compiling")), err
        detached = re.search(r"\(process (\d+)\)", lines[1])
        assert detached is None or wait_for_exit(int(detached.group(1)), timeout=600), "the compile never ended"
    marker = next(tmp_path.glob("kernels-*/compiled/replcheck_search_model_spec_kernel.expand"), None)
    assert marker is not None, "the compile in the background did not leave the kernel compiled"
    recorded = json.loads((tmp_path / "compile-seconds.json").read_text())
    assert list(recorded) == ["replcheck_search_model_spec_kernel.expand"] and recorded[
        "replcheck_search_model_spec_kernel.expand"] > 0
    warm = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert (warm.returncode, warm.stderr) == (0, "")
    assert all(_answers(out) == _answers(warm.stdout) for out, _, _ in outputs)


def _answers(out: str) -> list:
    """Per run of a sweep's JSON, what it found: counts and verdicts."""
    return [(run["result"]["distinct_states"], run["result"]["generated_states"], run["result"]["depth"],
             run["result"]["invariants"]) for run in json.loads(out)["runs"]]
