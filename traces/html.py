"""A trace as one self-contained HTML page: the lanes picture, the step table, and a slider
(or the arrow keys) to walk the trace, showing every replica's state at the selected step.
No server, no network: the SVG, the data and the script are all inline."""

from __future__ import annotations

import html
import json

from .explain import explain
from .trace import Trace

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
#controls {{ position: sticky; top: 0; background: white; padding: .5em 0; border-bottom: 1px solid #ccc; }}
#step {{ width: 40em; }}
#picture {{ overflow-x: auto; margin: 1em 0; }}
#picture svg {{ height: auto; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; white-space: pre; }}
tr.current {{ background: #fff3b0; }}
tr.last td.action {{ color: #a00; font-weight: bold; }}
#state td {{ font-family: monospace; }}
</style></head>
<body>
<h1>{title}</h1>
<p>{explanation}</p>
<div id="controls">
  <label>step <input id="step" type="range" min="0" max="{last}" value="0"></label>
  <span id="label"></span>
  <div id="action"></div>
  <table id="state"><tr id="state-head"></tr><tr id="state-body"></tr></table>
</div>
<div id="picture">{svg}</div>
<table id="steps"><tr><th>#</th><th>action</th>{heads}</tr>{rows}</table>
<script>
const DATA = {data};
const slider = document.getElementById("step");
function show(i) {{
  i = Math.max(0, Math.min(DATA.steps.length - 1, i));
  slider.value = i;
  const step = DATA.steps[i];
  document.getElementById("label").textContent = i + " / " + (DATA.steps.length - 1);
  document.getElementById("action").textContent = step.action;
  const head = document.getElementById("state-head"), body = document.getElementById("state-body");
  head.innerHTML = ""; body.innerHTML = "";
  for (const [name, lines] of Object.entries(step.columns)) {{
    const th = document.createElement("th"); th.textContent = name; head.appendChild(th);
    const td = document.createElement("td"); td.textContent = lines.join("\\n"); body.appendChild(td);
  }}
  document.querySelectorAll("#steps tr.step").forEach((row, j) => row.classList.toggle("current", j === i));
  DATA.steps.forEach((_, j) => {{
    const frame = document.querySelector("#step-" + j + " path");
    if (frame) {{ frame.style.stroke = j === i ? "#e0a800" : "none"; frame.style.strokeWidth = "3"; }}
  }});
}}
slider.addEventListener("input", () => show(Number(slider.value)));
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowRight") show(Number(slider.value) + 1);
  if (e.key === "ArrowLeft") show(Number(slider.value) - 1);
}});
show(0);
</script>
</body></html>
"""


def trace_html(trace: Trace, model, svg: str) -> str:
    """The page for `trace`, with `svg` (the lanes picture) inline."""
    states = trace.states()
    actions = ["initial state"] + [model.describe_step(step.action, states[i], step.state)
                                   for i, step in enumerate(trace.steps)]
    columns = [model.state_columns(s) for s in states]
    names = list(columns[0])
    rows = []
    for i, (action, cols) in enumerate(zip(actions, columns)):
        cls = "step last" if i == len(states) - 1 else "step"
        cells = "".join(f"<td>{html.escape(chr(10).join(cols[n]))}</td>" for n in names)
        rows.append(f'<tr class="{cls}"><td>{i}</td><td class="action">{html.escape(action)}</td>{cells}</tr>')
    data = {"steps": [{"action": a, "columns": c} for a, c in zip(actions, columns)]}
    title = f"{trace.model} {trace.variant or ''}: {trace.invariant} violated after {len(trace)} steps"
    svg_body = svg[svg.index("<svg"):]
    return PAGE.format(title=html.escape(title), explanation="<br>".join(html.escape(x) for x in explain(trace, model)),
                       last=len(states) - 1, svg=svg_body,
                       heads="".join(f"<th>{html.escape(n)}</th>" for n in names), rows="".join(rows),
                       data=json.dumps(data).replace("</", "<\\/"))
