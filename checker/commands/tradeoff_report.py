"""What `replcheck tradeoffs` prints: the ISR-against-majority table
(`model.fetch.tradeoffs`) as a rich table, Markdown or JSON, and the articles' claims read
off it."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from checker.report import bounds_text, engine_words, states_label
from model.fetch.tradeoffs import answer, cell


def tradeoff_table(runs: list, questions) -> Table:
    """The trade-off table: one row per question, one column per setup, each cell 'yes, k steps'
    (red: a loss, green: availability), 'no' or 'unknown'; then distinct states and time."""
    first = runs[0][1]
    reduced = ", states counted per orbit" if first.symmetry else ""
    fixed = {k: v for k, v in first.bounds.items() if k not in runs[0][0].settings}
    table = Table(title=f"ISR against a majority quorum: fetch {first.variant} ({bounds_text(fixed)}), "
                        f"engine {engine_words([r for _, r in runs])}{reduced}", title_justify="left")
    table.add_column("question")
    for setup, _ in runs:
        table.add_column(setup.label, justify="center")
    for q in questions:
        loss = q.prop.endswith("-survives")
        cells = []
        for _, result in runs:
            yes = answer(result, q.prop)
            colour = "yellow" if yes is None else ("bold red" if loss else "green") if yes else \
                ("green" if loss else "bold red")
            cells.append(f"[{colour}]{cell(result, q.prop)}[/]")
        table.add_row(q.text, *cells)
    table.add_section()
    table.add_row(states_label(first), *(f"{r.distinct_states:,}" for _, r in runs))
    table.add_row("time", *(f"{r.seconds:.1f} s" for _, r in runs))
    return table


CLAIM_WORDS = {True: "borne out", False: "not borne out", None: "undecided"}
"""Whether the table's cells bear a claim out (None: a cell stayed unknown)."""


def _claim_lines(claims, marks: dict) -> list[str]:
    """Each claim with its verdict (worded by `marks`), the cells it was read from and, when
    the cells do not bear it out, why."""
    return [f"{marks[holds]}: {claim.text} ({read})" + (f". Why: {claim.otherwise}." if holds is False else "")
            for claim, holds, read in claims]


def claims_text(claims) -> list[str]:
    """Each claim of the articles with the cells that bear it out or not, one line each."""
    colours = {True: "green", False: "bold red", None: "yellow"}
    return _claim_lines(claims, {k: f"[{colours[k]}]{w}[/]" for k, w in CLAIM_WORDS.items()})


def tradeoff_markdown(runs: list, questions, claims) -> str:
    """The trade-off table and the claims as Markdown."""
    lines = ["| question | " + " | ".join(s.label for s, _ in runs) + " |", "|---|" + "---|" * len(runs)]
    for q in questions:
        lines.append(f"| {q.text} | " + " | ".join(cell(r, q.prop) for _, r in runs) + " |")
    lines.append(f"| {states_label(runs[0][1])} | " + " | ".join(f"{r.distinct_states:,}" for _, r in runs) + " |")
    lines += [""] + [f"- {line}" for line in _claim_lines(claims, CLAIM_WORDS)]
    return "\n".join(lines) + "\n"


def tradeoff_to_json(runs: list, questions, claims, trace_files: dict) -> dict[str, Any]:
    """The trade-off table as JSON: per setup its settings, counts and one cell per question
    (`answer`, `yes`, `trace_length`, `trace_file`); then each claim and whether it is borne out."""
    first = runs[0][1]
    return {
        "model": first.model, "variant": first.variant, "engine": first.engine, "symmetry": first.symmetry,
        "questions": [{"question": q.text, "property": q.prop} for q in questions],
        "setups": {setup.label: {
            "settings": setup.settings, "bounds": result.bounds, "complete": result.complete,
            "distinct_states": result.distinct_states, "seconds": round(result.seconds, 3),
            "cells": {q.prop: {"answer": cell(result, q.prop), "yes": answer(result, q.prop),
                               "trace_length": len(result.violations[q.prop]) if q.prop in result.violations else None,
                               "trace_file": trace_files.get((setup.label, q.prop))} for q in questions},
        } for setup, result in runs},
        "claims": [{"claim": claim.text, "borne_out": holds, "cells": read,
                    "why_not": claim.otherwise if holds is False else None} for claim, holds, read in claims],
    }
