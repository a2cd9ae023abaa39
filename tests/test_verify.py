"""CI-ready results: `--junit` reports and `replcheck verify MANIFEST` against known verdicts."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from checker.ci import manifest as manifest_module
from conftest import run_cli

HISTORY = Path(__file__).resolve().parents[1] / "examples" / "kafka-history.toml"

CHANGED = ('variant = "kip320"\nbounds = { replicas = 2, acks = "1" }\nproperty = "acked-survives"\n'
           'outcome = "violated"\nsteps = 5\n')
"""One expectation of the shipped manifest, which the surprise test states wrongly (4 steps)."""


def junit_counts_agree(path: Path) -> ET.Element:
    """Parse a JUnit report and check its structure and that every tests/failures/skipped count
    matches its testcases; return the root."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert suites
    for element, cases in [(root, root.findall("testsuite/testcase"))] + [(s, s.findall("testcase")) for s in suites]:
        assert int(element.get("tests")) == len(cases)
        assert int(element.get("failures")) == sum(c.find("failure") is not None for c in cases)
        assert int(element.get("skipped")) == sum(c.find("skipped") is not None for c in cases)
        assert int(element.get("errors")) == 0
        for case in cases:
            assert case.get("classname").startswith("replcheck.") and case.get("name")
    return root


def line_of(text: str, snippet: str) -> int:
    """The line of the [[expect]] header of the entry holding `snippet`."""
    before = text[:text.index(snippet)].splitlines()
    return max(n for n, line in enumerate(before, 1) if line.strip() == "[[expect]]")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """One run of the shipped manifest, with its JUnit report."""
    report = tmp_path_factory.mktemp("history") / "history.xml"
    return run_cli("verify", str(HISTORY), "--junit", str(report)), report


@pytest.fixture(scope="module")
def surprised(tmp_path_factory):
    """One run of a copy of the manifest in which one expectation is wrong (4 steps, not 5)."""
    text = HISTORY.read_text()
    assert text.count(CHANGED) == 1
    copy = tmp_path_factory.mktemp("manifest") / "changed.toml"
    copy.write_text(text.replace(CHANGED, CHANGED.replace("steps = 5", "steps = 4")))
    report = copy.with_suffix(".xml")
    return run_cli("verify", str(copy), "--junit", str(report)), report, line_of(text, CHANGED)


def test_the_shipped_history_verifies(history):
    result, report = history
    assert result.exit_code == 0, result.output
    assert "SURPRISE" not in result.stdout and "0 surprises" in result.stdout
    assert b"<failure" not in report.read_bytes()


def test_the_history_report_is_junit_with_one_testcase_per_expectation(history):
    _, report = history
    root = junit_counts_agree(report)
    expectations = sum(line.strip() == "[[expect]]" for line in HISTORY.read_text().splitlines())
    assert int(root.get("tests")) == expectations and int(root.get("failures")) == 0
    case = root.find("testsuite/testcase")
    assert case.get("classname") == "replcheck.spec.hw" and case.get("name") == "strong-isr"
    assert case.get("file") == str(HISTORY) and case.get("line")


def test_a_wrong_expectation_is_a_surprise_on_its_row(surprised):
    result, report, line = surprised
    assert result.exit_code == 1, result.output
    rows = [row for row in result.stdout.splitlines() if "SURPRISE" in row]
    assert len(rows) == 1
    row = rows[0]
    assert row.split("│")[1].strip() == str(line)
    assert "acked-survives" in row and "violated in 4 steps" in row and "violated in 5 steps" in row
    assert "1 surprise " in result.stdout


def test_the_surprise_is_the_one_junit_failure(surprised):
    _, report, line = surprised
    root = junit_counts_agree(report)
    failures = root.findall(".//testcase[failure]")
    assert [(c.get("name"), c.get("line")) for c in failures] == [("acked-survives", str(line))]
    failure = failures[0].find("failure")
    assert failure.get("message") == "expected violated in 4 steps, found violated in 5 steps"
    assert "acked-before-replicated" in failure.text


JIRA = Path(__file__).resolve().parents[1] / "examples" / "kafka-jira.toml"
"""Kafka's replication bugs, each violated under the release that had it and holding under the
release whose KIP fixed it."""


def flipped(text: str) -> str:
    """The manifest with every outcome turned round (violated <-> holds; steps, and the reasons
    for an audit that only a trace has, dropped)."""
    text = "\n".join(line for line in text.splitlines()
                     if not line.startswith(("steps = ", "not-judged = ", "allow-deviations = ")))
    return text.replace('outcome = "violated"', 'outcome = "@"').replace('outcome = "holds"', 'outcome = "violated"') \
        .replace('outcome = "@"', 'outcome = "holds"') + "\n"


