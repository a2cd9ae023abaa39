"""The style and the script of the HTML trace page (`traces.html`).

The script reads `DATA.steps` (per step: action, state columns, changes as [subject, field,
before, after]) and the lanes SVG's ids (`step-<i>` column frames, `lane-<name>` bands). It
opens on the last step with its column scrolled into view, keeps the lane names on screen while
the picture scrolls sideways, and selects a step on a click in its column or its table row, on
the arrow keys (Home and End too), the slider and the buttons.
"""

STYLE = """
body { font: 15px/1.4 "DejaVu Sans", system-ui, sans-serif; margin: 0 20px 40px; color: #1a1a1a; }
h1 { font-size: 22px; margin: 10px 0 4px; }
h2 { font-size: 17px; margin: 14px 0 6px; }
#lead { margin: 0 0 6px; max-width: 80em; font-weight: 700; }
#story { padding-left: 1.4em; margin: 0; }
#story li { margin-bottom: 6px; }
#controls { position: sticky; top: 0; z-index: 5; background: #fff; display: flex; gap: 10px;
            align-items: center; padding: 6px 0; border-bottom: 1px solid #ccc; }
#controls button { font-size: 15px; padding: 2px 10px; }
#step { width: 220px; }
#label { font-weight: 700; white-space: nowrap; font-variant-numeric: tabular-nums; }
#what { flex: 1; }
#summary { font-size: 14px; color: #333; }
#summary b { color: #1a1a1a; }
#picture { overflow-x: auto; border: 1px solid #ddd; margin: 8px 0; }
#canvas { width: max-content; position: relative; }
#canvas svg { display: block; cursor: pointer; }
#gutter { position: sticky; left: 0; width: 0; height: 0; z-index: 2; }
#gutter div { position: absolute; left: 0; width: 58px; box-sizing: border-box; padding-left: 10px;
              display: flex; align-items: center; font-size: 17px; font-weight: 700;
              background: rgba(255, 255, 255, .94); border-right: 1px solid #ccc; }
.pair { display: flex; gap: 32px; align-items: flex-start; flex-wrap: wrap; }
#why { flex: 1 1 480px; max-width: 60em; }
#legend svg { display: block; }
table { border-collapse: collapse; font-size: 14px; }
td, th { border: 1px solid #ccc; padding: 4px 8px; vertical-align: top; text-align: left; }
#changes td:nth-child(3) { color: #555; }
#changes td:nth-child(4) { font-weight: 700; }
#state td, #steps td:nth-child(n+3) { font-family: "DejaVu Sans Mono", monospace; white-space: pre; }
#state td.touched { background: #fff6d6; }
#steps tr.step { cursor: pointer; }
#steps tr.step:hover { background: #f2f4f8; }
#steps tr.current { background: #fff3b0; outline: 2px solid #e0a800; }
#steps tr.last td.action { font-weight: 700; }
.changed { background: #ffe9a8; font-weight: 700; }
"""

SCRIPT = """
const steps = DATA.steps, last = steps.length - 1;
const slider = document.getElementById("step"), picture = document.getElementById("picture");
const svg = picture.querySelector("svg"), gutter = document.getElementById("gutter");
let current = last;

function frame(i) { return document.querySelector("#step-" + i + " path"); }

function cell(tag, text, cls) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

function summarise(changes, i) {
  const summary = document.getElementById("summary");
  summary.replaceChildren(cell("b", "changed: "));
  const bySubject = new Map();
  for (const [subject, field, before, after] of changes) {
    if (!bySubject.has(subject)) bySubject.set(subject, []);
    bySubject.get(subject).push((field ? field + " " : "") + before + " → " + after);
  }
  const parts = [...bySubject].map(([subject, list]) => subject + ": " + list.join(", "));
  summary.append(parts.join("; ") || (i ? "nothing that the state shows" : "nothing yet (the initial state)"));
}

function reveal(i) {
  const box = frame(i).getBoundingClientRect(), view = picture.getBoundingClientRect();
  const left = view.left + 60, right = view.left + picture.clientWidth;
  if (box.left < left) picture.scrollLeft -= left - box.left + 12;
  else if (box.right > right) picture.scrollLeft += box.right - right + 12;
}

function select(i) {
  i = Math.max(0, Math.min(last, i));
  current = i;
  slider.value = i;
  const step = steps[i];
  document.getElementById("label").textContent = i + " / " + last;
  document.getElementById("number").textContent = i;
  document.getElementById("action").textContent = step.action;
  summarise(step.changes, i);
  const changes = document.getElementById("changes-body");
  changes.replaceChildren();
  for (const change of step.changes) {
    const row = document.createElement("tr");
    change.forEach(text => row.appendChild(cell("td", text)));
    changes.appendChild(row);
  }
  if (!step.changes.length) {
    const row = document.createElement("tr"), td = cell("td", i ? "nothing that the state shows" : "the initial state");
    td.colSpan = 4;
    row.appendChild(td);
    changes.appendChild(row);
  }
  const touched = new Set(step.changes.map(c => c[0]));
  const head = document.getElementById("state-head"), body = document.getElementById("state-body");
  head.replaceChildren();
  body.replaceChildren();
  for (const [name, lines] of Object.entries(step.columns)) {
    head.appendChild(cell("th", name));
    body.appendChild(cell("td", lines.filter(x => x).join("\\n"), touched.has(name) ? "touched" : ""));
  }
  document.querySelectorAll("#steps tr.step").forEach(row => row.classList.toggle("current", +row.dataset.step === i));
  steps.forEach((_, j) => {
    const path = frame(j);
    path.style.stroke = j === i ? "#e0a800" : "none";
    path.style.strokeWidth = "3.5";
    path.style.fill = j === i ? "rgba(255, 214, 0, .10)" : "none";
  });
  reveal(i);
}

function column(x) {
  for (let j = 0; j <= last; j++) {
    const box = frame(j).getBoundingClientRect();
    if (box.left <= x && x <= box.right) return j;
  }
  return null;
}

function labelLanes() {
  const top = gutter.getBoundingClientRect().top;
  document.querySelectorAll('#picture [id^="lane-"]').forEach(band => {
    const box = band.getBoundingClientRect(), label = cell("div", band.id.slice(5));
    label.style.top = (box.top - top) + "px";
    label.style.height = box.height + "px";
    gutter.appendChild(label);
  });
}

svg.addEventListener("click", e => { const j = column(e.clientX); if (j !== null) select(j); });
document.querySelectorAll("#steps tr.step").forEach(row => row.addEventListener("click", () => select(+row.dataset.step)));
slider.addEventListener("input", () => select(+slider.value));
document.getElementById("prev").addEventListener("click", () => select(current - 1));
document.getElementById("next").addEventListener("click", () => select(current + 1));
document.addEventListener("keydown", e => {
  if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = {ArrowLeft: current - 1, ArrowUp: current - 1, ArrowRight: current + 1, ArrowDown: current + 1,
                 Home: 0, End: last};
  if (e.key in moves) { select(moves[e.key]); e.preventDefault(); }
});
labelLanes();
select(last);
const opened = frame(last).getBoundingClientRect();
if (opened.bottom > window.innerHeight) window.scrollBy(0, opened.bottom - window.innerHeight + 8);
"""
