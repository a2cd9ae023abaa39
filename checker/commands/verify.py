"""`replcheck verify`: a manifest of known verdicts against what the searches find."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rich.table import Table
from rich.text import Text

from checker.ci import junit as junit_xml
from checker.ci import manifest
from checker.reduce import reducing
from checker.report import bounds_text
from checker.symmetry_choice import choose_symmetry
from traces.text import one_line
from .common import stdout_console, write_junit
from .errors import EXIT_VIOLATED, UserError
from .search import search


def verify(manifest_file, junit, reduce=False):
    """`replcheck verify` (cli.py declares its options and help)."""
    try:
        groups = manifest.load(manifest_file)
    except manifest.ManifestError as exc:
        raise UserError(str(exc)) from None
    started = time.monotonic()
    label = f"verify {manifest_file}"
    with search("local", None, None, None, None, label, [g.model for g in groups]) as (explore, on_level):
        run = reducing(explore, reduce)
        results = [run(g.model, g.properties, stop_at_first=False, on_level=on_level,
                       symmetry=choose_symmetry([g.model], g.properties, None)[0]) for g in groups]
    answered = sorted(((e, result, result.seconds / len(g.expectations), audited(g.model, result, e))
                       for g, result in zip(groups, results) for e in g.expectations), key=lambda row: row[0].number)
    elapsed = time.monotonic() - started
    surprises = sum(e.surprised(result, audit) for e, result, _, audit in answered)
    console = stdout_console()
    console.print(expectation_table(manifest_file, answered))
    searches = f"{len(groups)} search" + "es" * (len(groups) != 1)
    console.print(f"{len(answered)} expectation{'s' * (len(answered) != 1)}, {len(answered) - surprises} as "
                  f"expected, {surprises} surprise{'s' * (surprises != 1)} ({searches}, {elapsed:.1f} s)",
                  highlight=False)
    write_junit(junit, [junit_xml.manifest_suite(label, answered, str(manifest_file))])
    sys.exit(EXIT_VIOLATED if surprises else 0)


def audited(model, result, expectation):
    """The audit (`traces.audit.Audit`) of the expectation's shortest trace, None when it has
    none or its model has no rule table."""
    trace = result.violations.get(expectation.prop)
    if trace is None or not hasattr(model, "audit"):
        return None
    return model.audit(trace)


def expectation_table(manifest_file: Path, answered) -> Table:
    """`verify`'s table: one row per expectation (`answered`: (expectation, the result of its
    search, ...) in manifest order) with its line, model, variant, bounds as written, property,
    the expected and the found outcome, and a SURPRISE mark where they differ; notes last. The
    path and the notes show control characters escaped, so no escape sequence reaches the terminal."""
    table = Table(title=Text(f"{one_line(str(manifest_file))}: expected against found (engine local)"),
                  title_justify="left")
    notes = any(e.note for e, _, _, _ in answered)
    audits = any(audit is not None for _, _, _, audit in answered)
    columns = (("line", "model", "variant", "bounds", "property", "expected", "found", "")
               + (("Kafka's code",) if audits else ()) + (("note",) if notes else ()))
    for column in columns:
        table.add_column(column, justify="right" if column == "line" else "left",
                         no_wrap=column not in ("bounds", "note", "Kafka's code"),
                         overflow="fold" if column == "Kafka's code" else "ellipsis")
    for expectation, result, _, audit in answered:
        surprised = expectation.surprised(result, audit)
        table.add_row(str(expectation.line or f"#{expectation.number}"), expectation.model, expectation.variant or "-",
                      bounds_text(expectation.given) or "defaults", expectation.prop, expectation.expected,
                      manifest.found_text(*expectation.found(result), expectation.silent(result)),
                      "[bold red]SURPRISE[/]" if surprised else "[green]as expected[/]",
                      *([Text(expectation.audit_text(audit))] if audits else []),
                      *([Text(one_line(expectation.note), style="dim")] if notes else []),
                      style="red" if surprised else None)
    return table

