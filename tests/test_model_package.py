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


GUEST = """
from dataclasses import replace

from model.params import Param
from model.registry import ModelKind
from replcheck_mutex import PARAMS, _build, _properties, _rules, _variants


def kind(name="broken", summary="a guest", params=PARAMS, variants=_variants, build=_build, properties=_properties,
         rules=_rules):
    return ModelKind(name, summary, params, "peterson", variants, build, properties, rules)


def exits(*args):
    raise SystemExit(0)


def generator_exit(*args):
    raise GeneratorExit
"""
"""What every bad package's module starts with: the example package's pieces, to be broken one
at a time."""

BAD_PACKAGES = {
    # name: (the module's body, where it breaks: import, list, build or None, the cause it gets)
    "import-raises": ("raise RuntimeError('no luck')", "import", "importing it raised RuntimeError: no luck"),
    "import-exits": ("raise SystemExit(0)", "import", "importing it raised SystemExit: 0"),
    "import-interrupts": ("raise KeyboardInterrupt", "import", "importing it raised KeyboardInterrupt"),
    "not-a-model": ("MODEL = 'a model'", "import", "its entry point: names a value of type str, not a "
                                                   "model.registry.ModelKind"),
    "name-clash": ("MODEL = kind(name='fetch')", "import", "its entry point: model fetch is taken by a built-in model"),
    "option-clash": ("MODEL = kind(params=PARAMS + (Param('json', False, None, None, 'as JSON'),))", "import",
                     "its parameter --json is taken by replcheck's own option on "),
    "variants-exit": ("MODEL = kind(variants=exits)", "list", "listing its variants raised SystemExit: 0"),
    "variants-not-a-mapping": ("MODEL = kind(variants=lambda: ['naive'])", "list",
                               "listing its variants: gave a value of type list, not variant names and their meanings"),
    "properties-exit": ("MODEL = kind(properties=generator_exit)", "list", "listing its properties raised GeneratorExit"),
    "rules-raise": ("MODEL = kind(rules=lambda: 1 / 0)", "list",
                    "loading its rules raised ZeroDivisionError: division by zero"),
    "build-exits": ("MODEL = kind(build=exits)", "build", "building model broken raised SystemExit: 0"),
    "build-gives-none": ("MODEL = kind(build=lambda *args: None)", "build",
                         "building model broken: gave a value of type NoneType, not a model (one with initial_states and "
                         "successors)"),
    "escapes": ("MODEL = kind(summary='red \x1b[31m [bold]markup[/] \x1b]0;title\x07',\n"
                "             variants=lambda: {v: m + '\x1b[2J' for v, m in _variants().items()},\n"
                "             properties=lambda: [replace(p, summary=p.summary + ' [red]\x1b[K') for p in _properties()])",
                None, ""),
}
"""Model packages that break replcheck's rules for a guest, each in its own way."""

FETCH = ("check", "--model", "fetch", "--replicas", "2", "--max-records", "1", "--engine", "local")
"""A small check of a built-in model, which no model package may disturb."""


@pytest.fixture(scope="module")
def bad_packages(tmp_path_factory) -> dict[str, Path]:
    """Each of BAD_PACKAGES in a directory of its own, as pip would install it: its module and
    its dist-info, whose entry point `broken` names the module's MODEL."""
    made = {}
    for name, (body, _, _) in BAD_PACKAGES.items():
        where = tmp_path_factory.mktemp(name)
        module = f"bad_{name.replace('-', '_')}"
        (where / module).mkdir()
        (where / module / "__init__.py").write_text(GUEST + body + "\n")
        info = where / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: bad-{name}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[replcheck.models]\nbroken = {module}:MODEL\n")
        made[name] = where
    return made


def guest_run(site: Path, installed: Path, *args: str) -> subprocess.CompletedProcess:
    """`replcheck ARGS` with the bad package at `site` and the example package both installed."""
    return replcheck(Path(f"{site}{os.pathsep}{installed}"), *args)


def naming(run: subprocess.CompletedProcess, package: str) -> list[str]:
    """The lines of the run's stderr that name the package, after checking that nothing in its
    output is a traceback or a terminal control sequence."""
    for text in (run.stdout, run.stderr):
        assert "Traceback" not in text and "\x1b" not in text and "\x07" not in text
    return [line for line in run.stderr.splitlines() if package in line]