def test_each_jira_story_fails_under_its_release_and_holds_after_its_fix_where_a_release_does():
    """Entries come by story (the Jira, or Last Replica Standing, their notes name first): each
    story is violated under the release that had the bug, with its shortest trace's length stated;
    an entry that holds does so at the bounds and for the property of one of its story's
    violations, under a later release; and no entry allows a deviation, so `verify` audits every
    trace as its release's own (`replcheck trace audit`)."""
    import re
    import tomllib

    from model.fetch.rules import VARIANTS

    order = list(VARIANTS)
    stories: dict[str, list[dict]] = {}
    for entry in tomllib.loads(JIRA.read_text())["expect"]:
        assert "allow-deviations" not in entry
        story = re.match(r"(KAFKA-\d+|Last Replica Standing)", entry["note"])
        assert story, entry["note"]
        stories.setdefault(story.group(1), []).append(entry)
    # KAFKA-6361's and KAFKA-6880's stories are not the shortest on Kafka 0.11 to 2.0's own controller
    # at the bounds tried (the manifest says why), so they have no entries
    assert set(stories) == {"KAFKA-1211", "KAFKA-7415", "KAFKA-14139", "KAFKA-15583", "Last Replica Standing"}
    for story, entries in stories.items():
        violated = [e for e in entries if e["outcome"] == "violated"]
        assert violated and all("steps" in e for e in violated), story
        for held in (e for e in entries if e["outcome"] == "holds"):
            same = [v for v in violated if (v["property"], v.get("bounds")) == (held["property"], held.get("bounds"))]
            assert same, (story, held["note"])
            assert any(order.index(held["variant"]) >= order.index(v["variant"]) for v in same), story


def test_kafkas_jira_history_verifies_and_flipping_any_entry_makes_it_fail(tmp_path):
    """One run of the manifest, and one of a copy with every entry flipped: since each entry is
    checked on its own row, every flipped entry must be a surprise on its own."""
    assert run_cli("verify", str(JIRA)).exit_code == 0
    copy = tmp_path / "flipped.toml"
    copy.write_text(flipped(JIRA.read_text()))
    report = tmp_path / "flipped.xml"
    result = run_cli("verify", str(copy), "--junit", str(report))
    assert result.exit_code == 1
    root = junit_counts_agree(report)
    assert int(root.get("failures")) == int(root.get("tests")) == JIRA.read_text().count("[[expect]]")


def test_check_reports_each_violated_invariant_as_a_junit_failure(tmp_path):
    report = tmp_path / "check.xml"
    result = run_cli("check", "--model", "spec", "--variant", "hw", "--invariant", "strong-isr", "--engine", "local",
                     "--junit", str(report))
    assert result.exit_code == 1
    root = junit_counts_agree(report)
    (case,) = root.findall("testsuite/testcase")
    assert case.get("classname") == "replcheck.spec.hw" and case.get("name") == "strong-isr"
    failure = case.find("failure")
    assert failure.get("message").startswith("strong-isr violated after 8 steps: ")
    assert "\n" not in failure.get("message")
    assert "trace length: 8 steps" in failure.text


def test_compare_reports_failures_with_their_saved_traces(tmp_path):
    report = tmp_path / "compare.xml"
    result = run_cli("compare", "--model", "spec", "--variants", "hw,kip320", "--invariant", "strong-isr",
                     "--invariant", "leader-in-isr-or-none", "--engine", "local",
                     "--trace-dir", str(tmp_path / "traces"), "--junit", str(report))
    assert result.exit_code == 0, result.output
    root = junit_counts_agree(report)
    verdicts = {(c.get("classname"), c.get("name")): c.find("failure") for c in root.iter("testcase")}
    assert set(verdicts) == {(f"replcheck.spec.{v}", p) for v in ("hw", "kip320")
                             for p in ("strong-isr", "leader-in-isr-or-none")}
    failed = {key for key, failure in verdicts.items() if failure is not None}
    assert failed == {("replcheck.spec.hw", "strong-isr")}
    trace = tmp_path / "traces" / "spec-hw-strong-isr.json"
    assert trace.exists() and f"trace: {trace}" in verdicts["replcheck.spec.hw", "strong-isr"].text


BASE = '[[expect]]\nmodel = "spec"\nvariant = "hw"\nproperty = "strong-isr"\noutcome = "violated"\nsteps = 8\n\n'


VIOLATED_FETCH = 'model = "fetch"\nproperty = "acked-survives"\noutcome = "violated"\n'
"""The start of an entry of a model whose traces are audited (its other keys follow)."""


