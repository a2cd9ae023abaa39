"""A trace as one self-contained HTML page that tells the story. On load, in one screen (1280x800
up): the title, the lanes picture opened on the last step (where the invariant fails, or the
witness is reached) with what the selected step did and changed, and beside it the explanation
(`traces.explain`) scrolled to the step it blames, its sentences about the selected step
marked and every step it names a link to that step's column; the Legend button in the controls
opens the legend of the picture's marks over the explanation. Below: the selected step's changes and state in full, and
the step table. Click a column, a row or a step named in the explanation, or use the arrow keys
or the slider, to select a step. No server, no network: the SVGs, the data and the script are
all inline (`traces.page` holds the style and script)."""

from __future__ import annotations

import html
import json
from dataclasses import astuple

from checker.output_kinds import TRACE_PAGE_META

from .changes import tidy_line, trace_changes
from .audit import row_words
from .explain import blamed_step, explain_steps
from .lanes import losses
from .legend import COLOURS, legend_keys
from .outcome import last_mark
from .page import SCRIPT, STYLE
from .picture import FRAME_INSET, lanes_figure, legend_figure, trace_title
from .figure_file import figure_bytes
from .trace import Trace
from .wording import STEP_NAME

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
""" + TRACE_PAGE_META + """
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>:root {{ --mark: {mark}; }}
{style}</style></head>
<body>
<header><h1>{title}</h1></header>
<nav id="controls">
  <button id="prev" type="button" title="previous step (←)">◀</button>
  <input id="step" type="range" min="0" max="{last}" value="{last}" aria-label="step">
  <button id="next" type="button" title="next step (→)">▶</button>
  <span id="label"></span>
  <div id="what"><div id="action"></div><div id="summary"></div></div>
  <button id="legend-toggle" type="button" aria-expanded="false" aria-controls="legend"
          title="what the marks of the picture mean (Esc closes)">Legend</button>
  <aside id="legend" aria-label="legend"><h2>What the marks mean</h2>{legend}</aside>
</nav>
<main id="view">
  <div id="picture"><div id="canvas"><div id="gutter"></div>{svg}</div></div>
  <aside id="why">
    {lead}
    {story}
  </aside>
</main>
<section id="selected">
  <h2>What step <span id="number"></span> changed</h2>
  <table id="changes"><thead><tr><th>part</th><th>field</th><th>before</th><th>after</th></tr></thead>
  <tbody id="changes-body"></tbody></table>
  <h2>State after it</h2>
  <div class="wide"><table id="state"><tr id="state-head"></tr><tr id="state-body"></tr></table></div>
</section>
<h2>All steps</h2>
<div class="wide"><table id="steps"><thead><tr><th>#</th><th>action</th>{heads}</tr></thead><tbody>{rows}</tbody>
</table></div>
{audit}<script>const DATA = {data};
{script}</script>
</body></html>
"""

LEGEND_WIDTH = 5.0
"""Inches of the legend (480 px): about as wide as the explanation beside the picture in a
1280-pixel window, so that the open legend covers the explanation, not the selected column."""

STORY = '<h2>How it happens</h2><ol id="story">{items}</ol>'


def _linked(sentence: str) -> str:
    """A sentence of the explanation as HTML, each step it names a link that selects that step."""
    out, at = [], 0
    for m in STEP_NAME.finditer(sentence):
        out += [html.escape(sentence[at:m.start()]),
                f'<a class="goto" href="#" data-step="{m.group(1)}">{html.escape(m.group(0))}</a>']
        at = m.end()
    return "".join(out) + html.escape(sentence[at:])


def _sentence(tag: str, sentence: str, about: tuple[int, ...], blamed: int, attrs: str = "") -> str:
    """One sentence of the explanation as element `tag`, carrying the steps it is about
    (`traces.explain.explain_steps`); marked `blamed` when it is about the step the explanation
    blames (`traces.explain.blamed_step`)."""
    mark = ' class="blamed"' if blamed in about else ""
    return f'<{tag}{attrs}{mark} data-steps="{" ".join(map(str, about))}">{_linked(sentence)}</{tag}>'


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


def _rows(actions: list[str], columns: list[dict[str, list[str]]], names: list[str], mark: str,
          rests_on: list[str] | None) -> str:
    """The step table's rows: number, action, then each column with what changed marked, then
    (for a model with a rule table) the rows of Kafka's code the step rests on; the last action
    in bold and in the colour of the trace's `mark` (as in the lanes picture: red where an
    invariant fails, indigo where a witness is reached)."""
    rows = []
    for i, (action, cols) in enumerate(zip(actions, columns)):
        last = i == len(actions) - 1
        cls, colour = ("step last", f' style="color: {COLOURS[mark]}"') if last else ("step", "")
        cells = "".join(f"<td>{_cell(cols.get(n, []), columns[i - 1].get(n, []) if i else None)}</td>" for n in names)
        if rests_on is not None:
            cells += f'<td class="rests-on">{html.escape(rests_on[i])}</td>'.replace("; ", "<br>")
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
    mark, blamed = last_mark(trace), blamed_step(trace)
    data = {"steps": [{"action": a, "columns": {n: [tidy_line(x) for x in c[n]] for n in c},
                       "changes": [list(astuple(x)) for x in changed]}
                      for a, c, changed in zip(actions, columns, trace_changes(views, columns))],
            "blamed": blamed, "frameInset": FRAME_INSET * 72}
    (lead, about), *story = explain_steps(trace, model)
    audit = model.audit(trace) if hasattr(model, "audit") else None
    rests_on = None
    if audit is not None:
        rests_on = [""] + ["; ".join(row_words(row, audit.releases) for row in step.rows) for step in audit.steps]
    return PAGE.format(title=html.escape(trace_title(trace)), style=STYLE, script=SCRIPT, last=len(states) - 1,
                       mark=COLOURS[mark], lead=_sentence("p", lead, about, blamed, ' id="lead"'),
                       story=STORY.format(items="".join(_sentence("li", *line, blamed) for line in story))
                       if story else "",
                       svg=_svg(lanes_figure(trace, model, framed=False)),
                       legend=_svg(legend_figure(legend_keys(views, losses(views), mark, selectable=True),
                                                 LEGEND_WIDTH)),
                       heads="".join(f"<th>{html.escape(n)}</th>" for n in names)
                       + ("<th>rests on (Kafka's code)</th>" if audit is not None else ""),
                       rows=_rows(actions, columns, names, mark, rests_on),
                       audit=f'<p id="audit">Audited against Kafka {html.escape(", ".join(audit.releases))}: '
                             f"{html.escape(audit.conclusion())}</p>\n" if audit is not None else "",
                       data=json.dumps(data).replace("</", "<\\/"))
