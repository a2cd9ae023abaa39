"""JUnit XML reports of replcheck's verdicts, so that a CI server (Jenkins, GitLab, GitHub's test
reporters) shows each property of each protocol variant as a test.

How verdicts map onto JUnit:

- one `<testsuite>` per search (a variant of `check` or `compare`, a configuration of `sweep`,
  the walks of `simulate`) or per `verify` manifest, all inside one `<testsuites>`;
- one `<testcase>` per (variant or configuration, property): `classname` is
  `replcheck.<model>.<variant>` (a sweep adds `.<setting>=<value>,...`), `name` the property;
- a violated invariant is a `<failure>`: its message is the one-line cause ("strong-isr violated
  after 8 steps: truncation to the follower's own HW, which lagged the leader's"), its text the
  saved trace's path when one was saved, the trace's length, and its steps;
- an invariant that holds, a witness that is unreachable, and a witness that is reachable (an
  answer, not a failure; the `<system-out>` says in how many steps) are passing testcases;
- simulate's "not found" is a passing testcase with a `<system-out>` note, since random walks
  that find nothing prove nothing either way;
- an undecided property (the search was cut short: `check` stops at the first violation unless
  given --continue, or at --max-depth) is `<skipped>`: the search did not answer it, and a
  green mark would claim it holds. A property that does not apply to a variant ('n/a' in a
  comparison) is `<skipped>` too.

Time: a search decides all its properties at once, so each testcase gets an equal share of its
search's seconds and the suite's total is the time spent searching.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterable, Mapping

from ..atomic_file import write_atomically
from ..output_kinds import JUNIT


def classname(model: str, variant: str | None, config: Mapping | None = None) -> str:
    """The testcase class of a search: `replcheck.<model>.<variant>`, with the sweep
    configuration or the manifest's bounds appended as `.name=value,...` (CLI spellings)."""
    name = f"replcheck.{model}" + (f".{variant}" if variant else "")
    if config:
        name += "." + ",".join(f"{k.replace('_', '-')}={_value(v)}" for k, v in config.items())
    return name


def _value(value) -> str:
    """A setting as the CLI writes it (flags on/off)."""
    return {True: "on", False: "off"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def testcase(cls: str, name: str, seconds: float = 0.0, *, failure: str | None = None, details: str = "",
             skipped: str | None = None, note: str = "", file: str | None = None,
             line: int | None = None) -> ET.Element:
    """One property's testcase: a `failure` (its one-line message, with `details` as the text)
    when the property failed, `skipped` (its reason) when it was not decided, and `note` as
    `<system-out>`; `file` and `line` point at where the expectation was written (a manifest)."""
    case = ET.Element("testcase", {"classname": cls, "name": name, "time": f"{seconds:.3f}"})
    if file is not None:
        case.set("file", file)
    if line is not None:
        case.set("line", str(line))
    if failure is not None:
        ET.SubElement(case, "failure", {"message": failure, "type": "violated"}).text = details or failure
    elif skipped is not None:
        ET.SubElement(case, "skipped", {"message": skipped})
    if note:
        ET.SubElement(case, "system-out").text = note
    return case


def testsuite(name: str, cases: Iterable[ET.Element], properties: Mapping | None = None) -> ET.Element:
    """A suite of testcases with the counts CI servers read (tests, failures, errors, skipped,
    time), and the search's bounds as `<properties>`."""
    cases = list(cases)
    suite = ET.Element("testsuite", {"name": name})
    if properties:
        listed = ET.SubElement(suite, "properties")
        for key, value in properties.items():
            ET.SubElement(listed, "property", {"name": key.replace("_", "-"), "value": _value(value)})
    suite.extend(cases)
    _count(suite, cases)
    return suite


def _count(element: ET.Element, cases: list[ET.Element]) -> None:
    """Set the JUnit counts of `element` from its testcases."""
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    element.set("errors", "0")
    element.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))
    element.set("time", f"{sum(float(c.get('time', 0)) for c in cases):.3f}")


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character XML 1.0 cannot hold, even as a character reference: most control characters, a
lone surrogate (from a path that is not UTF-8), U+FFFE and U+FFFF."""


def _xml_text(text: str) -> str:
    """`text` with each character XML 1.0 cannot hold written as its Python escape (an escape
    character as `\\x1b`), so that a note or path holding one leaves the report valid XML."""
    return _NOT_XML.sub(lambda char: repr(char.group())[1:-1], text)


def document(suites: Iterable[ET.Element]) -> bytes:
    """The whole report: `<testsuites name="replcheck">` with the totals of its suites, as
    UTF-8 XML with its declaration; every text and attribute passed through `_xml_text`."""
    root = ET.Element("testsuites", {"name": "replcheck"})
    root.extend(suites)
    _count(root, root.findall("testsuite/testcase"))
    for element in root.iter():
        if element.text is not None:
            element.text = _xml_text(element.text)
        element.attrib.update({key: _xml_text(value) for key, value in element.attrib.items()})
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_report(path: Path, suites: Iterable[ET.Element]) -> None:
    """Write the report to `path` atomically (the old file or the whole new one, never half a
    report); OSError when it cannot be written, or `path` is anything but a JUnit report
    replcheck wrote (`checker.output_kinds`: its root `<testsuites name="replcheck">` is the mark)."""
    write_atomically(Path(path), document(suites), JUNIT)


def cause(trace) -> str:
    """A counterexample's one-line cause: '<invariant> violated after k steps: <why>', the why
    from the trace's diagnosis (`traces.diagnosis`) when it has one, else '(<what the invariant
    demands>)'. For a witness's trace: 'reached <witness> in k steps: <what that is>'."""
    from traces.diagnosis import diagnose
    from traces.explain import TITLES
    from traces.outcome import outcome, property_of

    prop = property_of(trace)
    if prop.witness:
        return f"{outcome(trace)}: {prop.summary}"
    found = diagnose(trace)
    if found is None:
        return f"{outcome(trace)} ({prop.summary})"
    return f"{outcome(trace)}: {TITLES[found.kind]} ({found.kind.value})"


def trace_details(trace, model=None, trace_file: str | None = None) -> str:
    """A failure's text: the cause, where the trace was saved (or that it was not), its length,
    and its steps in the protocol's words (when the `model` is given)."""
    lines = [cause(trace), f"trace: {trace_file}" if trace_file else "trace: not saved (give --trace-dir to keep it)",
             f"trace length: {len(trace)} steps"]
    if model is not None:
        states = trace.states()
        lines += [f"{i}. {model.describe_step(step.action, states[i - 1], step.state)}"
                  for i, step in enumerate(trace.steps, 1)]
    return "\n".join(lines)


