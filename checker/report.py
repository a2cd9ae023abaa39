"""Presenting a CheckResult: as one JSON object (for `--json`) and as rich tables."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .coverage_report import coverage_json, coverage_warnings
from .result import CheckResult
from .stopping import COMPLETE, DECIDED, DEPTH_LIMIT, FIRST_VIOLATION

STYLES = {"holds": "green", "violated": "bold red", "unknown": "yellow", "reachable": "bold cyan",
          "unreachable": "cyan", "n/a": "dim"}
"""How each verdict is coloured: a reached witness is an answer, not a failure."""

SEARCH_WORDS = {COMPLETE: "complete", DECIDED: "stopped: every property decided",
                FIRST_VIOLATION: "stopped at the first violation",
                DEPTH_LIMIT: "stopped at the depth limit (--max-depth)"}
"""The summary's `search` line for each reason a search stops."""


def property_to_json(result: CheckResult, name: str, trace_file: str | None) -> dict[str, Any]:
    """One checked property: its kind, then `holds` (invariant) or `reachable` (witness) as
    true/false/null (unknown), its status, shortest trace length and trace file."""
    verdict = result.verdict(name)
    trace = result.violations.get(name)
    if name in result.witnesses:
        answer = {"kind": "witness", "reachable": {"reachable": True, "unreachable": False}.get(verdict)}
    else:
        answer = {"kind": "invariant", "holds": {"holds": True, "violated": False}.get(verdict)}
    return {**answer, "status": verdict, "trace_length": len(trace) if trace is not None else None,
            "trace_file": trace_file}


def result_to_json(result: CheckResult, trace_files: dict[str, str], coverage: bool = False) -> dict[str, Any]:
    """The result as the JSON object `replcheck check --json` prints, with its `coverage`
    (`checker.coverage`) when asked for. `depth` and each `trace_length` count transitions (TLC
    counts states: its figures are one higher)."""
    invariants = {name: property_to_json(result, name, trace_files.get(name)) for name in result.invariants}
    shown = {"coverage": coverage_json(result)} if coverage else {}
    shown["coverage_warnings"] = coverage_warnings(result)
    return {
        "model": result.model,
        "variant": result.variant,
        **({"rules": result.rules} if result.rules else {}),
        "bounds": result.bounds,
        "engine": result.engine,
        "engine_options": result.engine_options,
        **({"reduction": result.reduction} if result.reduction else {}),
        "complete": result.complete,
        "symmetry": result.symmetry,
        "distinct_states": result.distinct_states,
        "fingerprint_collision_probability": result.collision_probability,
        "generated_states": result.generated_states,
        "depth": result.depth,
        "seconds": round(result.seconds, 3),
        "states_per_second": round(result.states_per_second, 1),
        "invariants": invariants,
        "actions": {name: {"fired": c.fired, "new": c.new} for name, c in result.actions.items()},
        "levels": [{"depth": lv.depth, "new_states": lv.new_states, "generated": lv.generated,
                    "seconds": round(lv.seconds_total, 3), "task_seconds": round(lv.task_seconds, 3)}
                   for lv in result.levels],
        **shown,
    }


def engine_words(results: list[CheckResult]) -> str:
    """The engine of these searches, saying which of them stayed in the driver process
    (`checker.jobs.engines`: the Spark engine's small searches)."""
    engine = results[0].engine
    small = [r.variant or r.model for r in results if r.engine_options.get("ran")]
    if not small:
        return engine
    if len(small) == len(results):
        what = "every search was small" if len(small) > 1 else "a small search"
        return f"{engine} (in the driver process: {what}, Spark not started)"
    return f"{engine} ({', '.join(small)} in the driver process: small searches)"


