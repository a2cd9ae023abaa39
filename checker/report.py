"""Presenting a CheckResult: as one JSON object (for `--json`) and as rich tables."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .result import CheckResult


def result_to_json(result: CheckResult, trace_files: dict[str, str]) -> dict[str, Any]:
    """The result as the JSON object `replcheck check --json` prints. `depth` and each
    `trace_length` count transitions (TLC counts states: its figures are one higher)."""
    invariants = {}
    for name in result.invariants:
        verdict = result.verdict(name)
        trace = result.violations.get(name)
        invariants[name] = {
            "holds": {"holds": True, "violated": False}.get(verdict),
            "status": verdict,
            "trace_length": len(trace) if trace is not None else None,
            "trace_file": trace_files.get(name),
        }
    return {
        "model": result.model,
        "variant": result.variant,
        "bounds": result.bounds,
        "engine": result.engine,
        "engine_options": result.engine_options,
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
    }


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
    table.add_row("search", "complete" if result.complete else "stopped at the first violation")
    orbits = " (one per orbit under replica renaming)" if result.symmetry else ""
    table.add_row("distinct states", f"{result.distinct_states:,}{orbits}")
    table.add_row("generated states", f"{result.generated_states:,}")
    table.add_row("depth", f"{result.depth} transitions")
    table.add_row("time", f"{result.seconds:.2f} s ({result.states_per_second:,.0f} distinct states/s)")
    table.add_row("fingerprints", f"64-bit, collision probability {result.collision_probability:.1e}")
    return table


def invariant_table(result: CheckResult, trace_files: dict[str, str]) -> Table:
    """One row per checked invariant: verdict, shortest trace length, trace file."""
    table = Table(title="invariants", title_justify="left")
    table.add_column("invariant")
    table.add_column("verdict")
    table.add_column("shortest trace", justify="right")
    table.add_column("trace file")
    styles = {"holds": "green", "violated": "bold red", "unknown": "yellow"}
    for name in result.invariants:
        verdict = result.verdict(name)
        trace = result.violations.get(name)
        table.add_row(name, f"[{styles[verdict]}]{verdict}[/]", f"{len(trace)} steps" if trace is not None else "-",
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


def _cell_text(result: CheckResult, invariant: str) -> str:
    trace = result.violations.get(invariant)
    if trace is not None:
        return f"violated in {len(trace)} steps"
    return result.verdict(invariant)


def comparison_to_json(results: list[CheckResult], trace_files: dict[tuple[str, str], str]) -> dict[str, Any]:
    """Variants side by side as JSON: per variant its figures and per-invariant verdicts."""
    first = results[0]
    return {
        "model": first.model,
        "bounds": first.bounds,
        "engine": first.engine,
        "engine_options": first.engine_options,
        "symmetry": first.symmetry,
        "invariants": first.invariants,
        "variants": {r.variant: result_to_json(r, {inv: f for (v, inv), f in trace_files.items() if v == r.variant})
                     for r in results},
    }


def comparison_table(results: list[CheckResult]) -> Table:
    """Rows: invariants; columns: variants; each cell 'holds' or 'violated in k steps'; then
    distinct states, depth and time per variant."""
    first = results[0]
    bounds = bounds_text(first.bounds)
    reduced = ", symmetry reduction on: states counted per orbit" if first.symmetry else ""
    table = Table(title=f"{first.model} ({bounds}), engine {first.engine}{reduced}", title_justify="left")
    table.add_column("invariant")
    for r in results:
        table.add_column(r.variant or "-", justify="center")
    for invariant in first.invariants:
        cells = []
        for r in results:
            text = _cell_text(r, invariant)
            cells.append(f"[bold red]{text}[/]" if invariant in r.violations else f"[green]{text}[/]")
        table.add_row(invariant, *cells)
    table.add_section()
    table.add_row("distinct orbits" if first.symmetry else "distinct states", *(f"{r.distinct_states:,}" for r in results))
    table.add_row("depth", *(str(r.depth) for r in results))
    table.add_row("time", *(f"{r.seconds:.1f} s" for r in results))
    return table


def comparison_markdown(results: list[CheckResult]) -> str:
    """The comparison table as GitHub-flavoured Markdown."""
    first = results[0]
    lines = ["| invariant | " + " | ".join(r.variant or "-" for r in results) + " |",
             "|---|" + "---|" * len(results)]
    for invariant in first.invariants:
        lines.append(f"| {invariant} | " + " | ".join(_cell_text(r, invariant) for r in results) + " |")
    label = "distinct orbits" if first.symmetry else "distinct states"
    lines.append(f"| {label} | " + " | ".join(f"{r.distinct_states:,}" for r in results) + " |")
    lines.append("| depth | " + " | ".join(str(r.depth) for r in results) + " |")
    lines.append("| time | " + " | ".join(f"{r.seconds:.1f} s" for r in results) + " |")
    return "\n".join(lines) + "\n"


def bounds_text(config: dict[str, Any]) -> str:
    """Bounds and configuration as the CLI takes them: 'replicas=3 unclean-leader-election=off'."""
    return " ".join(f"{k.replace('_', '-')}={'on' if v is True else 'off' if v is False else v}"
                    for k, v in config.items())


def _loss_text(result: CheckResult, invariant: str) -> str:
    trace = result.violations.get(invariant)
    return f"lost in {len(trace)} steps" if trace is not None else result.verdict(invariant)


def sweep_table(runs: list, invariants: list[str]) -> Table:
    """One row per configuration: each invariant 'holds' or 'lost in k steps', and states."""
    table = Table(title="configuration sweep", title_justify="left")
    table.add_column("configuration")
    for name in invariants:
        table.add_column(name, justify="center")
    table.add_column("distinct states", justify="right")
    for config, result in runs:
        cells = [f"[bold red]{_loss_text(result, n)}[/]" if n in result.violations else f"[green]{_loss_text(result, n)}[/]"
                 for n in invariants]
        table.add_row(bounds_text(config), *cells, f"{result.distinct_states:,}")
    return table


def sweep_markdown(runs: list, invariants: list[str]) -> str:
    """The sweep table as Markdown."""
    lines = ["| configuration | " + " | ".join(invariants) + " | distinct states |",
             "|---|" + "---|" * (len(invariants) + 1)]
    for config, result in runs:
        lines.append(f"| {bounds_text(config)} | " + " | ".join(_loss_text(result, n) for n in invariants)
                     + f" | {result.distinct_states:,} |")
    return "\n".join(lines) + "\n"


def sweep_to_json(runs: list) -> dict[str, Any]:
    """Every configuration with its full result."""
    return {"runs": [{"configuration": config, "result": result_to_json(result, {})} for config, result in runs]}
