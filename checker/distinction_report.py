"""What `replcheck distinguish` prints: the search's figures, the shared behaviour as a
two-column step table (what each event does under A and under B), where the two variants part
and by which of their rules, and the same as one JSON object."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from model.registry import MODELS

from .distinguish import Distinction
from .report import bounds_text


def _meaning(model) -> str:
    """The variant's one-line meaning, as `replcheck list` gives it."""
    return MODELS[model.name].meaning(model.variant)


def distinction_summary(models, prop, found: Distinction) -> Table:
    """Model, bounds, the two variants, the invariant, and what the pair search found."""
    a, b = models
    table = Table(show_header=False, box=None)
    if found.first is not None:
        answer = (f"a behaviour of {len(found.first)} steps that both allow, after which {prop.name} fails under "
                  f"{a.variant} and has held all along under {b.variant}")
    elif found.complete:
        answer = (f"indistinguishable: no behaviour both allow breaks {prop.name} under {a.variant} and not under "
                  f"{b.variant}")
    else:
        answer = "nothing found within the depth searched"
    for key, value in (("model", a.name), ("bounds", bounds_text(dict(a.parameters()))),
                       ("variants", f"A = {a.variant} ({_meaning(a)}); B = {b.variant} ({_meaning(b)})"),
                       ("invariant", f"{prop.name}: {prop.summary}"),
                       ("pairs of states", f"{found.pairs:,} (depth {found.depth}, {found.seconds:.1f} s)"),
                       ("answer", answer)):
        table.add_row(key, value)
    return table


def _described(model, trace, k: int) -> str:
    """Step k of the trace in the variant's words."""
    states = trace.states()
    return model.describe_step(trace.steps[k - 1].action, states[k - 1], states[k])


def distinction_table(models, found: Distinction) -> Table:
    """One row per shared event: what it does under A and under B; the last row is where the
    invariant fails under A."""
    a, b = models
    table = Table(title=f"the same events under {a.variant} (A) and {b.variant} (B)", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("event")
    table.add_column(f"A: {a.variant}")
    table.add_column(f"B: {b.variant}")
    for k, step in enumerate(found.first.steps, 1):
        left, right = _described(a, found.first, k), _described(b, found.second, k)
        table.add_row(str(k), " ".join(map(str, step.action)), left,
                      "[dim]same[/]" if right == left else right)
    return table


def distinction_explained(models, prop, found: Distinction, parted: int | None) -> list[str]:
    """Where the variants part and why, in the variants' own words: the first step after which
    their states differ, what that event did under each, and each variant's rule."""
    a, b = models
    n = len(found.first)
    lines = []
    if parted is None or parted == 0:
        lines.append(f"The two variants' states never differ along these {n} steps, yet {prop.name} fails under "
                     f"{a.variant} at step {n}: the invariant reads something only A's rules produce.")
    else:
        event = " ".join(map(str, found.first.steps[parted - 1].action))
        lines.append(f"The variants part at step {parted} ({event}): "
                     f"under {a.variant}, {_described(a, found.first, parted)}; under {b.variant}, "
                     f"{_described(b, found.second, parted)}.")
    lines.append(f"{a.variant}: {_meaning(a)}. {b.variant}: {_meaning(b)}.")
    lines.append(f"Step {n} makes {prop.name} fail under {a.variant} ({_described(a, found.first, n)}); under "
                 f"{b.variant} it holds at every step.")
    return lines


def distinction_json(models, prop, found: Distinction, parted: int | None, files: dict[str, str]) -> dict[str, Any]:
    """The search and its behaviour as one JSON object: the events, and each variant's states."""
    a, b = models
    data = {"model": a.name, "variants": [a.variant, b.variant], "bounds": dict(a.parameters()),
            "invariant": prop.name, "found": found.first is not None, "complete": found.complete,
            "pairs": found.pairs, "depth": found.depth, "seconds": round(found.seconds, 3)}
    if found.first is not None:
        data["events"] = [list(step.action) for step in found.first.steps]
        data["first_difference"] = parted
        data["states"] = {model.variant: [model.state_to_json(s) for s in trace.states()]
                          for model, trace in ((a, found.first), (b, found.second))}
        data["trace_files"] = files
    return data