def result_suite(result, trace_files: Mapping[str, str], model=None, config: Mapping | None = None,
                 properties: Iterable[str] = ()) -> ET.Element:
    """The testsuite of one search (a `checker.result.CheckResult`): a testcase per checked
    property, and per name in `properties` it did not check ('n/a': skipped). `trace_files`
    maps a property to its saved trace, `model` lets failures list their steps, `config` is a
    sweep's configuration (part of the classname)."""
    cls = classname(result.model, result.variant, config)
    names = list(dict.fromkeys([*properties, *result.invariants]))
    share = result.seconds / max(len(result.invariants), 1)
    cases = []
    for name in names:
        verdict = result.verdict(name)
        trace = result.violations.get(name)
        if verdict == "violated":
            cases.append(testcase(cls, name, share, failure=cause(trace),
                                  details=trace_details(trace, model, trace_files.get(name))))
        elif verdict == "reachable":
            saved = f" (trace: {trace_files[name]})" if name in trace_files else ""
            cases.append(testcase(cls, name, share, note=f"witness reachable in {len(trace)} steps{saved}"))
        elif verdict == "unknown":
            cases.append(testcase(cls, name, share, skipped=f"undecided: the search stopped at the {result.stopped} "
                                                            "before deciding it"))
        elif verdict == "n/a":
            cases.append(testcase(cls, name, skipped="n/a: does not apply to these settings"))
        else:
            cases.append(testcase(cls, name, share))
    return testsuite(cls, cases, result.bounds)


def simulation_suite(model, properties, found: Mapping[str, object], walks: int, seconds: float,
                     trace_files: Mapping[str, str]) -> ET.Element:
    """The testsuite of a simulation: a testcase per property; `found` maps a violated (or
    reached) property to its shortened trace, `walks` is how many walks ran. A property not
    found passes with a note, since finding nothing proves nothing."""
    cls = classname(model.name, model.variant)
    share = seconds / max(len(properties), 1)
    cases = []
    for prop in properties:
        trace = found.get(prop.name)
        if trace is None:
            cases.append(testcase(cls, prop.name, share, note=f"not found in {walks:,} random walks (this proves "
                                                                "nothing: only `replcheck check` can say it holds)"))
        elif prop.witness:
            saved = f" (trace: {trace_files[prop.name]})" if prop.name in trace_files else ""
            cases.append(testcase(cls, prop.name, share, note=f"witness reachable in {len(trace)} steps{saved}"))
        else:
            cases.append(testcase(cls, prop.name, share, failure=cause(trace),
                                  details=trace_details(trace, model, trace_files.get(prop.name))))
    return testsuite(cls, cases, dict(model.parameters()))


def manifest_suite(name: str, answered, file: str | None = None) -> ET.Element:
    """The testsuite of a `replcheck verify` run: a testcase per expectation (`answered`:
    (`checker.ci.manifest.Expectation`, the result of its search, its share of that search's
    seconds, its trace's audit or None), in manifest order), failing when the search found another
    outcome or another shortest trace length than expected, or a trace whose audit the entry does
    not account for (a deviation it does not allow, a trace not judged that it gives no reason
    for); a passing one says what the audit found, with the entry's reasons; `file` and the
    entry's line locate it."""
    cases = []
    for expectation, result, seconds, audit in answered:
        from .manifest import found_text

        found = found_text(*expectation.found(result), expectation.silent(result))
        cls = classname(expectation.model, expectation.variant, expectation.given)
        where = {"file": file, "line": expectation.line}
        if expectation.surprised(result, audit):
            trace = result.violations.get(expectation.prop)
            problem = expectation.audit_problem(audit)
            details = [f"expected {expectation.expected}, found {found}" + (f"; {problem}" if problem else "")]
            if trace is not None:
                details += [cause(trace), f"trace length: {len(trace)} steps"]
            if expectation.note:
                details.append(f"note: {expectation.note}")
            cases.append(testcase(cls, expectation.prop, seconds, failure=details[0], details="\n".join(details),
                                  **where))
        else:
            judged = expectation.audit_text(audit)
            cases.append(testcase(cls, expectation.prop, seconds,
                                  note=f"{found}, as expected" + (f"; Kafka's code: {judged}" if judged else ""), **where))
    return testsuite(name, cases)

