"""Rendering counterexamples: every format, read back with independent parsers; bad input;
the explanation; the pictures' title, legend and text; what a step changed; and the HTML page
in a real headless Chromium at 1280x800."""

from __future__ import annotations

import os
import re
import shutil
import struct
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from checker.local import explore
from conftest import VARIANTS, run_cli
from invariants.registry import select
from model.registry import build_model
from traces.explain import explain
from traces.changes import Change, step_changes, tidy_line, trace_changes
from traces.lanes import losses
from traces.legend import COLOURS
from traces.replay import verify_trace, walk
from traces.store import load_trace, save_trace
from traces.trace import Step, Trace

SVG = "{http://www.w3.org/2000/svg}"

# One saved trace per variant: strong-isr where it fails (3 replicas), leader-in-isr for kip320.
CASES = {"hw": "strong-isr", "kip101": "strong-isr", "kip279": "strong-isr", "kip320": "leader-in-isr"}


# fetch hw's committed-survives counterexample (FETCH arrows, crashes, a ghost column), walked
# rather than searched for: exploring the fetch model takes a minute.
FETCH_ACTIONS = [("BecomeFollower", 1, 0, 0), ("BecomeLeader", 0, 0), ("ProducerWrite", 0), ("FollowerFetch", 1),
                 ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1), ("FollowerFetch", 1),
                 ("LeaderServeFetch", 0, 1), ("Crash", 1), ("Crash", 0), ("ControllerFailover", 0), ("Restart", 1),
                 ("BecomeFollower", 1, 0, 0), ("ControllerNoticeFailure", 0, 1), ("BecomeLeader", 1, 1)]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces")
    out = {}
    for variant, invariant in CASES.items():
        model = build_model("spec", variant)
        trace = explore(model, select("spec", [invariant])).violations[invariant]
        path = folder / f"{variant}.json"
        save_trace(trace, model, path)
        out[variant] = (path, trace)
    model = build_model("fetch", "hw", ghost=True)
    states = walk(model, FETCH_ACTIONS)
    trace = Trace("fetch", "hw", dict(model.parameters()), "committed-survives", states[0],
                  tuple(Step(a, s) for a, s in zip(FETCH_ACTIONS, states[1:])))
    verify_trace(trace, model)
    save_trace(trace, model, folder / "fetch.json")
    out["fetch"] = (folder / "fetch.json", trace)
    return out


def render(path, fmt, out, *extra):
    result = run_cli("trace", "render", str(path), "--format", fmt, "-o", str(out), *extra)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_graph_formats_load_back_with_one_node_per_state(traces, tmp_path, variant):
    path, trace = traces[variant]
    dot = nx.nx_pydot.read_dot(render(path, "dot", tmp_path / "t.dot"))
    graphml = nx.read_graphml(render(path, "graphml", tmp_path / "t.graphml"))
    import json

    linked = nx.node_link_graph(json.loads(render(path, "json", tmp_path / "t.json").read_text()), edges="links")
    for graph in (dot, graphml, linked):
        assert graph.number_of_nodes() == len(trace) + 1
        assert graph.number_of_edges() == len(trace)
    assert nx.is_directed_acyclic_graph(graphml)
    violating = [n for n, d in graphml.nodes(data=True) if d["violating"]]
    assert violating == [str(len(trace))]
    if len(trace):
        last_edge = graphml.edges[str(len(trace) - 1), str(len(trace))]
        assert last_edge["action"] == trace.steps[-1].action[0]