@pytest.mark.parametrize("entry, says", [
    ('model = "spec"\nproperty = "weak-isr"\noutcom = "holds"\n', "unknown key 'outcom'"),
    ('model = "spec"\nvariant = "kip999"\nproperty = "weak-isr"\noutcome = "holds"\n', "unknown variant 'kip999'"),
    ('model = "spec"\nproperty = "weak-isrr"\noutcome = "holds"\n', "unknown property 'weak-isrr'"),
    ('model = "spec"\nbounds = { max-crashes = 1 }\nproperty = "weak-isr"\noutcome = "holds"\n',
     "unknown bound 'max-crashes'"),
    ('model = "spec"\nproperty = "weak-isr"\noutcome = "fine"\n', "outcome 'fine'"),
    ('model = "nope"\nproperty = "weak-isr"\noutcome = "holds"\n', "unknown model 'nope'"),
    ('model = "fetch"\nbounds = { quorum = "majority" }\nproperty = "strong-isr"\noutcome = "holds"\n',
     "does not apply"),
    ('model = "kraft"\nvariant = "kip595"\nproperty = "no-illegal-state"\noutcome = "violated"\n'
     'allow-deviations = { stand = "why" }\n', "allow-deviations applies to a model whose rule table has deviations"),
    (VIOLATED_FETCH + 'allow-deviations = ["offset-out-of-range"]\n',
     "allow-deviations must be a table of rule-table rows, each with why it is allowed"),
    (VIOLATED_FETCH + 'allow-deviations = { offset-out-of-range = " " }\n',
     "allow-deviations row 'offset-out-of-range' must say why in words"),
    (VIOLATED_FETCH + 'not-judged = 1\n', "not-judged must say why in words, such as"),
    (VIOLATED_FETCH + 'not-judged = ""\n', "not-judged must say why in words, such as"),
    (VIOLATED_FETCH.replace('"violated"', '"holds"') + 'not-judged = "why"\n',
     "not-judged applies to outcome violated or reachable (a trace to audit), not holds"),
    ('model = "spec"\nproperty = "weak-isr"\noutcome = "violated"\nnot-judged = "why"\n',
     "not-judged applies to a model whose traces are audited against Kafka's code (fetch, kraft), not spec"),
])
def test_a_bad_entry_is_one_line_naming_the_file_and_its_line(tmp_path, entry, says):
    manifest = tmp_path / "bad.toml"
    manifest.write_text(BASE + "[[expect]]\n" + entry)
    result = run_cli("verify", str(manifest))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(f"Error: {manifest} line 8: ") and says in result.stderr


@pytest.mark.parametrize("text, says", [
    (BASE + '[[expect]]\nmodel = "spec\n', "not valid TOML"),
    ('title = "history"\n', "unknown top-level key 'title'"),
    ("", "no [[expect]] entries"),
    (None, "cannot read it"),
])
def test_a_bad_file_is_one_line_naming_it(tmp_path, text, says):
    manifest = tmp_path / "bad.toml"
    if text is not None:
        manifest.write_text(text)
    result = run_cli("verify", str(manifest))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(f"Error: {manifest}: ") and says in result.stderr


SMALL = '[[expect]]\nmodel = "two-phase"\nbounds = { rms = 1 }\nproperty = "consistent"\noutcome = "holds"\n'
"""A manifest of one expectation that holds, searched in a few milliseconds."""
FOUND = SMALL.replace('"holds"', '"violated"')
"""The same expectation stated wrongly (a surprise), so that its note goes into the report."""


DEEP = " line 6: arrays, inline tables or a dotted key nested more than 16 deep"
LONG = "... (500,000 characters)"


@pytest.mark.parametrize("text, says", [
    (SMALL.replace("rms = 1", "rms = " + "9" * 5000), ": not valid TOML: a whole number of more than 4,300 digits"),
    (FOUND + "steps = " + "9" * 5000 + "\n", ": not valid TOML: a whole number of more than 4,300 digits"),
    (SMALL + "note = " + "[" * 5000 + "]" * 5000 + "\n", DEEP),
    (SMALL + "x = " + "[" * 100_000, DEEP),
    (SMALL + "note." + ".".join(["a"] * 5000) + " = 1\n", DEEP),
    (SMALL + "k" * 10_000_000 + " = 1\n", f": cannot read it ({len(SMALL) + 10_000_005:,} bytes, more than the 1 MiB "
                                          "a manifest file may have)"),
    (("[" + "k" * 500_000 + "]\n") * 2, ": not valid TOML: Cannot declare ('kkkk"),
    (FOUND + "steps = 10001\n", " line 1: steps must be at most 10,000 (the longest trace replcheck reads), got 10001"),
    (SMALL.replace("1 }", "0x" + "f" * 100_000 + " }"), " line 1: --rms must be between 1 and 10, got <int too large"),
    (SMALL.replace("1 }", "[" + "1, " * 100_000 + "] }"), " line 1: --rms must be a whole number, got [1, 1, 1,"),
    (SMALL + 'note = "' + "n" * 1001 + '"\n', " line 1: note has 1,001 characters, more than the 1,000 a note may "
                                             "have"),
    (SMALL + "k" * 500_000 + " = 1\n", " line 1: unknown key '" + "k" * 39 + LONG),
    (SMALL + '"\\u001b[2J" = 1\n', " line 1: unknown key '\\x1b[2J'"),
    (BASE.replace("hw", "v" * 500_000), " line 1: unknown variant '" + "v" * 39 + LONG),
], ids=["huge-bound", "huge-steps", "deep-note", "unclosed-brackets", "long-dotted-key", "10-MB", "long-table-name",
        "steps-past-traces", "huge-hex-bound", "long-array-bound", "long-note", "long-key", "escape-key", "long-variant"])
