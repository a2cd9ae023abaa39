"""What `replcheck simulate` prints: the walks' figures and, per property, what the walks found
and how its trace was shortened; as tables or as one JSON object."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .report import STYLES, bounds_text
from .shorten import Shortened
from .simulation import Tally


def _how(short: Shortened) -> str:
    """How a violation's trace was shortened, in words."""
    text = f"walk of {short.walked} steps"
    moves = f"{short.reordered} step{'s' if short.reordered > 1 else ''} moved earlier"
    if short.debugged < short.walked:
        text += f", {short.debugged} after delta debugging" + (f" and reordering ({moves})" if short.reordered else "")
    elif short.reordered:
        text += f", reordered ({moves})"
    return text + {"shortest": f"; BFS to depth {short.debugged}: no shorter trace exists",
                   "shorter": f"; BFS found a shorter one: {len(short.trace)} steps",
                   "too large": f"; BFS to depth {short.debugged} too large to finish, so maybe not the shortest"}[
        short.bfs]


def summary_table(model, tally: Tally, seconds: float, options: dict, engine: str) -> Table:
    """The run: model, bounds, engine, walks, states visited, distinct states (estimated),
    deepest walk, time."""
    table = Table(show_header=False, box=None)
    mode = "swarm (each walk drops a random subset of action kinds)" if options["swarm"] else "every action kind"
    mode += {"uniform": ", uniform", "random": ", weights drawn per walk",
             "mixed": ", weights drawn by every other walk"}[options["weights"]]
    rate = f" ({tally.states / seconds:,.0f} states/s)" if seconds > 0 else ""
    for key, value in (("model", f"{model.name} / {model.variant}" if model.variant else model.name),
                       ("bounds", bounds_text(dict(model.parameters()))),
                       ("engine", engine),
                       ("walks", f"{tally.walks:,} (seed {options['seed']}, max depth {options['max_depth']}, {mode})"),
                       ("states visited", f"{tally.states:,}{rate}"),
                       ("distinct states", f"about {tally.sketch.estimate():,} (estimated)"),
                       ("deepest walk", f"{tally.deepest} steps"),
                       ("time", f"{seconds:.1f} s")):
        table.add_row(key, value)
    return table


def verdict(prop, tally: Tally) -> str:
    """'violated', 'reachable' (a witness) or 'not found' (which proves nothing)."""
    if prop.name not in tally.found:
        return "not found"
    return "reachable" if prop.witness else "violated"


def properties_table(properties, tally: Tally, shortened: dict[str, Shortened], files: dict[str, str]) -> Table:
    """Per property: what the walks found, in which walk, and the shown trace's length and
    how it was shortened."""
    table = Table(title="properties", title_justify="left")
    for column in ("property", "verdict", "walk", "shown", "trace file"):
        table.add_column(column)
    for prop in properties:
        said = verdict(prop, tally)
        style = STYLES.get({"not found": "unknown"}.get(said, said), "")
        if prop.name in tally.found:
            short = shortened[prop.name]
            table.add_row(prop.name, f"[{style}]{said}[/]", f"#{tally.found[prop.name].walk}",
                          f"{len(short.trace)} steps ({_how(short)})", files.get(prop.name, "-"))
        else:
            table.add_row(prop.name, f"[{style}]{said}[/]", "-", "-", "-")
    return table


def simulation_json(model, properties, tally: Tally, seconds: float, options: dict, engine: str,
                    shortened: dict[str, Shortened], files: dict[str, str], coverage: bool = False) -> dict[str, Any]:
    """The run as one JSON object (with the walks' coverage when asked for)."""
    shown = {"coverage": tally.coverage.walks_json()} if coverage and tally.coverage is not None else {}
    return {
        "model": model.name, "variant": model.variant, **({"rules": dict(model.rules)} if getattr(model, "rules", None)
                                                           else {}),
        "bounds": dict(model.parameters()), "engine": engine,
        **options,
        "walks": tally.walks, "states_visited": tally.states, "distinct_states_estimate": tally.sketch.estimate(),
        "deepest": tally.deepest, "seconds": round(seconds, 3),
        "properties": {p.name: {"kind": "witness" if p.witness else "invariant", "status": verdict(p, tally),
                                **({"walk": tally.found[p.name].walk, "walk_length": shortened[p.name].walked,
                                    "debugged_length": shortened[p.name].debugged,
                                    "reordered_moves": shortened[p.name].reordered, "bfs": shortened[p.name].bfs,
                                    "trace_length": len(shortened[p.name].trace),
                                    "trace_file": files.get(p.name)} if p.name in tally.found else {})}
                       for p in properties},
        **shown,
    }