@pytest.mark.parametrize("variant", VARIANTS)
def test_svg_has_one_lane_per_replica_and_png_is_an_image(traces, tmp_path, variant):
    path, trace = traces[variant]
    root = ET.parse(render(path, "svg", tmp_path / "t.svg")).getroot()
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    replicas = trace.bounds["replicas"]
    assert {i for i in ids if i.startswith("lane-")} == {f"lane-r{r + 1}" for r in range(replicas)}
    assert {i for i in ids if i.startswith("step-")} == {f"step-{i}" for i in range(len(trace) + 1)}
    png = render(path, "png", tmp_path / "t.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 300 and height > 200 and len(png) > 10_000


def svg_texts(path) -> list[str]:
    """The text of every <text> element of an SVG file."""
    return ["".join(el.itertext()) for el in ET.parse(path).getroot().iter(f"{SVG}text")]


def test_graph_picture_has_a_title_and_a_legend_as_text(traces, tmp_path):
    path, trace = traces["hw"]
    texts = svg_texts(render(path, "svg", tmp_path / "g.svg", "--picture", "graph"))
    assert f"spec hw: strong-isr violated after {len(trace)} steps" in texts
    assert any("The red box is the state that violates" in t for t in texts)
    assert not any("no leader" in t for t in texts)


@pytest.mark.parametrize("variant, marks", [
    ("kip101", ("red record: a committed record", "leader badge", "pink column")),
    ("fetch", ("arrow to the leader: FETCH request", "arrow back: FETCH response", "grey: the broker is down")),
])
def test_lanes_svg_keeps_its_title_legend_and_labels_as_text(traces, tmp_path, variant, marks):
    path, trace = traces[variant]
    svg = render(path, "svg", tmp_path / "t.svg")
    texts = svg_texts(svg)
    assert f"{trace.model} {trace.variant}: {trace.invariant} violated after {len(trace)} steps" in texts
    assert "Legend" in texts and f"{trace.invariant} fails here" in " ".join(texts)  # maybe wrapped
    for words in ("HW n (green bar)", "LEO n (blue", "red step number") + marks:
        assert any(t.startswith(words) for t in texts), words
    assert "HW 0" in texts and "LEO 0" in texts and "leader e1" in texts
    assert not any("no leader" in t for t in texts)
    assert "DejaVuSans-" not in svg.read_text()  # no glyph outlines: text is text


def figure_texts(fig):
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_text()]


def test_png_picture_has_its_title_story_and_legend_in_readable_sizes(traces):
    import matplotlib.pyplot as plt

    from traces.picture import lanes_figure

    _, trace = traces["kip101"]
    model = build_model("spec", "kip101")
    fig = lanes_figure(trace, model)
    texts = figure_texts(fig)
    words = [t.get_text() for t in texts]
    assert words[0] == f"spec kip101: strong-isr violated after {len(trace)} steps"
    assert f"Step {len(trace)} (" in words[1]
    assert "Legend" in words and any(w.startswith("LEO n") for w in words)
    assert min(t.get_fontsize() for t in texts) * 96 / 72 >= 11  # points on a 96 dpi page
    plt.close(fig)
    fig = lanes_figure(trace, model, framed=False)
    assert "Legend" not in [t.get_text() for t in figure_texts(fig)]
    plt.close(fig)