def summary_table(result: CheckResult) -> Table:
    """Model, bounds, engine and the search's figures."""
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    bounds = bounds_text(result.bounds)
    table.add_row("model", f"{result.model}" + (f" / {result.variant}" if result.variant else ""))
    table.add_row("bounds", bounds)
    options = ", ".join(f"{k} {v}" for k, v in result.engine_options.items())
    table.add_row("engine", result.engine + (f" ({options})" if options else ""))
    table.add_row("search", SEARCH_WORDS[result.stopped])
    if result.reduction:
        table.add_row("reduction", result.reduction)
    orbits = " (one per orbit under replica renaming)" if result.symmetry else ""
    table.add_row("distinct states", f"{result.distinct_states:,}{orbits}")
    table.add_row("generated states", f"{result.generated_states:,}")
    table.add_row("depth", f"{result.depth} transitions")
    table.add_row("time", f"{result.seconds:.2f} s ({result.states_per_second:,.0f} distinct states/s)")
    table.add_row("fingerprints", f"64-bit, collision probability {result.collision_probability:.1e}")
    return table


def property_tables(result: CheckResult, trace_files: dict[str, str]) -> list[Table]:
    """A table of the checked invariants and one of the checked witnesses (each only when
    there are some): one row per property with its verdict, shortest trace length, trace file."""
    invariants = [name for name in result.invariants if name not in result.witnesses]
    return [_verdict_table(result, kind, names, trace_files)
            for kind, names in (("invariant", invariants), ("witness", list(result.witnesses))) if names]


def _verdict_table(result: CheckResult, kind: str, names: list[str], trace_files: dict[str, str]) -> Table:
    """The table of the properties `names`, all of one `kind` (invariant or witness)."""
    table = Table(title="witnesses" if kind == "witness" else "invariants", title_justify="left")
    table.add_column(kind)
    table.add_column("verdict")
    table.add_column("shortest trace", justify="right")
    table.add_column("trace file")
    for name in names:
        verdict = result.verdict(name)
        trace = result.violations.get(name)
        table.add_row(name, f"[{STYLES[verdict]}]{verdict}[/]", f"{len(trace)} steps" if trace is not None else "-",
                      trace_files.get(name, "-"))
    return table


def action_table(result: CheckResult) -> Table:
    """How often each action fired and how many new states it was the route to."""
    table = Table(title="actions", title_justify="left")
    table.add_column("action")
    table.add_column("fired", justify="right")
    table.add_column("new states", justify="right")
    for name, count in result.actions.items():
        table.add_row(name, f"{count.fired:,}", f"{count.new:,}")
    return table


def _cell_text(result: CheckResult, name: str, violated: str = "violated") -> str:
    """A property's verdict in a comparison or sweep cell: 'violated in k steps' (`violated`
    names the failure: sweeps say 'lost') or 'reachable in k steps' with the shortest trace,
    otherwise the verdict itself."""
    trace = result.violations.get(name)
    if trace is None:
        return result.verdict(name)
    return f"{'reachable' if name in result.witnesses else violated} in {len(trace)} steps"


def _styled_cell(result: CheckResult, name: str, violated: str = "violated") -> str:
    """`_cell_text` coloured by its verdict."""
    return f"[{STYLES[result.verdict(name)]}]{_cell_text(result, name, violated)}[/]"


def _property_heading(result: CheckResult) -> str:
    """The first column's heading of a comparison: 'invariant', or 'property' when witnesses
    share the rows."""
    return "property" if result.witnesses else "invariant"


def compared_properties(results: list[CheckResult]) -> list[str]:
    """Every property checked under at least one of the compared variants, in checking order (a
    property that applies to some variants only, such as kip966's ELR invariant, is 'n/a' in
    the others' cells)."""
    return list(dict.fromkeys(name for r in results for name in r.invariants))


def comparison_to_json(results: list[CheckResult], trace_files: dict[tuple[str, str], str],
                       coverage: bool = False) -> dict[str, Any]:
    """Variants side by side as JSON: per variant its figures and per-invariant verdicts (and
    its coverage when asked for)."""
    first = results[0]
    return {
        "model": first.model,
        "bounds": first.bounds,
        "engine": first.engine,
        "engine_options": first.engine_options,
        "symmetry": first.symmetry,
        "invariants": compared_properties(results),
        "witnesses": list(dict.fromkeys(w for r in results for w in r.witnesses)),
        "variants": {r.variant: result_to_json(r, {inv: f for (v, inv), f in trace_files.items() if v == r.variant},
                                               coverage) for r in results},
    }


