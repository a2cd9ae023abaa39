"""The style and the script of the HTML trace page (`traces.html`).

The script reads `DATA.steps` (per step: action, state columns, changes as [subject, field,
before, after]), `DATA.blamed` (the step the explanation blames), `DATA.frameInset` (how far a
column's frame is inset from its edges, in the SVG's units), the explanation's sentences
(`data-steps`: the steps each is about) and the lanes SVG's ids (`step-<i>` column frames,
`lane-<name>` bands). It sizes the picture to whole columns beside the explanation, keeps the
lane names on screen while the picture scrolls sideways a column at a time, and opens on the last
step with its column (and the blamed step's, when both fit) and the account of the blamed step
in view. It selects a step on a click in its column, its table row or a step named in the
explanation, on the arrow keys (Home and End too), the slider and the buttons, marking the
sentences about it; the Legend button (Esc closes it) opens the legend over the explanation.
"""

STYLE = """
body { font: 15px/1.4 "DejaVu Sans", system-ui, sans-serif; margin: 0 20px 40px; color: #1a1a1a; }
h1 { font-size: 22px; margin: 8px 0 2px; }
h2 { font-size: 17px; margin: 14px 0 6px; }
#controls { position: sticky; top: 0; z-index: 5; background: #fff; display: flex; gap: 10px;
            align-items: center; padding: 6px 0; border-bottom: 1px solid #ccc; }
#controls button { font-size: 15px; padding: 2px 10px; }
#step { width: 220px; }
#label { font-weight: 700; white-space: nowrap; font-variant-numeric: tabular-nums; }
#what { flex: 1; }
#summary { font-size: 14px; color: #333; }
#summary b { color: #1a1a1a; }
#legend-toggle { white-space: nowrap; }
#legend-toggle[aria-expanded="true"] { background: #fff3b0; }
#legend { position: absolute; top: calc(100% + 6px); right: 0; z-index: 6; visibility: hidden; overflow-y: auto;
          box-sizing: border-box; background: #fff; border: 1px solid #bbb; padding: 0 14px 10px;
          box-shadow: 0 4px 16px rgba(0, 0, 0, .18); }
#legend.open { visibility: visible; }
#legend svg { display: block; }
#view { display: flex; gap: 18px; align-items: flex-start; margin: 8px 0; }
#picture { flex: none; overflow-x: auto; border: 1px solid #ddd; scroll-snap-type: x mandatory; }
#canvas { width: max-content; position: relative; overflow: clip; }
#canvas svg { display: block; cursor: pointer; }
#canvas .snap { position: absolute; top: 0; width: 1px; height: 1px; scroll-snap-align: start; }
#gutter { position: sticky; left: 0; height: 0; z-index: 2; }
#gutter::before { content: ""; position: absolute; left: 0; top: 0; width: 100%; height: var(--tall, 0);
                  background: #fff; border-right: 1px solid #ccc; box-sizing: border-box; }
#gutter div { position: absolute; left: 0; width: 100%; box-sizing: border-box; padding-left: 14px;
              display: flex; align-items: center; font-size: 17px; font-weight: 700; white-space: nowrap;
              border-right: 1px solid #ccc; }
#why { flex: 1 1 0; min-width: max(340px, 28vw); box-sizing: border-box; overflow-y: auto; font-size: 14px;
       padding-right: 4px; }
#lead { font-weight: 700; margin: 0; }
#why h2 { font-size: 15px; margin: 10px 0 4px; }
#story { padding-left: 1.6em; margin: 0; }
#story li { margin-bottom: 5px; }
#why [data-steps] { border-left: 3px solid transparent; padding: 1px 0 1px 6px; }
#why .blamed { border-left-color: var(--mark); }
#why .current { background: #fff3b0; }
#why a.goto { color: #1f5fbf; }
@media (max-width: 1000px) {
  #view { flex-direction: column; align-items: stretch; }
  #why { flex: none; min-width: 0; }
}
.wide { overflow-x: auto; }
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
const canvas = document.getElementById("canvas"), svg = picture.querySelector("svg");
const gutter = document.getElementById("gutter"), why = document.getElementById("why");
const view = document.getElementById("view");
const legend = document.getElementById("legend"), toggle = document.getElementById("legend-toggle");
const sentences = [...why.querySelectorAll("[data-steps]")];
let current = last, margin = 0, pitch = 0;

function frame(i) { return document.querySelector("#step-" + i + " path"); }

// Whether a sentence of the explanation is about step i.
function isAbout(el, i) { return el.dataset.steps.split(" ").includes(String(i)); }

// Whether the explanation stands beside the picture (it goes below it on a narrow window).
function beside() { return getComputedStyle(view).flexDirection === "row"; }

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

// The picture's columns in CSS pixels: `margin`, the lane names' room left of column 0, and
// `pitch`, one column's width. A column's frame is inset from its edges by DATA.frameInset
// (in the SVG's units, points).
function measure() {
  const first = frame(0).getBoundingClientRect(), origin = svg.getBoundingClientRect();
  const inset = DATA.frameInset * origin.width / svg.viewBox.baseVal.width;
  margin = first.left - inset - origin.left;
  pitch = first.width + 2 * inset;
}

// The picture shows whole columns only: its width is the lane names' margin plus as many
// columns as leave the explanation its least width (CSS min-width) beside it, or fit the page
// when the explanation goes below; it scrolls by whole columns (snap points) and its canvas
// ends at the last column. The sticky lane names cover the picture's own margin exactly, so no
// column is ever half under them.
function layOut() {
  measure();
  gutter.style.width = margin + "px";
  gutter.style.setProperty("--tall", svg.getBoundingClientRect().height + "px");
  gutter.replaceChildren();
  const top = gutter.getBoundingClientRect().top;
  document.querySelectorAll('#picture [id^="lane-"]').forEach(band => {
    const box = band.getBoundingClientRect(), label = cell("div", band.id.slice(5));
    label.style.top = (box.top - top) + "px";
    label.style.height = box.height + "px";
    label.style.background = getComputedStyle(band.querySelector("path")).fill;
    gutter.appendChild(label);
  });
  canvas.querySelectorAll(".snap").forEach(el => el.remove());
  for (let j = 0; j <= last; j++) {
    const snap = cell("div", "", "snap");
    snap.style.left = j * pitch + "px";
    canvas.appendChild(snap);
  }
  const border = picture.offsetWidth - picture.clientWidth;
  const gap = parseFloat(getComputedStyle(view).columnGap), least = parseFloat(getComputedStyle(why).minWidth);
  const room = view.clientWidth - border - margin - (beside() ? gap + least : 0);
  const shown = Math.max(1, Math.min(last + 1, Math.floor(room / pitch + 1e-6)));
  picture.style.width = Math.floor(margin + shown * pitch) + "px";
  canvas.style.width = picture.clientWidth + (last + 1 - shown) * pitch + "px";
}

// Beside the picture, the explanation scrolls in its own box, which ends at the bottom of the
// window when the page is scrolled to the top (the controls above it change height with the
// selected step's action).
function fitExplanation() {
  const top = why.getBoundingClientRect().top + scrollY;
  why.style.maxHeight = beside() ? Math.max(240, innerHeight - top - 12) + "px" : "";
}

// Scroll the picture by whole columns until column i is in view, right of the lane names.
function reveal(i) {
  const room = picture.clientWidth - margin, at = picture.scrollLeft;
  if (i * pitch < at - 1) picture.scrollLeft = i * pitch;
  else if ((i + 1) * pitch > at + room + 1)
    picture.scrollLeft = Math.min(i, Math.ceil(((i + 1) * pitch - room) / pitch - 1e-6)) * pitch;
}

// Scroll the explanation, as little as it takes, until `item` is in its view.
function show(item) {
  const box = item.getBoundingClientRect(), area = why.getBoundingClientRect();
  if (box.top < area.top) why.scrollTop -= area.top - box.top + 4;
  else if (box.bottom > area.bottom) why.scrollTop += Math.min(box.bottom - area.bottom + 4, box.top - area.top - 4);
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
  fitExplanation();
  sentences.forEach(el => el.classList.toggle("current", isAbout(el, i)));
  const about = sentences.find(el => isAbout(el, i));
  if (about) show(about);
}

function column(x) {
  for (let j = 0; j <= last; j++) {
    const box = frame(j).getBoundingClientRect();
    if (box.left <= x && x <= box.right) return j;
  }
  return null;
}

function openLegend(open) {
  legend.classList.toggle("open", open);
  toggle.setAttribute("aria-expanded", open);
  const below = document.getElementById("controls").getBoundingClientRect().bottom;
  legend.style.maxHeight = innerHeight - below - 16 + "px";
}

svg.addEventListener("click", e => { const j = column(e.clientX); if (j !== null) select(j); });
document.querySelectorAll("#steps tr.step").forEach(row => row.addEventListener("click", () => select(+row.dataset.step)));
why.querySelectorAll("a.goto").forEach(link => link.addEventListener("click", e => {
  e.preventDefault();
  select(+link.dataset.step);
}));
slider.addEventListener("input", () => select(+slider.value));
document.getElementById("prev").addEventListener("click", () => select(current - 1));
document.getElementById("next").addEventListener("click", () => select(current + 1));
toggle.addEventListener("click", () => openLegend(!legend.classList.contains("open")));
document.addEventListener("keydown", e => {
  if (e.key === "Escape") { openLegend(false); return; }
  if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = {ArrowLeft: current - 1, ArrowUp: current - 1, ArrowRight: current + 1, ArrowDown: current + 1,
                 Home: 0, End: last};
  if (e.key in moves) { select(moves[e.key]); e.preventDefault(); }
});
addEventListener("resize", () => { layOut(); reveal(current); fitExplanation(); });
layOut();
select(last);
reveal(DATA.blamed);
reveal(last);
const account = sentences.find(el => el.classList.contains("blamed") && el.id !== "lead");
if (account) show(account);
const opened = frame(last).getBoundingClientRect();
if (opened.bottom > window.innerHeight) window.scrollBy(0, opened.bottom - window.innerHeight + 8);
"""