def test_leadership_is_a_badge_and_the_lost_record_is_white_on_red(traces):
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from traces.picture import lanes_figure

    _, trace = traces["kip101"]
    model = build_model("spec", "kip101")
    fig = lanes_figure(trace, model, framed=False)
    texts = figure_texts(fig)
    views = [model.lanes(s) for s in trace.states()]
    badges = [t for t in texts if t.get_text().startswith("leader")]
    assert len(badges) == sum(lane.leader for view in views for lane in view.values()) > 0
    assert all(to_hex(t.get_bbox_patch().get_facecolor()) == COLOURS["leader"] for t in badges)
    [loss] = losses(views)
    lost = [t for t in texts if t.get_text() == loss.record and to_hex(t.get_color()) == "#ffffff"]
    assert len(lost) == 1 and lost[0].get_fontweight() == "bold"
    assert contrast("#ffffff", COLOURS["lost"]) >= 4.5
    plt.close(fig)


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two colours."""
    from matplotlib.colors import to_rgb

    def luminance(colour):
        return sum(w * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
                   for w, c in zip((0.2126, 0.7152, 0.0722), to_rgb(colour)))

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("line, tidy", [("- no leader", ""), ("e0 no leader", "e0"), ("- crashed", "crashed"),
                                        ("-", ""), ("e1 follows r2", "e1 follows r2"), ("- leader none", "leader none")])
def test_tidy_line_drops_only_placeholders(line, tidy):
    assert tidy_line(line) == tidy


def test_changes_name_the_fields_a_step_changed(traces):
    _, trace = traces["hw"]
    model = build_model("spec", "hw")
    states = trace.states()
    views, columns = [model.lanes(s) for s in states], [model.state_columns(s) for s in states]
    changes = trace_changes(views, columns)
    assert len(changes) == len(states) and changes[0] == []
    assert {c.subject for c in changes[1]} == {"controller"}
    [loss] = losses(views)
    lost = {(c.field, c.before, c.after) for c in changes[loss.step] if c.subject == loss.lane}
    assert ("log", f"[0:{loss.record}]", "[]") in lost and ("LEO", "1", "0") in lost
    step, leader = next((i, c.subject) for i, cs in enumerate(changes) for c in cs if c.after == "leader")
    assert Change(leader, "role", "no leader", "leader") in changes[step]
    assert any(c.field == "ISR" and c.subject == leader and c.before == "—" for c in changes[step])
    assert step_changes(views[-1], views[-1], columns[-1], columns[-1]) == []


def test_default_output_names_never_overwrite_the_trace(traces, tmp_path):
    path, _ = traces["hw"]
    copy = tmp_path / "spec-hw.json"
    shutil.copy(path, copy)
    for fmt in ("json", "svg", "html"):
        result = run_cli("trace", "render", str(copy), "--format", fmt)
        assert result.exit_code == 0
        assert result.stdout.strip() != str(copy)
    assert copy.read_bytes() == path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec-hw.graph.json", "spec-hw.html", "spec-hw.json",
                                                          "spec-hw.lanes.svg"]


@pytest.mark.parametrize("args, message", [
    (("--format", "pdf"), "Invalid value for '--format'"),
    (("--format", "svg", "-o", "/nonexistent-dir/x.svg"), "-o /nonexistent-dir/x.svg: cannot write a trace picture (svg) there"),
])
def test_bad_render_requests_exit_2(traces, args, message):
    path, _ = traces["hw"]
    result = run_cli("trace", "render", str(path), *args)
    assert result.exit_code == 2 and message in result.stderr


def test_corrupt_trace_renders_nothing(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "replcheck-trace/1", "model": "spec"')
    result = run_cli("trace", "render", str(bad), "--format", "svg", "-o", str(tmp_path / "out.svg"))
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_output_under_a_regular_file_is_exit_2(traces, tmp_path):
    path, _ = traces["hw"]
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run_cli("trace", "render", str(path), "--format", "png", "-o", str(blocker / "t.png"))
    assert result.exit_code == 2 and "cannot write" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_failed_write_removes_its_temporary_file(traces, tmp_path, monkeypatch):
    import traces.store as store

    path, _ = traces["hw"]
    monkeypatch.setattr(store.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    result = run_cli("trace", "render", str(path), "--format", "svg", "-o", str(tmp_path / "t.svg"))
    assert result.exit_code == 2 and "No space left on device" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_explain_names_the_lost_record_and_the_lagging_hw(traces):
    path, _ = traces["hw"]
    result = run_cli("trace", "show", str(path), "--explain")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    step = re.search(r"Step 8 \((r\d) becomes follower of (r\d) in epoch (\d)", text)
    assert step, text
    follower, leader, _ = step.groups()
    lost = re.search(rf"At step 8, {follower} lost record (\w@e\d) at offset 0, which {leader} had already committed "
                     r"\(its HW was 1\)", text)
    assert lost, text
    assert f"{follower}'s own HW was 0, lagging {leader}'s HW of 1" in text
    assert f"The record became committed at step 7 ({leader} advances its HW to 1)" in text




CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Every text the page shows, with its size in CSS pixels at 100% zoom (SVG text scaled by its
# transform to the screen: matplotlib writes points as user units).
FONT_SIZES = """() => {
  const out = [];
  const html = "h1, h2, #lead, #story li, #controls button, #label, #action, #summary, #changes th, #changes td, "
             + "#state th, #state td, #steps th, #steps td, #gutter div";
  for (const el of document.querySelectorAll(html))
    if (el.textContent.trim()) out.push([el.tagName + " " + el.textContent.slice(0, 30), parseFloat(getComputedStyle(el).fontSize)]);
  for (const el of document.querySelectorAll("svg text")) {
    const m = el.getScreenCTM();
    out.push(["svg " + el.textContent, parseFloat(getComputedStyle(el).fontSize) * Math.hypot(m.a, m.b)]);
  }
  return out;
}"""


def launch(p):
    """Debian's headless Chromium, driven by playwright."""
    return p.chromium.launch(executable_path=CHROMIUM, args=[
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"])


def screenshot(page, tmp_path, name):
    """A viewport screenshot into tmp_path, and into $REPLCHECK_SCREENSHOTS when set."""
    page.screenshot(path=str(tmp_path / name))
    if os.environ.get("REPLCHECK_SCREENSHOTS"):
        folder = os.environ["REPLCHECK_SCREENSHOTS"]
        os.makedirs(folder, exist_ok=True)
        page.screenshot(path=os.path.join(folder, name))
    assert (tmp_path / name).stat().st_size > 10_000


def in_view(page, selector) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"] \
        and box["y"] + box["height"] <= size["height"]


def selected(page) -> list[str]:
    return page.eval_on_selector_all("#steps tr.current td:first-child", "els => els.map(e => e.textContent)")


@pytest.mark.parametrize("variant", ["hw", "kip101", "fetch"])
def test_html_page_tells_the_story_in_a_real_browser(traces, tmp_path, variant):
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the browser test: .ci/run installs Debian's chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    path, _ = traces[variant]
    trace, model = load_trace(path)
    states, k = trace.states(), len(trace)
    last_changes = trace_changes([model.lanes(s) for s in states], [model.state_columns(s) for s in states])[-1]
    page_file = render(path, "html", tmp_path / "t.html")
    errors = []
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(page_file.as_uri())
        screenshot(page, tmp_path, f"{variant}-opened.png")

        # Opened on the failing step, its column on screen, its row marked, what it changed listed.
        assert page.text_content("#label") == f"{k} / {k}"
        assert page.text_content("#action") == model.describe_step(trace.steps[-1].action, states[-2], states[-1])
        assert in_view(page, f"#step-{k} path") and in_view(page, "h1")
        assert page.eval_on_selector(f"#step-{k} path", "e => e.style.stroke") in ("#e0a800", "rgb(224, 168, 0)")
        assert selected(page) == [str(k)]
        rows = page.eval_on_selector_all("#changes-body tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        assert rows == [[c.subject, c.field, c.before, c.after] for c in last_changes] != []
        if variant != "fetch":
            assert any(row[1] == "log" and row[3] == "[]" for row in rows), rows
        summary = page.text_content("#summary")
        assert summary.startswith("changed: ") and all(f"{c.before} → {c.after}" in summary for c in last_changes)

        # The explanation in full, a legend for every mark; leadership shown once, not as "- no leader"
        # in every lane.
        story = [page.text_content("#lead")] + page.eval_on_selector_all("#story li", "els => els.map(e => e.textContent)")
        assert story == explain(trace, model)
        legend = page.text_content("#legend")
        for words in ("HW n", "LEO n", "green record: committed", "leader badge", "red record", "red step number",
                      "orange frame: the selected step"):
            assert words in legend, words
        assert ("grey: the broker is down" in legend) == (variant == "fetch")
        assert "no leader" not in page.text_content("#picture") + page.text_content("#steps")
        sizes = page.evaluate(FONT_SIZES)
        assert len(sizes) > 100 and min(size for _, size in sizes) >= 11, [x for x in sizes if x[1] < 11]
        gutter = page.eval_on_selector_all("#gutter div", "els => els.map(e => e.textContent)")
        assert gutter == [f"r{r + 1}" for r in range(trace.bounds["replicas"])]

        # Clicking a row, the arrow keys and clicking a column move the selection.
        page.click("#steps tr.step[data-step='2']")
        assert page.text_content("#label") == f"2 / {k}" and selected(page) == ["2"]
        page.keyboard.press("ArrowRight")
        assert page.text_content("#label") == f"3 / {k}"
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        assert page.text_content("#label") == f"1 / {k}" and selected(page) == ["1"]
        page.evaluate("window.scrollTo(0, 0)")
        assert in_view(page, "#step-1 path")
        box = page.locator("#step-3 path").bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.6)
        assert page.text_content("#label") == f"3 / {k}" and selected(page) == ["3"]
        assert page.text_content("#number") == "3"
        screenshot(page, tmp_path, f"{variant}-step3.png")
        page.keyboard.press("End")
        assert page.text_content("#label") == f"{k} / {k}" and in_view(page, f"#step-{k} path")
        browser.close()
    assert errors == []
