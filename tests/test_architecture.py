"""The repository's rooms and which way their imports go (docs/architecture.md draws them).

Read from the source with `ast` (imports inside functions count too), so a new import that
breaks the design fails here, whether or not it ever runs."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("checker", "model", "invariants", "traces", "benchmarks")

MODEL_PACKAGES = ("model.fetch", "model.spec", "model.two_phase",
                  "invariants.fetch", "invariants.spec", "invariants.two_phase")
"""The models themselves. The checker may use the models' common machinery (`model.params`,
`model.rules`, `model.registry`, `invariants.registry`), never a model."""

ENGINE_ROOMS = ("checker.spark", "checker.simulation", "checker.ci", "checker.commands")
"""The rooms built on the generic search."""

FRONT = ("checker.jobs",)
"""The room that puts the engine rooms together (choose an engine, run searches on either,
write an analysis as JUnit): above the engine rooms, below the command line."""

MAY_IMPORT = {
    "checker.simulation": (),
    "checker.spark": ("checker.simulation",),
    "checker.ci": (),
}
"""Which other engine rooms each engine room may import (the command line may import them all)."""


def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _modules() -> dict[str, Path]:
    found = {_module_name(p): p for p in ROOT.glob("*.py")}
    for package in PACKAGES:
        found.update({_module_name(p): p for p in (ROOT / package).rglob("*.py")})
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The repository's modules that `name` imports (the module, or the package it imports a
    name from when that name is not a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module
            candidates = [f"{source}.{alias.name}" for alias in node.names] + [source]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in MODULES:
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                targets.add(candidate)
                break
    return targets


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def _within(name: str, rooms) -> bool:
    return any(name == room or name.startswith(room + ".") for room in rooms)


def test_the_reader_finds_the_imports_it_must_judge():
    assert "checker.spark.shard_ops" in IMPORTS["checker.spark.engine"]  # relative, one level
    assert "checker.result" in IMPORTS["checker.spark.engine"]  # relative, two levels
    assert "model.registry" in IMPORTS["checker.commands.common"]  # absolute


def test_no_import_circles():
    graph = nx.DiGraph((a, b) for a, targets in IMPORTS.items() for b in targets)
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert circles == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _within(n, ["checker"])
                                          and not _within(n, ["checker.commands"])))
def test_the_checker_imports_no_model(name):
    assert sorted(t for t in IMPORTS[name] if _within(t, MODEL_PACKAGES)) == []


def test_the_generic_search_imports_no_room_built_on_it():
    generic = [n for n in MODULES if _within(n, ["checker"]) and not _within(n, ENGINE_ROOMS + FRONT)]
    assert len(generic) > 30
    upward = {n: sorted(t for t in IMPORTS[n] if _within(t, ENGINE_ROOMS + FRONT)) for n in generic}
    assert {n: t for n, t in upward.items() if t} == {}


@pytest.mark.parametrize("room", sorted(MAY_IMPORT))
def test_each_engine_room_imports_only_the_rooms_below_it(room):
    members = [n for n in MODULES if _within(n, [room])]
    assert members
    others = [r for r in ENGINE_ROOMS if r != room and r not in MAY_IMPORT[room]] + list(FRONT)
    assert {n: sorted(t for t in IMPORTS[n] if _within(t, others)) for n in members
            if any(_within(t, others) for t in IMPORTS[n])} == {}


def test_only_the_command_line_imports_it():
    outside = [n for n in MODULES if not _within(n, ["checker.commands", "cli", "benchmarks"])]
    assert {n: sorted(IMPORTS[n] & {t for t in MODULES if _within(t, ["checker.commands", "cli"])})
            for n in outside if any(_within(t, ["checker.commands", "cli"]) for t in IMPORTS[n])} == {}


RUN = 6
"""Identical lines in a row that count as code written twice."""


def _code_lines(path: Path) -> list[str]:
    """The file's lines as the copy check reads them: stripped, without blank lines, comments,
    lone punctuation and imports (a statement over several lines counts as one)."""
    tree = ast.parse(path.read_text())
    imports = {line for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
               for line in range(node.lineno, node.end_lineno + 1)}
    kept = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if number in imports or not text or text.startswith("#") or not any(c.isalnum() for c in text):
            continue
        kept.append(text)
    return kept


def _runs(paths) -> dict[tuple[str, ...], Path]:
    return {tuple(lines[i:i + RUN]): path for path in paths for lines in [_code_lines(path)]
            for i in range(len(lines) - RUN + 1)}


@pytest.mark.parametrize("first, second", [("model/spec", "model/fetch"),
                                           ("invariants/spec.py", "invariants/fetch.py")])
def test_no_run_of_six_identical_lines_stands_in_both_kafka_models(first, second):
    """What both Kafka models share is written once (`model.kafka_accessors`,
    `invariants.kafka_shapes`); code of the same shape with other names may stay."""
    def files(place):
        path = ROOT / place
        return sorted(path.rglob("*.py")) if path.is_dir() else [path]

    theirs = _runs(files(second))
    both = {run: (path.relative_to(ROOT).as_posix(), theirs[run].relative_to(ROOT).as_posix())
            for run, path in _runs(files(first)).items() if run in theirs}
    assert both == {}


def test_the_copy_check_finds_a_copy(tmp_path):
    body = "\n".join(f"    total += {i}" for i in range(RUN))
    (tmp_path / "a.py").write_text(f"import os\n\n\ndef f(total):\n{body}\n    return total\n")
    (tmp_path / "b.py").write_text(f"from x import y\n\n\ndef g(total):\n    # a comment\n{body}\n")
    assert set(_runs([tmp_path / "a.py"])) & set(_runs([tmp_path / "b.py"]))
