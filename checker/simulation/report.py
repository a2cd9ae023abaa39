"""What `replcheck simulate` prints: the walks' figures and, per property, what the walks found
and how its trace was shortened; as tables or as one JSON object."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from ..report import STYLES, bounds_text
from .shorten import Shortened
from .walks import Tally
from .splitting import GROUP


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
                       ("steering", f"toward {options['steer']}: walks start again from the furthest milestone "
                                    f"states reached (groups of {GROUP:,} walks)" if options.get("steer")
                        else "none: every walk starts from the initial state"),
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
    """Per property: what the walks found, how soon a walk first found it, in which walk (the
    shortest), and the shown trace's length and how it was shortened."""
    table = Table(title="properties", title_justify="left")
    for column in ("property", "verdict", "first found", "walk", "shown", "trace file"):
        table.add_column(column)
    for prop in properties:
        said = verdict(prop, tally)
        style = STYLES.get({"not found": "unknown"}.get(said, said), "")
        if prop.name in tally.found:
            short = shortened[prop.name]
            table.add_row(prop.name, f"[{style}]{said}[/]", f"after {tally.first_found[prop.name]:.1f} s",
                          f"#{tally.found[prop.name].walk}", f"{len(short.trace)} steps ({_how(short)})",
                          files.get(prop.name, "-"))
        else:
            table.add_row(prop.name, f"[{style}]{said}[/]", "-", "-", "-", "-")
    return table


def milestone_rows(properties, tally: Tally, steer: str | None) -> list[dict[str, Any]]:
    """The milestones of the invariant the walks were steered toward: per level, its stage
    and how many walks climbed to it (empty when not steered)."""
    target = next((p for p in properties if p.name == steer), None)
    if target is None or tally.climbs is None:
        return []
    return [{"level": level, "stage": stage, "climbs": int(tally.climbs[level])}
            for level, stage in enumerate(target.milestones, start=1)]


def milestones_table(properties, tally: Tally, steer: str | None) -> Table | None:
    """The steering target's milestones and how many walks climbed to each (None when not
    steered): how close the walks came to a violation they did not find."""
    rows = milestone_rows(properties, tally, steer)
    if not rows:
        return None
    table = Table(title=f"milestones of {steer}", title_justify="left")
    for column, justify in (("level", "right"), ("stage", "left"), ("walks that climbed to it", "right")):
        table.add_column(column, justify=justify)
    for row in rows:
        table.add_row(str(row["level"]), row["stage"], f"{row['climbs']:,}")
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
                                    "trace_file": files.get(p.name),
                                    "first_found_seconds": round(tally.first_found[p.name], 3)}
                                   if p.name in tally.found else {})}
                       for p in properties},
        **({"milestones": milestone_rows(properties, tally, options.get("steer"))} if options.get("steer") else {}),
        **shown,
    }
