"""A model from another package: examples/model-package (two processes and a mutual-exclusion
protocol, with two rules and three variants) is built into a wheel, installed with pip into a
directory of its own, and replcheck, run with that directory on its path, lists, checks (on both
engines), compares, ablates and draws it like a built-in model, through the entry point the
package declares (group `replcheck.models`)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "examples" / "model-package"


def build_wheel(source: Path, out: Path) -> Path:
    """A wheel of the package at `source` (its pyproject's name, version and entry points; its
    Python files), written by hand: installing it needs pip and nothing else (no build backend,
    no network)."""
    meta = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    dist = f"{meta['name'].replace('-', '_')}-{meta['version']}"
    files = {str(p.relative_to(source)): p.read_bytes() for p in sorted(source.glob("*/*.py"))}
    points = "".join(f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in entries.items())
                     for group, entries in meta["entry-points"].items())
    files[f"{dist}.dist-info/METADATA"] = f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n".encode()
    files[f"{dist}.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: replcheck-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{dist}.dist-info/entry_points.txt"] = points.encode()
    record = "".join(f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
                     f"{len(data)}\n" for name, data in files.items())
    files[f"{dist}.dist-info/RECORD"] = (record + f"{dist}.dist-info/RECORD,,\n").encode()
    wheel = out / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The example package, installed by pip into a directory of its own."""
    where = tmp_path_factory.mktemp("model-package")
    wheel = build_wheel(PACKAGE, where)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(where / "site"), str(wheel)], check=True, capture_output=True, timeout=300)
    return where / "site"


def replcheck(site: Path, *args: str) -> subprocess.CompletedProcess:
    """`replcheck ARGS` in a new process that sees the installed package."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_installed_model_is_listed_with_its_variants_and_rules(installed):
    listed = replcheck(installed, "list")
    assert listed.returncode == 0, listed.stderr
    text = " ".join(listed.stdout.split())
    assert "mutex: two processes and a critical section" in text
    assert "peterson (default): flags and a turn (Peterson's algorithm)" in text
    assert "turn: whether a waiting process may go first" in text and "mutual-exclusion:" in text
    assert "mutex" not in replcheck(Path("/nonexistent"), "list").stdout  # without the package, no such model


@pytest.mark.parametrize("engine", [["--engine", "local"], ["--engine", "spark", "--master", "local[2]"]])
def test_the_installed_model_is_checked_on_both_engines_and_its_trace_replays_and_draws(installed, engine, tmp_path):
    ran = replcheck(installed, "check", "--model", "mutex", "--variant", "naive", *engine, "--trace-dir",
                    str(tmp_path), "--json")
    assert ran.returncode == 1, ran.stderr
    found = json.loads(ran.stdout)
    assert found["engine"] == engine[1] and found["rules"] == {"flag": "off", "turn": "off"}
    verdict = found["invariants"]["mutual-exclusion"]
    assert (found["distinct_states"], verdict["status"], verdict["trace_length"]) == (28, "violated", 6)
    shown = replcheck(installed, "trace", "show", verdict["trace_file"])
    assert shown.returncode == 0 and "p1 enters the critical section" in shown.stdout
    drawn = replcheck(installed, "trace", "render", "--format", "svg", verdict["trace_file"], "-o",
                      str(tmp_path / "m.svg"))
    assert drawn.returncode == 0 and "mutual-exclusion violated after 6 steps" in (tmp_path / "m.svg").read_text()


def test_the_installed_model_is_compared_and_ablated(installed):
    compared = replcheck(installed, "compare", "--model", "mutex", "--engine", "local", "--json")
    assert compared.returncode == 0, compared.stderr
    verdicts = {v: r["invariants"]["mutual-exclusion"]["status"] for v, r in json.loads(compared.stdout)["variants"].items()}
    assert verdicts == {"naive": "violated", "flags": "holds", "peterson": "holds"}
    ablated = replcheck(installed, "ablate", "--model", "mutex", "--variant", "peterson", "--invariant",
                        "mutual-exclusion", "--engine", "local", "--json")
    assert ablated.returncode == 0, ablated.stderr
    rows = {row["rule"]: row["needed"] for row in json.loads(ablated.stdout)["switches"][1:]}
    assert rows == {"flag": "needed", "turn": "not needed here"}  # Peterson's flags keep them apart; the turn, alive
    minimal = replcheck(installed, "ablate", "--model", "mutex", "--variant", "peterson", "--invariant",
                        "mutual-exclusion", "--minimal", "--engine", "local", "--json")
    assert json.loads(minimal.stdout)["minimal"]["sets"] == [["flag"]]


def test_a_broken_model_package_is_left_out_with_one_line(installed, tmp_path):
    broken = tmp_path / "broken"
    (broken / "broken_model").mkdir(parents=True)
    (broken / "broken_model" / "__init__.py").write_text("raise RuntimeError('no luck')\n")
    (broken / "broken_model-1.0.dist-info").mkdir()
    (broken / "broken_model-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-model\nVersion: 1.0\n")
    (broken / "broken_model-1.0.dist-info" / "entry_points.txt").write_text("[replcheck.models]\nbroken = broken_model:MODEL\n")
    listed = replcheck(broken, "list")
    assert listed.returncode == 0 and "fetch:" in listed.stdout
    assert listed.stderr.strip().splitlines() == [
        "replcheck: model package entry point broken (broken_model:MODEL) could not be loaded: RuntimeError: no luck; "
        "skipped"]
