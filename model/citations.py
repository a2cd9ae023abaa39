"""The rule tables' citations (`model.fetch.rule_table`, `model.kraft.rule_table`), read and
checked against Kafka's code.

A row's sources cite methods as `Class.method` @ TAG[, TAG...]: in each `;`-separated part, the
methods named before its first `@` at every tag named after it ("trunk" is Kafka's trunk of
October 2024, commit 1eb7644). `python -m model.citations KAFKA_GIT` checks every cited
method against a clone (or bare mirror) of github.com/apache/kafka: the class's source file at
that tag must define or call the method. A test runs it where $REPLCHECK_KAFKA_GIT names such a
clone; the check needs no network.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Sequence

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

TRUNK = "1eb7644349c"
"""The commit "trunk" stands for in the citations."""

_METHOD = re.compile(r"`([A-Z]\w*)\.(\w+)`")
_TAG = re.compile(r"(?<![\w.-])(\d+(?:\.\d+){2,3}(?:-rc\d+)?|trunk)(?![\w.])")


def _outside_parentheses(text: str) -> str:
    """`text` with every parenthesised remark blanked out (they name Jiras and fields, not tags)."""
    depth, kept = 0, []
    for ch in text:
        depth += ch == "("
        kept.append(ch if depth == 0 else " ")
        depth -= ch == ")" and depth > 0
    return "".join(kept)


def citations(sources: str) -> list[tuple[str, str, str]]:
    """(class, method, tag) for every method a row's sources cite at every tag."""
    cited = []
    for part in sources.split(";"):
        head, at, tail = part.partition("@")
        if not at:
            continue
        tags = _TAG.findall(_outside_parentheses(tail))
        cited += [(cls, method, tag) for cls, method in _METHOD.findall(head) for tag in tags]
    return cited


def tables() -> dict[str, Sequence]:
    """Every model's rule table (rows with a `key` and their `sources`), by model."""
    from .fetch.rule_table import ROWS as FETCH
    from .kraft.rule_table import ROWS as KRAFT

    return {"fetch": FETCH, "kraft": KRAFT}


def every_citation(rows: Sequence) -> list[tuple[str, str, str, str]]:
    """(row, class, method, tag) for every citation of every row."""
    return [(row.key, *cited) for row in rows for cited in citations(row.sources)]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False).stdout


def _has(repo: Path, ref: str) -> bool:
    """The clone `repo` holds commit or tag `ref`."""
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"{ref}^{{commit}}"],
                          capture_output=True, check=False).returncode == 0


def unchecked(repo: Path, rows: Sequence) -> list[str]:
    """The tags `rows` cite that the Kafka clone `repo` lacks (a shallow or old copy), whose
    citations `missing` cannot check."""
    tags = sorted({tag for *_, tag in every_citation(rows)})
    return [tag for tag in tags if not _has(repo, TRUNK if tag == "trunk" else tag)]


def missing(repo: Path, rows: Sequence) -> list[str]:
    """The citations of `rows` whose method the class's file at that tag of the Kafka clone
    `repo` does not name, each as 'row: Class.method @ tag (why)'; tags the clone lacks
    (`unchecked`) are skipped."""
    problems, files, absent = [], {}, set(unchecked(repo, rows))
    for row, cls, method, tag in every_citation(rows):
        if tag in absent:
            continue
        ref = TRUNK if tag == "trunk" else tag
        if ref not in files:
            files[ref] = _git(repo, "ls-tree", "-r", "--name-only", ref).split()
        paths = [p for p in files[ref] if p.endswith((f"/{cls}.scala", f"/{cls}.java"))]
        text = "".join(_git(repo, "show", f"{ref}:{p}") for p in paths)
        if not text:
            hits = _git(repo, "grep", "-l", "-E", rf"(class|object|trait|interface) {cls}\b", ref, "--", "*.scala",
                        "*.java").split()
            text = "".join(_git(repo, "show", hit) for hit in hits)
        if not text:
            problems.append(f"{row}: {cls}.{method} @ {tag} (no class {cls} at {tag})")
        elif not re.search(rf"\b{method}\b", text):
            problems.append(f"{row}: {cls}.{method} @ {tag} ({cls} at {tag} has no {method})")
    return problems


if __name__ == "__main__":
    failed = False
    for model, rows in tables().items():
        found, absent = missing(Path(sys.argv[1]), rows), unchecked(Path(sys.argv[1]), rows)
        total = len([c for c in every_citation(rows) if c[3] not in absent])
        sys.stdout.write("".join(f"{model}: {line}\n" for line in found))
        sys.stdout.write(f"{model}: {total - len(found)} of {total} citations name a method at a tag that has it"
                         + (f"; not checked, at tags this clone lacks: {', '.join(absent)}" if absent else "") + "\n")
        failed = failed or bool(found)
    sys.exit(1 if failed else 0)
