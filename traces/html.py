"""A trace as one self-contained HTML page that tells the story: the title and the explanation's
first line (`traces.explain`), the lanes picture opened on the last step (where the invariant
fails, or the witness is reached) with what the
selected step did and changed, then the rest of the explanation beside a legend of the picture's
marks, the selected step's changes and state in full, and the step table. Click a
column or a row, or use the arrow keys or the slider, to select a step. No server, no network:
the SVGs, the data and the script are all inline (`traces.page` holds the style and script)."""

from __future__ import annotations

import html
import json
from dataclasses import astuple

from .changes import tidy_line, trace_changes
from .explain import explain
from .lanes import losses
from .legend import COLOURS, legend_keys
from .outcome import last_mark
from .page import SCRIPT, STYLE
from .picture import lanes_figure, legend_figure, trace_title
from .render import figure_bytes
from .trace import Trace

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style></head>
<body>
<header><h1>{title}</h1><p id="lead">{lead}</p></header>
<nav id="controls">
  <button id="prev" type="button" title="previous step (←)">◀</button>
  <input id="step" type="range" min="0" max="{last}" value="{last}" aria-label="step">
  <button id="next" type="button" title="next step (→)">▶</button>
  <span id="label"></span>
  <div id="what"><div id="action"></div><div id="summary"></div></div>
</nav>
<div id="picture"><div id="canvas"><div id="gutter"></div>{svg}</div></div>
<section class="pair">
  {why}
  <aside id="legend"><h2>What the marks mean</h2>{legend}</aside>
</section>
<section id="selected">
  <h2>What step <span id="number"></span> changed</h2>
  <table id="changes"><thead><tr><th>part</th><th>field</th><th>before</th><th>after</th></tr></thead>
  <tbody id="changes-body"></tbody></table>
  <h2>State after it</h2>
  <table id="state"><tr id="state-head"></tr><tr id="state-body"></tr></table>
</section>
<h2>All steps</h2>
<table id="steps"><thead><tr><th>#</th><th>action</th>{heads}</tr></thead><tbody>{rows}</tbody></table>
<script>const DATA = {data};
{script}</script>
</body></html>
"""

WHY = '<div id="why"><h2>How it happens</h2><ol id="story">{story}</ol></div>'


def _svg(fig) -> str:
    """A figure as inline SVG markup (no XML prolog)."""
    text = figure_bytes(fig, "svg").decode("utf-8")
    return text[text.index("<svg"):]


def _cell(lines: list[str], previous: list[str] | None) -> str:
    """A step-table cell: the tidied, non-empty lines, those that changed since the step before
    marked."""
    out = []
    for i, line in enumerate(lines):
        text = html.escape(tidy_line(line))
        changed = previous is not None and (i >= len(previous) or tidy_line(previous[i]) != tidy_line(line))
        if text:
            out.append(f'<span class="changed">{text}</span>' if changed else text)
    return "\n".join(out)


def _rows(actions: list[str], columns: list[dict[str, list[str]]], names: list[str], mark: str) -> str:
    """The step table's rows: number, action, then each column with what changed marked; the
    last action in bold and in the colour of the trace's `mark` (as in the lanes picture: red
    where an invariant fails, indigo where a witness is reached)."""
    rows = []
    for i, (action, cols) in enumerate(zip(actions, columns)):
        last = i == len(actions) - 1
        cls, colour = ("step last", f' style="color: {COLOURS[mark]}"') if last else ("step", "")
        cells = "".join(f"<td>{_cell(cols.get(n, []), columns[i - 1].get(n, []) if i else None)}</td>" for n in names)
        rows.append(f'<tr class="{cls}" data-step="{i}"><td>{i}</td><td class="action"{colour}>'
                    f"{html.escape(action)}</td>{cells}</tr>")
    return "".join(rows)


def trace_html(trace: Trace, model) -> str:
    """The page for `trace`, opened on its last step (failing, or reaching the witness)."""
    states = trace.states()
    views = [model.lanes(s) for s in states]
    actions = ["initial state"] + [model.describe_step(step.action, states[i], step.state)
                                   for i, step in enumerate(trace.steps)]
    columns = [model.state_columns(s) for s in states]
    names = list(dict.fromkeys(name for cols in columns for name in cols))
    data = {"steps": [{"action": a, "columns": {n: [tidy_line(x) for x in c[n]] for n in c},
                       "changes": [list(astuple(x)) for x in changed]}
                      for a, c, changed in zip(actions, columns, trace_changes(views, columns))]}
    lead, *story = explain(trace, model) or [""]
    return PAGE.format(title=html.escape(trace_title(trace)), style=STYLE, script=SCRIPT, last=len(states) - 1,
                       lead=html.escape(lead),
                       why=WHY.format(story="".join(f"<li>{html.escape(line)}</li>" for line in story)) if story else "",
                       svg=_svg(lanes_figure(trace, model, framed=False)),
                       legend=_svg(legend_figure(legend_keys(views, losses(views), last_mark(trace),
                                                             selectable=True))),
                       heads="".join(f"<th>{html.escape(n)}</th>" for n in names),
                       rows=_rows(actions, columns, names, last_mark(trace)),
                       data=json.dumps(data).replace("</", "<\\/"))
