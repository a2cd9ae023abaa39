"""Rendering counterexamples: every format, read back with independent parsers; bad input;
the explanation; and the HTML page in a real headless Chromium."""

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
from traces.store import save_trace

# One saved trace per variant: strong-isr where it fails (3 replicas), leader-in-isr for kip320.
CASES = {"hw": "strong-isr", "kip101": "strong-isr", "kip279": "strong-isr", "kip320": "leader-in-isr"}


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


def test_graph_picture_renders_too(traces, tmp_path):
    path, trace = traces["hw"]
    root = ET.parse(render(path, "svg", tmp_path / "g.svg", "--picture", "graph")).getroot()
    assert root.tag.endswith("svg")


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
    (("--format", "svg", "-o", "/nonexistent-dir/x.svg"), "cannot write /nonexistent-dir/x.svg"),
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


def test_html_page_walks_the_trace_in_a_real_browser(traces, tmp_path):
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the browser test: .ci/run installs Debian's chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    path, trace = traces["hw"]
    page_file = render(path, "html", tmp_path / "t.html")
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = browser.new_page()
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(page_file.as_uri())
        assert page.text_content("#label") == f"0 / {len(trace)}"
        assert page.text_content("#action") == "initial state"
        page.keyboard.press("ArrowRight")
        assert page.text_content("#label") == f"1 / {len(trace)}"
        assert page.text_content("#action").startswith("controller elects")
        page.fill("#step", str(len(trace)))
        page.dispatch_event("#step", "input")
        assert re.match(r"r\d becomes follower of r\d in epoch 1", page.text_content("#action"))
        assert "LEO 0 HW 0" in page.text_content("#state-body")
        assert page.get_attribute(f"#step-{len(trace)} path", "style").replace(" ", "").find("stroke:#e0a800") >= 0 \
            or "rgb(224, 168, 0)" in page.eval_on_selector(f"#step-{len(trace)} path", "e => e.style.stroke")
        current = page.eval_on_selector_all("#steps tr.current td:first-child", "els => els.map(e => e.textContent)")
        assert current == [str(len(trace))]
        page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
        if os.environ.get("REPLCHECK_SCREENSHOT"):
            page.screenshot(path=os.environ["REPLCHECK_SCREENSHOT"], full_page=False)
        browser.close()
    assert errors == []
    assert (tmp_path / "page.png").stat().st_size > 10_000
