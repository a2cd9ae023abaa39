"""The command examples of the README and the docs: found, run, and checked against what they show.

A reader runs what a document shows and expects what it says, so each example is a claim to
test. The documents mark their examples in three ways:

- a ```` ```console ```` block: `$ ` lines are commands, the lines under each its output as
  shown (abridged where a line holds only `...`). The README test runs it (`tests/test_readme.py`);
- the same preceded by `<!-- example: long -->`: it takes longer than a minute, so
  `python -m benchmarks.readme_times` runs it instead, checks it the same way and records how
  long it took with an empty kernel cache (cold) and a filled one (warm);
- `<!-- example: table of `COMMAND` -->` (or `long table of`) before a Markdown table: the
  table is that command's output, row for row;
- `<!-- example: as in DOCUMENT -->` before a ```` ```console ```` block: the same commands as
  examples of DOCUMENT (the README, say), where they are run or timed; it is not run again,
  but each command must be there, word for word, and each output line shown here must be
  among those shown there (`repeated_elsewhere`), so a copy cannot drift from its original;
- `<!-- example: shown (WHY) -->` before a code block: shown, not run (it needs a cluster, a
  Ctrl-C at a chosen moment, an hour, ...), and WHY says so.

Any other code block that holds a `replcheck` command is an unmarked example, which the README
test refuses, so no example goes untested by accident. Output is compared line by line with
runs of spaces and of table rules collapsed and times masked (`0.12 s`, `49,478 states/s`),
so every count, verdict and step count shown must be what the command prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/*.md", "docs/models/*.md")
KINDS = ("run", "long", "as in", "shown")
MARKER = re.compile(r"<!--\s*example:\s*(?P<body>.*?)\s*-->", re.S)
TABLE_OF = re.compile(r"^(?P<long>long )?table of `(?P<command>[^`]+)`$")
SHOWN = re.compile(r"^shown \((?P<why>.+)\)$", re.S)
AS_IN = re.compile(r"^as in (?P<document>\S+\.md)$")
COMMAND_LINE = re.compile(r"^\s*(\$ )?(replcheck|python -m cli)\b")
# What changes from run to run and is no claim: durations and rates.
VOLATILE = [(re.compile(r"\b\d[\d,]*(\.\d+)? (distinct |generated )?(states|walks|pairs)/s\b"), "<rate>"),
            (re.compile(r"\b\d+(\.\d+)? ?(s|ms|min)\b"), "<time>")]


class ExampleError(ValueError):
    """A document marks an example in a way this module cannot read (the message names the line)."""


@dataclass(frozen=True)
class Command:
    """One command of an example and the output lines the document shows under it."""

    text: str
    shown: tuple[str, ...]


@dataclass(frozen=True)
class Example:
    """An example: where it is, how it is tested (`run`, `long`, `as in`, `shown`), its
    commands, and for a shown one why it is not run (for an `as in` one, the document it
    repeats)."""

    document: str
    line: int
    kind: str
    commands: tuple[Command, ...]
    why: str = ""

    @property
    def name(self) -> str:
        """`README.md:147`: where a reader finds it."""
        return f"{self.document}:{self.line}"


def documents(root: Path = ROOT) -> list[Path]:
    """Every document whose examples are tested, README first."""
    found: list[Path] = []
    for pattern in DOCUMENTS:
        found += sorted(root.glob(pattern))
    return found


def examples(path: Path, root: Path = ROOT) -> list[Example]:
    """The examples of one document, in order. Raises ExampleError for a marker that is not
    followed by what it marks, and for a code block with a command and no marker."""
    name = path.resolve().relative_to(root).as_posix()
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    marker: tuple[str, int] | None = None
    for token in tokens:
        if token.map is None or token.nesting == -1 or token.level != 0:
            continue
        line = token.map[0] + 1
        if token.type == "html_block" and MARKER.search(token.content):
            if marker is not None:
                raise ExampleError(f"{name}:{marker[1]}: example marker followed by another marker")
            marker = (MARKER.search(token.content)["body"].strip(), line)
            continue
        if token.type in ("fence", "code_block"):
            example = _code_example(name, line, token, marker)
        elif token.type == "table_open":
            example = _table_example(name, line, lines[token.map[0]:token.map[1]], marker)
        else:
            example = None
            if marker is not None:
                raise ExampleError(f"{name}:{marker[1]}: example marker not followed by a code block or a table")
        if example is not None:
            found.append(example)
        marker = None
    if marker is not None:
        raise ExampleError(f"{name}:{marker[1]}: example marker at the end of the document")
    return found


def _code_example(name: str, line: int, token, marker) -> Example | None:
    body = token.content.splitlines()
    console = token.type == "fence" and token.info.strip() == "console"
    if marker is None:
        if console:
            return Example(name, line, "run", _console_commands(name, line, body))
        if any(COMMAND_LINE.match(text) for text in body):
            raise ExampleError(f"{name}:{line}: a code block with a replcheck command is neither a ```console "
                               "example nor marked `<!-- example: shown (why) -->`")
        return None
    text, at = marker
    shown = SHOWN.match(text)
    if shown:
        return Example(name, line, "shown", (), shown["why"])
    if text in ("run", "long") and console:
        return Example(name, line, text, _console_commands(name, line, body))
    repeats = AS_IN.match(text)
    if repeats and console:
        return Example(name, line, "as in", _console_commands(name, line, body), repeats["document"])
    raise ExampleError(f"{name}:{at}: `example: {text}` must mark a ```console block (run, long or `as in "
                       "DOCUMENT`) or say `shown (why)`")


def _table_example(name: str, line: int, table: list[str], marker) -> Example | None:
    if marker is None:
        return None
    text, at = marker
    match = TABLE_OF.match(text)
    if not match:
        raise ExampleError(f"{name}:{at}: a table's marker reads `example: table of `COMMAND``")
    kind = "long" if match["long"] else "run"
    return Example(name, line, kind, (Command(match["command"], tuple(table)),))


def _console_commands(name: str, line: int, body: list[str]) -> tuple[Command, ...]:
    commands: list[Command] = []
    text: list[str] = []
    shown: list[str] = []
    continued = False
    for row in body:
        if continued or row.startswith("$ "):
            if not continued and text:
                commands.append(Command(" ".join(text), tuple(shown)))
                text, shown = [], []
            part = row[2:] if row.startswith("$ ") and not continued else row
            continued = part.rstrip().endswith("\\")
            text.append(part.rstrip().rstrip("\\").strip())
        else:
            shown.append(row)
    if text:
        commands.append(Command(" ".join(text), tuple(shown)))
    if not commands:
        raise ExampleError(f"{name}:{line}: a console example without a `$ ` command")
    return tuple(commands)


def repeated_elsewhere(example: Example, root: Path = ROOT) -> list[str]:
    """What an `as in DOCUMENT` example claims that DOCUMENT's run or long examples do not: a
    command that is not among theirs word for word, or output lines that the same command's
    shown output there does not hold, in order."""
    original = root / example.why
    if not original.is_file():
        return [f"{example.name}: `as in {example.why}`: no such document"]
    there = {command.text: command.shown for other in examples(original, root) if other.kind in ("run", "long")
             for command in other.commands}
    problems = []
    for command in example.commands:
        if command.text not in there:
            problems.append(f"{example.name}: `$ {command.text}` is not an example of {example.why}")
            continue
        why = mismatch(command.shown, "\n".join(there[command.text]))
        if why is not None:
            problems.append(f"{example.name}: `$ {command.text}` shows what {example.why} does not: {why}")
    return problems


def normalised(line: str) -> str:
    """A line as compared: times and rates masked, runs of spaces and of table rules collapsed."""
    for pattern, mask in VOLATILE:
        line = pattern.sub(mask, line)
    line = re.sub(r"([─━═┄-])\1+", r"\1", line)
    return re.sub(r"\s+", " ", line).strip()


def mismatch(shown: tuple[str, ...], output: str) -> str | None:
    """Why `output` does not show the `shown` lines (None when it does): the shown lines are
    pieces of the output, in order, each piece a run of consecutive lines; `...` separates
    pieces, and blank lines are ignored."""
    actual = [normalised(row) for row in output.splitlines() if row.strip()]
    pieces: list[list[str]] = [[]]
    for row in shown:
        if row.strip() == "...":
            pieces.append([])
        elif row.strip():
            pieces[-1].append(normalised(row))
    start = 0
    for piece in filter(None, pieces):
        at = _find(piece, actual, start)
        if at is None:
            return _closest(piece, actual, start)
        start = at + len(piece)
    return None


def _find(piece: list[str], actual: list[str], start: int) -> int | None:
    for at in range(start, len(actual) - len(piece) + 1):
        if actual[at:at + len(piece)] == piece:
            return at
    return None


def _closest(piece: list[str], actual: list[str], start: int) -> str:
    """The first shown line that the output does not continue with, for the failure message."""
    for depth in range(len(piece) - 1, 0, -1):
        at = _find(piece[:depth], actual, start)
        if at is not None:
            printed = actual[at + depth] if at + depth < len(actual) else "(the end of the output)"
            return f"shown {piece[depth]!r}, printed {printed!r}"
    return f"shown {piece[0]!r}, printed nothing like it"


@dataclass(frozen=True)
class Ran:
    """What running one command printed (stdout and stderr together), its exit code and wall time."""

    command: Command
    output: str
    returncode: int
    seconds: float


def run(example: Example, workdir: Path, env: dict[str, str] | None = None, timeout: float = 3600) -> list[Ran]:
    """Run the example's commands one after another in `workdir` (which sees the repository's
    `scenarios/` and `examples/`), with this Python's `replcheck` first on PATH."""
    for shared in ("scenarios", "examples"):
        if not (workdir / shared).exists():
            (workdir / shared).symlink_to(ROOT / shared)
    environment = dict(os.environ if env is None else env)
    environment["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), environment.get("PATH", "")])
    environment.setdefault("PYTHONPATH", str(ROOT))
    ran = []
    for command in example.commands:
        started = time.perf_counter()
        done = subprocess.run(["bash", "-c", command.text], cwd=workdir, env=environment, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        ran.append(Ran(command, done.stdout, done.returncode, time.perf_counter() - started))
    return ran


def failures(ran: list[Ran]) -> list[str]:
    """What each command's run contradicts in its example: output not as shown, or an exit code
    other than 0 or 1 (a violation) unless the example shows an error."""
    found = []
    for one in ran:
        shows_error = any(row.startswith("Error:") for row in one.command.shown)
        if one.returncode not in (0, 1) and not shows_error:
            found.append(f"$ {one.command.text}\n  exit {one.returncode}: {one.output.strip()[-400:]}")
            continue
        why = mismatch(one.command.shown, one.output)
        if why is not None:
            found.append(f"$ {one.command.text}\n  {why}")
    return found

