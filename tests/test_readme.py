"""The README and the docs are tested: every example they show is run and must print what they say.

`benchmarks.readme_examples` finds the examples and compares outputs (see its docstring for the
markers). Here each document's quick examples run in order in one scratch directory, as a reader
would type them (a later example may read a trace an earlier one saved); the long ones are run by
`python -m benchmarks.readme_times`, and this test checks that docs/performance.md quotes their measured
times.
"""

from __future__ import annotations

import json

import pytest

from benchmarks import readme_examples as ex
from benchmarks.common import PERFORMANCE
from benchmarks.readme_times import RESULTS, times_section

DOCUMENTS = [path.relative_to(ex.ROOT).as_posix() for path in ex.documents()]


def test_every_example_is_marked():
    """A code block with a replcheck command is a run example, a long one, or shown for a reason."""
    for path in ex.documents():
        ex.examples(path)  # raises ExampleError naming the line


@pytest.mark.parametrize("document", DOCUMENTS)
def test_examples_print_what_the_document_shows(document, tmp_path):
    examples = [e for e in ex.examples(ex.ROOT / document) if e.kind == "run"]
    if not examples:
        pytest.skip(f"{document} has no quick examples")
    problems = []
    for example in examples:
        problems += [f"{example.name}: {problem}" for problem in ex.failures(ex.run(example, tmp_path))]
    assert not problems, "\n".join(problems)


def test_repeated_examples_are_the_ones_they_repeat():
    """An `as in DOCUMENT` example runs nowhere itself: its commands are DOCUMENT's, word for
    word, and what it shows is what DOCUMENT shows for them (and DOCUMENT's run is tested)."""
    problems = [p for path in ex.documents() for e in ex.examples(path) if e.kind == "as in"
                for p in ex.repeated_elsewhere(e)]
    assert not problems, "\n".join(problems)


def test_a_drifted_repetition_is_caught(tmp_path):
    (tmp_path / "a.md").write_text("```console\n$ replcheck list\nmodels\n...\nspec\n```\n")
    copy = "<!-- example: as in a.md -->\n```console\n$ replcheck list\n{shown}\n```\n"
    for shown, ok in [("spec", True), ("models\n...\nspec", True), ("fetch", False), ("spec\nmodels", False)]:
        (tmp_path / "b.md").write_text(copy.format(shown=shown))
        (example,) = ex.examples(tmp_path / "b.md", tmp_path)
        assert (ex.repeated_elsewhere(example, tmp_path) == []) == ok, shown
    (tmp_path / "b.md").write_text(copy.format(shown="spec").replace("replcheck list", "replcheck list --json"))
    (example,) = ex.examples(tmp_path / "b.md", tmp_path)
    assert "is not an example of a.md" in ex.repeated_elsewhere(example, tmp_path)[0]


def test_a_changed_count_or_verdict_fails(tmp_path):
    """The comparison catches a hand edit: a count, a verdict or a step count that the output
    does not print."""
    readme = ex.examples(ex.ROOT / "README.md")
    example = next(e for e in readme if e.kind == "run" and "compare --invariant strong-isr" in e.commands[0].text)
    ran = ex.run(example, tmp_path)
    assert ex.failures(ran) == []
    command = example.commands[0]
    for before, after in [("5,709", "5,710"), ("violated in 8 steps", "violated in 9 steps"), ("holds", "violated")]:
        edited = tuple(row.replace(before, after, 1) for row in command.shown)
        assert edited != command.shown
        assert ex.mismatch(edited, ran[0].output) is not None, before


def test_times_and_abridgement_are_not_claims():
    """Durations and rates may differ from run to run, and `...` skips lines."""
    shown = ("time              0.12 s (49,478 distinct states/s)", "...", "│ depth │ 8 │")
    printed = "model x\ntime              3.40 s (1,234 distinct states/s)\nother\n│ depth │   8   │\n"
    assert ex.mismatch(shown, printed) is None
    assert ex.mismatch(("│ depth │ 9 │",), printed) is not None


def test_readme_quotes_the_measured_times_of_its_long_examples():
    """Each long example's cold and warm times, as `python -m benchmarks.readme_times` last
    measured them, are what the "Measured times" table of docs/performance.md says."""
    recorded = json.loads(RESULTS.read_text())
    long_ones = [e for path in ex.documents() for e in ex.examples(path) if e.kind == "long"]
    measured = {run["command"] for run in recorded["runs"]}
    missing = [e.name for e in long_ones for c in e.commands if c.text not in measured]
    assert not missing, f"long examples never measured (run python -m benchmarks.readme_times): {missing}"
    page = PERFORMANCE.read_text()
    assert times_section(recorded) in page, "docs/performance.md's measured times are stale: python -m benchmarks.readme_times --readme"
