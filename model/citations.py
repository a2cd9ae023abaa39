"""The rule tables' citations (`model.fetch.rule_table`, `model.kraft.rule_table`): where each
cited method was read, checked for form here and against Kafka's code where a clone is at hand.

A row's sources cite methods as `Class.method` @ WHERE[, WHERE...]: in each `;`-separated part,
the methods named before its first `@` were read at every place named after it, parenthesised
remarks aside. A place is a release tag of apache/kafka (`RELEASE_TAGS`), or, for text read at
no tag, a commit of apache/kafka (`COMMITS`) followed by a remark that says it is not a tag:
"`PartitionChangeBuilder.electLeader` @ 1eb7644 (trunk, not a tag)". Text read in a copy whose
commit is unknown is named in a part with no `@` ("in a copy of unknown commit"), so it claims no
place. `problems` checks the form of every place; `python -m model.citations KAFKA_GIT...`
checks every cited method against clones (or bare mirrors) of github.com/apache/kafka, no
network needed: the class's source file at that place must define or call the method. A test
runs it where $REPLCHECK_KAFKA_GIT names such clones (separated by the path separator).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Sequence

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""

RELEASE_TAGS = tuple("""
    0.10.0.0 0.10.0.1 0.10.1.0 0.10.1.1 0.10.2.0 0.10.2.1 0.10.2.2 0.11.0.0 0.11.0.1 0.11.0.2
    1.0.0 1.0.1 1.0.2 1.1.0 1.1.1 2.0.0 2.0.1 2.1.0 2.1.1 2.2.0 2.2.1 2.2.2 2.3.0 2.3.1 2.4.0 2.4.1
    2.5.0 2.5.1 2.6.0 2.6.1 2.6.2 2.6.3 2.7.0 2.7.1 2.7.2 2.8.0 2.8.1 2.8.2 3.0.0 3.0.1 3.0.2
    3.1.0 3.1.1 3.1.2 3.2.0 3.2.1 3.2.2 3.2.3 3.3.0 3.3.1 3.3.2 3.4.0 3.4.1 3.5.0 3.5.1 3.5.2
    3.6.0 3.6.1 3.6.2 3.7.0 3.7.1 3.8.0 3.9.0-rc3
""".split())
"""The apache/kafka tags a citation may name: every release from 0.10.0.0 to 3.8.0, and
3.9.0-rc3, the last 3.9.0 release candidate in the clone read (its raft and metadata sources
are those of the 3.9.0 release, commit 84caaa6: the two differ only in the storage tool and the
version). No 3.9.0 or 4.0.0 tag was read."""

COMMITS = {
    "1eb7644349cb07139d6a3c1ad1986979647cac99": "apache/kafka trunk of 24 October 2024",
    "53364c539970785f9317c2ddab26a4e350f12b23": "apache/kafka's 4.0 branch, whose gradle.properties says 4.0.0",
    "e6d242113625f20108b64bf54e796fcbcff6d8a7": "apache/kafka trunk of 27 December 2024, before ProspectiveState",
}
"""The commits a citation may name (by a prefix of 7 or more hex digits), for text read at no tag."""

_METHOD = re.compile(r"`([A-Z]\w*)\.(\w+)`")
_PLACE = re.compile(r"[^,@\s][^,@]*")
"""A place: a run of text between commas and `@`s, once remarks are blanked out."""
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


def _outside_parentheses(text: str) -> str:
    """`text` with every parenthesised remark blanked out (they name Jiras and fields, not places)."""
    depth, kept = 0, []
    for ch in text:
        depth += ch == "("
        kept.append(ch if depth == 0 else " ")
        depth -= ch == ")" and depth > 0
    return "".join(kept)


def _named(tail: str) -> list[tuple[str, str]]:
    """The places named after a part's first `@` (its `tail`), each with the text that follows it."""
    bare = _outside_parentheses(tail)
    return [(m.group().strip(), tail[m.start() + len(m.group().strip()):]) for m in _PLACE.finditer(bare)]


def places(sources: str) -> list[tuple[str, str]]:
    """Every place a row's sources name after an `@`, with the text that follows it in its part
    (where a commit's remark is), in order."""
    return [named for part in sources.split(";") if "@" in part for named in _named(part.partition("@")[2])]


def commit_of(place: str) -> str | None:
    """The full id of the commit in `COMMITS` that `place` names, or None."""
    if not _COMMIT.fullmatch(place):
        return None
    return next((full for full in COMMITS if full.startswith(place)), None)