def comparison_table(results: list[CheckResult]) -> Table:
    """Rows: properties; columns: variants; each cell 'holds' or 'violated in k steps' for an
    invariant, 'unreachable' or 'reachable in k steps' for a witness; then distinct states,
    depth and time per variant."""
    first = results[0]
    bounds = bounds_text(first.bounds)
    reduced = ", symmetry reduction on: states counted per orbit" if first.symmetry else ""
    if any(r.reduction for r in results):
        reduced += "; stubborn sets on (--reduce): fewer states, the same verdicts and shortest traces"
    table = Table(title=f"{first.model} ({bounds}), engine {engine_words(results)}{reduced}", title_justify="left")
    table.add_column(_property_heading(first))
    for r in results:
        table.add_column(r.variant or "-", justify="center")
    for name in compared_properties(results):
        table.add_row(name, *(_styled_cell(r, name) for r in results))
    table.add_section()
    table.add_row(states_label(first), *(f"{r.distinct_states:,}" for r in results))
    table.add_row("depth", *(str(r.depth) for r in results))
    table.add_row("time", *(f"{r.seconds:.1f} s" for r in results))
    return table


def comparison_markdown(results: list[CheckResult]) -> str:
    """The comparison table as GitHub-flavoured Markdown."""
    first = results[0]
    lines = [f"| {_property_heading(first)} | " + " | ".join(r.variant or "-" for r in results) + " |",
             "|---|" + "---|" * len(results)]
    for name in compared_properties(results):
        lines.append(f"| {name} | " + " | ".join(_cell_text(r, name) for r in results) + " |")
    lines.append(f"| {states_label(first)} | " + " | ".join(f"{r.distinct_states:,}" for r in results) + " |")
    lines.append("| depth | " + " | ".join(str(r.depth) for r in results) + " |")
    lines.append("| time | " + " | ".join(f"{r.seconds:.1f} s" for r in results) + " |")
    return "\n".join(lines) + "\n"


def bounds_text(config: dict[str, Any]) -> str:
    """Bounds and configuration as the CLI takes them: 'replicas=3 unclean-leader-election=off'."""
    return " ".join(f"{k.replace('_', '-')}={'on' if v is True else 'off' if v is False else v}"
                    for k, v in config.items())


def states_label(result) -> str:
    """What a run's state count counts: orbits under replica renaming when symmetry reduction
    was on, states otherwise."""
    return "distinct orbits" if result.symmetry else "distinct states"


def sweep_table(runs: list, invariants: list[str]) -> Table:
    """One row per configuration: each invariant 'holds' or 'lost in k steps', each witness
    'unreachable' or 'reachable in k steps', and states."""
    table = Table(title="configuration sweep", title_justify="left")
    table.add_column("configuration")
    for name in invariants:
        table.add_column(name, justify="center")
    table.add_column(states_label(runs[0][1]), justify="right")
    for config, result in runs:
        table.add_row(bounds_text(config), *(_styled_cell(result, n, "lost") for n in invariants),
                      f"{result.distinct_states:,}")
    return table


def sweep_markdown(runs: list, invariants: list[str]) -> str:
    """The sweep table as Markdown."""
    lines = ["| configuration | " + " | ".join(invariants) + f" | {states_label(runs[0][1])} |",
             "|---|" + "---|" * (len(invariants) + 1)]
    for config, result in runs:
        lines.append(f"| {bounds_text(config)} | " + " | ".join(_cell_text(result, n, "lost") for n in invariants)
                     + f" | {result.distinct_states:,} |")
    return "\n".join(lines) + "\n"


def sweep_to_json(runs: list, coverage: bool = False) -> dict[str, Any]:
    """Every configuration with its full result."""
    return {"runs": [{"configuration": config, "result": result_to_json(result, {}, coverage)} for config, result in runs]}