@pytest.mark.parametrize("name", BAD_PACKAGES)
def test_replcheck_lists_every_other_model_and_the_bad_package_as_broken(name, bad_packages, installed):
    _, breaks, cause = BAD_PACKAGES[name]
    listed = guest_run(bad_packages[name], installed, "list")
    assert listed.returncode == 0, listed.stderr
    for model in ("spec", "fetch", "two-phase", "mutex"):
        assert f"\n{model}:" in "\n" + listed.stdout
    lines = naming(listed, f"bad-{name}")
    if breaks in ("import", "list"):
        assert len(lines) == 1 and lines[0].startswith(f"replcheck: model package bad-{name} (entry point broken = ")
        assert f"is left out: {cause}" in lines[0]
        broken = [line for line in listed.stdout.splitlines() if f"bad-{name}" in line]
        assert len(broken) == 1 and ": broken: " in broken[0]
    else:
        assert lines == [] and "\nbroken: " in listed.stdout  # listed as a model: nothing of it failed
    if name == "escapes":
        assert "red \\x1b[31m [bold]markup[/] \\x1b]0;title\\x07" in listed.stdout  # shown as text, not as markup
        assert "\\x1b[2J" in listed.stdout and "[red]\\x1b[K" in listed.stdout


@pytest.mark.parametrize("name", BAD_PACKAGES)
def test_a_built_in_model_is_checked_whatever_the_packages_do(name, bad_packages, installed):
    _, breaks, cause = BAD_PACKAGES[name]
    checked = guest_run(bad_packages[name], installed, *FETCH)
    assert checked.returncode == 0, checked.stderr
    assert "holds" in checked.stdout
    lines = naming(checked, f"bad-{name}")
    assert len(lines) == (breaks == "import") and all(cause in line for line in lines)


@pytest.mark.parametrize("name", BAD_PACKAGES)
def test_the_bad_packages_model_is_one_line_and_exit_2(name, bad_packages, installed):
    _, breaks, cause = BAD_PACKAGES[name]
    checked = guest_run(bad_packages[name], installed, "check", "--model", "broken", "--variant", "peterson",
                        "--engine", "local")
    lines = naming(checked, f"bad-{name}")
    if breaks is None:
        assert checked.returncode == 0 and lines == [], checked.stderr
    elif breaks == "import":
        assert checked.returncode == 2 and len(lines) == 1 and cause in lines[0]
        assert checked.stderr.splitlines()[-1].startswith("Error: unknown model 'broken' (choose from spec, ")
    else:
        assert checked.returncode == 2 and lines == [f"Error: model package bad-{name} (entry point broken = "
                                                     f"bad_{name.replace('-', '_')}:MODEL): {cause}"], checked.stderr


def test_a_package_that_fails_is_named_and_ctrl_c_still_interrupts():
    from model.registry import GuestError, guest_call

    def interrupted():
        raise KeyboardInterrupt

    def wrapped():
        try:
            interrupted()
        except KeyboardInterrupt as exc:
            raise SystemError("numba's wrapping") from exc

    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as a command runs, whatever pytest's is
    try:
        for call, raised in ((interrupted, KeyboardInterrupt), (wrapped, SystemError)):
            with pytest.raises(raised):  # as it was: the command line reports the interruption (130)
                guest_call("model package p", "building it", call)
    finally:
        signal.signal(signal.SIGINT, previous)
    from checker.interrupts import interruptions_deferred

    with interruptions_deferred():  # signals only recorded: no Ctrl-C raised it, the package did
        with pytest.raises(GuestError, match=r"^model package p: building it raised KeyboardInterrupt$"):
            guest_call("model package p", "building it", interrupted)
    with pytest.raises(GuestError, match=r"^model package p: building it raised SystemExit: 3$"):
        guest_call("model package p", "building it", lambda: sys.exit(3))
    with pytest.raises(GuestError, match=r"raised ValueError: x{200}\.\.\. \(10,000 characters\)$"):
        guest_call("model package p", "building it", lambda: (_ for _ in ()).throw(ValueError("x" * 10_000)))