def test_a_manifest_past_the_limits_is_one_short_line(tmp_path, text, says):
    manifest = tmp_path / "huge.toml"
    manifest.write_text(text)
    with pytest.raises(manifest_module.ManifestError) as refused:
        manifest_module.load(manifest)
    assert str(refused.value).startswith(f"{manifest}{says}") and len(str(refused.value)) < 300
    result = run_cli("verify", str(manifest))
    assert result.exit_code == 2 and result.stderr == f"Error: {refused.value}\n"


def test_a_note_with_an_escape_sequence_is_shown_escaped_and_the_report_stays_xml(tmp_path):
    manifest, report = tmp_path / "note.toml", tmp_path / "report.xml"
    manifest.write_text(FOUND + 'note = "\\u001b[31mRED\\u0000"\n')
    result = run_cli("verify", str(manifest), "--junit", str(report))
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\\x1b[31mRED\\x00" in result.stdout
    failure = junit_counts_agree(report).find(".//failure")
    assert failure.text.endswith("note: \\x1b[31mRED\\x00")


@pytest.mark.parametrize("command", [
    ["check", "--model", "spec", "--engine", "local"],
    ["compare", "--model", "spec", "--engine", "local"],
    ["sweep", "--model", "fetch", "--engine", "local"],
    ["simulate", "--model", "spec", "--engine", "local", "--walks", "1"],
    ["verify", str(HISTORY)],
])
@pytest.mark.parametrize("where", ["missing/report.xml", "/proc/report.xml", "."])
def test_an_unwritable_junit_path_is_refused_before_the_search(tmp_path, command, where):
    target = tmp_path / where if not where.startswith("/") else Path(where)
    result = run_cli(*command, "--junit", str(target))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: --junit {target}: cannot write a JUnit report there")
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""
    assert not (tmp_path / "missing").exists() and list(tmp_path.iterdir()) == []


JUDGED_ELSEWHERE = ('[[expect]]\nmodel = "fetch"\nvariant = "{variant}"\nbounds = {{ replicas = 2, log-size = 1, '
                    'max-records = 1, max-epoch = 1, acks = "1" }}\nproperty = "acked-survives"\noutcome = "violated"\n'
                    'steps = 5\n{reason}')
"""An acks=1 loss in five steps (a search of a fraction of a second), under `variant`, with `reason` for an entry."""


@pytest.mark.parametrize("variant, reason, says", [
    ("kip320+hw-advance=strict-min-isr", "", "its trace is not judged (rule set kip320+hw-advance=strict-min-isr "
     "switches hw-advance=strict-min-isr, so it is no Kafka release), and the entry does not say why (not-judged)"),
    ("kip320+hw-advance=strict-min-isr", 'not-judged = "kafka37\'s HW rule on a 2.1 broker"\n', None),
    ("kip320", 'not-judged = "no release"\n', "not-judged says why its trace is not judged, and it is judged"),
])
def test_a_trace_verify_does_not_judge_fails_unless_the_entry_says_why(tmp_path, variant, reason, says):
    manifest, report = tmp_path / "judged.toml", tmp_path / "judged.xml"
    manifest.write_text(JUDGED_ELSEWHERE.format(variant=variant, reason=reason))
    result = run_cli("verify", str(manifest), "--junit", str(report))
    case = junit_counts_agree(report).find(".//testcase")
    if says is None:
        assert result.exit_code == 0, result.output
        assert case.find("system-out").text.endswith("Kafka's code: not judged: kafka37's HW rule on a 2.1 broker")
    else:
        assert result.exit_code == 1
        assert case.find("failure").get("message").endswith(says)


def test_an_allowed_deviation_is_shown_with_its_reason(history):
    _, report = history
    notes = [case.find("system-out").text for case in junit_counts_agree(report).iter("testcase")
             if case.find("system-out") is not None]
    allowed = [note for note in notes if "deviation allowed" in note]
    assert len(allowed) == 2 and all(note.endswith(
        "Kafka's code: deviation allowed: offset-out-of-range (shown on purpose: Kafka answers this FETCH with "
        "OFFSET_OUT_OF_RANGE)") for note in allowed)
