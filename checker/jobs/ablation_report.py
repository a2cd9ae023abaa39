"""`replcheck ablate`'s reports: the one-rule-at-a-time table, the minimal rule sets, and both
as JSON, Markdown and JUnit testsuites."""

from __future__ import annotations

from typing import Any, Mapping

from rich.table import Table

from ..ci import junit as junit_xml
from .ablation import Trial, minimal_sets
from ..report import bounds_text


def verdict_text(trial: Trial) -> str:
    """holds / violated, and how a lattice candidate was decided when it was not searched."""
    if trial.how == "superset":
        return "not minimal (holds below)"
    if trial.how == "replayed":
        return "violated (replayed)"
    return "violated" if trial.violated else "holds"


def steps_text(trial: Trial) -> str:
    """The shortest counterexample's length; a replayed one's length with the rule set it came from."""
    if trial.how == "replayed":
        return f"{trial.trace_length} steps, {trial.replayed_from}'s trace"
    return f"{trial.trace_length} steps" if trial.violated else "-"


def needed_text(variant: Trial, trial: Trial) -> str:
    """What a switch says about the rule: needed (the invariant holds under the variant and
    fails without the rule's choice), not needed here (holds either way), or, when the variant
    itself fails, whether the switch makes it hold."""
    if not variant.violated:
        return "needed" if trial.violated else "not needed here"
    return "-" if trial.violated else "switching it makes it hold"


def one_at_a_time_rows(variant: Trial, rows, files: Mapping[str, str]) -> list[dict[str, Any]]:
    """The table's rows as data, the variant's own first."""
    def row(rule, old, new, trial, needed):
        return {"rule": rule, "from": old, "to": new, "variant": trial.variant,
                "verdict": "violated" if trial.violated else "holds", "needed": needed,
                "trace_length": trial.trace_length,
                "trace_file": files.get(trial.variant), "distinct_states": trial.outcome.distinct_states,
                "depth": trial.outcome.depth, "seconds": round(trial.outcome.seconds, 3)}

    return [row(None, None, None, variant, None)] + [row(rule, old, new, trial, needed_text(variant, trial))
                                                     for rule, old, new, trial in rows]


def one_at_a_time_table(model, prop, variant: Trial, rows, files: Mapping[str, str], markdown: bool = False):
    """A rich Table (or Markdown lines): each rule switched, its verdict, its shortest
    counterexample and whether the rule is needed for the invariant at these bounds."""
    title = (f"{prop.name} under {model.variant} ({bounds_text(model.parameters())}), "
             f"each rule switched back alone")
    header = ["rule", "switched to", "verdict", "shortest counterexample", "needed here", "trace file"]
    lines = [["(none)", f"{model.variant} as it is", verdict_text(variant), steps_text(variant), "",
              files.get(variant.variant, "-")]]
    for rule, old, new, trial in rows:
        lines.append([rule, f"{new} (was {old})", verdict_text(trial), steps_text(trial), needed_text(variant, trial),
                      files.get(trial.variant, "-")])
    return _table(title, header, lines, markdown, bool(files))


def minimal_table(model, prop, base, rules: list[str], trials: list[Trial], files: Mapping[str, str],
                  markdown: bool = False):
    """Every candidate set of rules on top of `base`, its verdict and how it was decided."""
    title = (f"{prop.name}: the smallest sets of {model.variant}'s rules that make it hold on top of {base} "
             f"({bounds_text(model.parameters())})")
    header = ["rules switched on top of " + base, "rule set", "verdict", "shortest counterexample", "trace file"]
    lines = [[", ".join(t.switched) or "(none)", t.variant, verdict_text(t), steps_text(t), files.get(t.variant, "-")]
             for t in trials]
    return _table(title, header, lines, markdown, bool(files))


def minimal_lines(base: str, rules: list[str], trials: list[Trial]) -> list[str]:
    """The answer in words: the minimal sets, or that none makes the invariant hold."""
    sets = minimal_sets(rules, trials)
    searched = sum(t.how == "searched" for t in trials)
    count = f"{len(trials)} rule sets decided with {searched} searches"
    if not sets:
        return [f"no set of these rules makes it hold on top of {base} ({count})"]
    return [f"minimal: {' + '.join(s) or '(none: ' + base + ' already holds)'}" for s in sets] + [f"({count})"]


def ablation_json(model, prop, engine: str, variant: Trial | None = None, rows=(), base: str | None = None,
                  rules=(), trials=(), files: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The JSON object `ablate --json` prints: the one-at-a-time rows, or the lattice."""
    files = files or {}
    data = {"model": model.name, "variant": model.variant, "rules": dict(model.rules),
            "bounds": dict(model.parameters()), "invariant": prop.name, "engine": engine}
    if variant is not None:
        data["switches"] = one_at_a_time_rows(variant, rows, files)
    if base is not None:
        data["minimal"] = {"base": base, "rules": list(rules), "sets": minimal_sets(list(rules), list(trials)),
                           "searches": sum(t.how == "searched" for t in trials),
                           "decided": [{"switched": t.switched, "variant": t.variant, "how": t.how,
                                        "verdict": None if t.violated is None else
                                        ("violated" if t.violated else "holds"),
                                        "trace_length": t.trace_length,
                                        "replayed_from": t.replayed_from, "trace_file": files.get(t.variant)}
                                       for t in trials]}
    return data


def ablation_suite(model, prop, trials: list[Trial], traces: Mapping[str, Any], files: Mapping[str, str]):
    """A JUnit testsuite: one testcase per rule set searched, failing where the invariant fails."""
    cases = []
    for trial in trials:
        cls = junit_xml.classname(model.name, trial.variant)
        if trial.violated and trial.variant in traces:
            trace = traces[trial.variant]
            cases.append(junit_xml.testcase(cls, prop.name, trial.outcome.seconds, failure=junit_xml.cause(trace),
                                            details=junit_xml.trace_details(trace, None, files.get(trial.variant))))
        elif trial.outcome is not None:
            cases.append(junit_xml.testcase(cls, prop.name, trial.outcome.seconds))
    return junit_xml.testsuite(f"replcheck.ablate.{model.name}.{model.variant}", cases, model.parameters())


def _table(title: str, header: list[str], lines: list[list[str]], markdown: bool, with_files: bool):
    """The rows as a rich Table or Markdown lines; the last column (trace files) only when traces
    were saved."""
    if not with_files:
        header, lines = header[:-1], [line[:-1] for line in lines]
    if markdown:
        out = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return out + ["| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |" for line in lines]
    table = Table(title=title, title_justify="left")
    for name in header:
        table.add_column(name)
    for line in lines:
        table.add_row(*line)
    return table