def problems(sources: str) -> list[str]:
    """What is wrong with the places a row's sources name: a word after `@` that is neither a
    tag of `RELEASE_TAGS` nor a commit of `COMMITS`, or a commit whose remark does not say that
    it is not a tag."""
    wrong = []
    for place, after in places(sources):
        if place in RELEASE_TAGS:
            continue
        if commit_of(place) is None:
            wrong.append(f"@ {place}: neither a release tag read nor a known commit")
        elif not re.match(r"\s*\([^)]*not a tag[^)]*\)", after):
            wrong.append(f"@ {place}: a commit, not followed by a remark that says it is not a tag")
    return wrong


def citations(sources: str) -> list[tuple[str, str, str]]:
    """(class, method, place) for every method a row's sources cite at every place."""
    cited = []
    for part in sources.split(";"):
        head, at, tail = part.partition("@")
        if at:
            cited += [(cls, method, place) for cls, method in _METHOD.findall(head) for place, _ in _named(tail)]
    return cited


def tables() -> dict[str, Sequence]:
    """Every model's rule table (rows with a `key` and their `sources`), by model."""
    from .fetch.rule_table import ROWS as FETCH
    from .kraft.rule_table import ROWS as KRAFT

    return {"fetch": FETCH, "kraft": KRAFT}


def every_citation(rows: Sequence) -> list[tuple[str, str, str, str]]:
    """(row, class, method, place) for every citation of every row."""
    return [(row.key, *cited) for row in rows for cited in citations(row.sources)]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False).stdout


def _ref(place: str) -> str:
    """What git calls a place: a tag, or a commit's full id."""
    return commit_of(place) or place


def _has(repo: Path, ref: str) -> bool:
    """The clone `repo` holds commit or tag `ref`."""
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"{ref}^{{commit}}"],
                          capture_output=True, check=False).returncode == 0


def _clone_with(repos: Sequence[Path], place: str) -> Path | None:
    """The first of the clones `repos` that holds `place`, or None."""
    return next((repo for repo in repos if _has(repo, _ref(place))), None)


def unchecked(repos: Sequence[Path], rows: Sequence) -> list[str]:
    """The places `rows` cite that none of the Kafka clones `repos` holds (a shallow or old
    copy, or a commit no clone at hand has), whose citations `missing` cannot check."""
    named = sorted({place for *_, place in every_citation(rows)})
    return [place for place in named if _clone_with(repos, place) is None]


def missing(repos: Sequence[Path], rows: Sequence) -> list[str]:
    """The citations of `rows` whose method the class's file at that place does not name, in
    the first of the Kafka clones `repos` that holds the place, each as 'row: Class.method @
    place (why)'; places no clone holds (`unchecked`) are skipped."""
    problems_found, files, clones = [], {}, {}
    for row, cls, method, place in every_citation(rows):
        if place not in clones:
            clones[place] = _clone_with(repos, place)
        repo, ref = clones[place], _ref(place)
        if repo is None:
            continue
        if (repo, ref) not in files:
            files[repo, ref] = _git(repo, "ls-tree", "-r", "--name-only", ref).split()
        paths = [p for p in files[repo, ref] if p.endswith((f"/{cls}.scala", f"/{cls}.java"))]
        text = "".join(_git(repo, "show", f"{ref}:{p}") for p in paths)
        if not text:
            hits = _git(repo, "grep", "-l", "-E", rf"(class|object|trait|interface) {cls}\b", ref, "--", "*.scala",
                        "*.java").split()
            text = "".join(_git(repo, "show", hit) for hit in hits)
        if not text:
            problems_found.append(f"{row}: {cls}.{method} @ {place} (no class {cls} at {place})")
        elif not re.search(rf"\b{method}\b", text):
            problems_found.append(f"{row}: {cls}.{method} @ {place} ({cls} at {place} has no {method})")
    return problems_found


def clones_named() -> list[Path]:
    """The Kafka clones $REPLCHECK_KAFKA_GIT names (separated by the path separator), if any."""
    return [Path(p) for p in os.environ.get("REPLCHECK_KAFKA_GIT", "").split(os.pathsep) if p]


if __name__ == "__main__":
    failed, clones = False, [Path(arg) for arg in sys.argv[1:]]
    for model, rows in tables().items():
        wrong = [f"{row.key}: {problem}" for row in rows for problem in problems(row.sources)]
        found, absent = missing(clones, rows), unchecked(clones, rows)
        total = len([c for c in every_citation(rows) if c[3] not in absent])
        sys.stdout.write("".join(f"{model}: {line}\n" for line in wrong + found))
        sys.stdout.write(f"{model}: {total - len(found)} of {total} citations name a method at a place that has it"
                         + (f"; not checked, at places no clone holds: {', '.join(absent)}" if absent else "") + "\n")
        failed = failed or bool(found) or bool(wrong)
    sys.exit(1 if failed else 0)
