"""The HTML trace page's layout, measured in a real headless Chromium at 1280x800 and 1920x1080.

On load: the failing step's column (whole, and not under the sticky lane names), the legend's
toggle and the explanation of the step it blames are all in the window, and the page's main
boxes do not overlap; no label of the picture is cut by the sticky lane names or by the edge of
the picture, however the picture is scrolled; the legend opens beside the failing column, not
over it; walking to a culprit step brings its column and its sentence into view. Screenshots are
read back: their size is the window's, and the failing column's red step number and orange
frame are at the place its box says.
"""

from __future__ import annotations

import io
import os
import re
import shutil

import pytest

from checker.local import explore
from invariants.registry import select
from model.registry import build_model
from traces.diagnosis import diagnose
from traces.explain import explain_steps
from traces.legend import COLOURS
from traces.render import render
from traces.replay import verify_trace, walk
from traces.trace import Step, Trace

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SIZES = [(1280, 800), (1920, 1080)]

# fetch kip279's committed-survives counterexample with 3 replicas (19 steps, several times as wide
# as a 1280 window shows), walked rather than searched for: the search takes a minute.
FETCH_KIP279 = [("BecomeLeader", 0, 0), ("ProducerWrite", 0), ("BecomeFollower", 1, 0, 0), ("FollowerFetch", 1),
                ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1), ("FollowerFetch", 1),
                ("LeaderServeFetch", 0, 1), ("LeaderShrinkIsr", 0, 2), ("BecomeFollower", 2, 0, 0), ("Crash", 0),
                ("ControllerFailover", 0), ("Restart", 0), ("BecomeLeader", 0, 0), ("FollowerFetch", 2),
                ("LeaderServeFetch", 0, 2), ("Crash", 0), ("ControllerNoticeFailure", 0, 2), ("BecomeLeader", 2, 1)]

# fetch hw's committed-survives counterexample (2 replicas, crashes, a controller failover): the
# truncation it blames (step 13) is two steps before the failure.
FETCH_HW = [("BecomeFollower", 1, 0, 0), ("BecomeLeader", 0, 0), ("ProducerWrite", 0), ("FollowerFetch", 1),
            ("LeaderServeFetch", 0, 1), ("FollowerApplyResponse", 1), ("FollowerFetch", 1), ("LeaderServeFetch", 0, 1),
            ("Crash", 1), ("Crash", 0), ("ControllerFailover", 0), ("Restart", 1), ("BecomeFollower", 1, 0, 0),
            ("ControllerNoticeFailure", 0, 1), ("BecomeLeader", 1, 1)]

TRACES = ["spec-hw", "spec-kip101", "spec-kip279", "fetch-hw", "fetch-kip279"]

# Boxes as {x, y, width, height} in window pixels.
BOX = "el => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, width: r.width, height: r.height}; }"

# The picture's visible strip (right of the sticky lane names, left of its own right edge) and
# every label in it that is neither wholly shown nor wholly hidden: [text, left, right].
CUT_LABELS = """() => {
  const picture = document.getElementById("picture"), gutter = document.getElementById("gutter");
  const p = picture.getBoundingClientRect();
  const left = gutter.getBoundingClientRect().right, right = p.left + picture.clientLeft + picture.clientWidth;
  const cut = [];
  for (const el of picture.querySelectorAll("svg text")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= left + 0.5 || r.left >= right - 0.5) continue;
    if (r.left < left - 0.5 || r.right > right + 0.5) cut.push([el.textContent, r.left, r.right]);
  }
  return {left, right, cut};
}"""

# The lane names of the sticky column: [name, scrollWidth, clientWidth, box] for each.
LANE_NAMES = """() => [...document.querySelectorAll("#gutter div")].map(el => {
  const r = el.getBoundingClientRect();
  return [el.textContent, el.scrollWidth, el.clientWidth, {x: r.left, y: r.top, width: r.width, height: r.height}];
})"""

# How far the picture is scrolled, in columns (the distance between two column frames).
COLUMNS_SCROLLED = """() => {
  const a = document.querySelector("#step-0 path").getBoundingClientRect();
  const b = document.querySelector("#step-1 path").getBoundingClientRect();
  return document.getElementById("picture").scrollLeft / (b.left - a.left);
}"""


def spec_trace(variant: str):
    model = build_model("spec", variant)
    return explore(model, select("spec", ["strong-isr"])).violations["strong-isr"], model


def fetch_trace(variant: str, actions: list[tuple], **bounds):
    model = build_model("fetch", variant, ghost=True, **bounds)
    states = walk(model, actions)
    trace = Trace("fetch", variant, dict(model.parameters()), "committed-survives", states[0],
                  tuple(Step(a, s) for a, s in zip(actions, states[1:])))
    verify_trace(trace, model)
    return trace, model


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """name -> (the page's file, its trace, its model), rendered once."""
    folder = tmp_path_factory.mktemp("pages")
    out = {}
    for name in TRACES:
        model_name, variant = name.split("-")
        if model_name == "spec":
            trace, model = spec_trace(variant)
        elif variant == "hw":
            trace, model = fetch_trace(variant, FETCH_HW)
        else:
            trace, model = fetch_trace(variant, FETCH_KIP279, replicas=3)
        path = folder / f"{name}.html"
        path.write_bytes(render(trace, model, "html"))
        out[name] = (path, trace, model)
    return out


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the browser test: .ci/run installs Debian's chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        yield browser
        browser.close()


@pytest.fixture
def opened(browser, pages, request):
    """(page, trace, model) for the trace and window size of the test's parameters, the page
    loaded; no script error may happen while the test uses it."""
    name, (width, height) = request.param
    path, trace, model = pages[name]
    page = browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    yield page, trace, model
    page.close()
    assert errors == []


CASES = [(name, size) for name in TRACES for size in SIZES]
IDS = [f"{name}-{w}x{h}" for name, (w, h) in CASES]
STALE = [(name, size) for name, size in CASES if name in ("spec-kip101", "spec-kip279")]
STALE_IDS = [f"{name}-{w}x{h}" for name, (w, h) in STALE]


def box(page, selector: str) -> dict:
    return page.eval_on_selector(selector, BOX)


def inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def overlap(a: dict, b: dict) -> float:
    """The area two boxes share."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(0.0, w) * max(0.0, h)


def window(page) -> dict:
    size = page.viewport_size
    return {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}


def shown_strip(page) -> dict:
    """The part of the picture that shows columns: right of the sticky lane names."""
    strip = page.evaluate(CUT_LABELS)
    picture = box(page, "#picture")
    return {"x": strip["left"], "y": picture["y"], "width": strip["right"] - strip["left"], "height": picture["height"]}


def column_shown(page, k: int) -> bool:
    """Column k is whole in the window and in the picture's strip right of the lane names."""
    column = box(page, f"#step-{k} path")
    return inside(column, window(page)) and inside(column, shown_strip(page))


def blamed_account(trace, model) -> list[tuple[str, str]]:
    """The explanation of the step the diagnosis blames (the last step without one), as
    (selector, sentence): the lead, then the story's first sentences as long as they are about
    that step (the cause, the damage, why the step chose what it chose)."""
    diagnosis = diagnose(trace)
    blamed = diagnosis.step if diagnosis else len(trace)
    (lead, _), *story = explain_steps(trace, model)
    account = [("#lead", lead)]
    for i, (sentence, about) in enumerate(story, 1):
        if blamed not in about:
            break
        account.append((f"#story li:nth-child({i})", sentence))
    return account


def screenshot(page, tmp_path, name: str):
    """A window screenshot, saved into tmp_path (and $REPLCHECK_SCREENSHOTS when set), as an image."""
    from PIL import Image

    png = page.screenshot(path=str(tmp_path / name))
    if os.environ.get("REPLCHECK_SCREENSHOTS"):
        folder = os.environ["REPLCHECK_SCREENSHOTS"]
        os.makedirs(folder, exist_ok=True)
        shutil.copy(tmp_path / name, folder)
    return Image.open(io.BytesIO(png)).convert("RGB")


def near(pixel, colour: str, tolerance: int = 40) -> bool:
    rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, rgb))


@pytest.mark.parametrize("opened", CASES, ids=IDS, indirect=True)
def test_on_load_the_failing_column_the_legend_toggle_and_the_blamed_explanation_are_on_screen(opened):
    page, trace, model = opened
    k, screen = len(trace), window(page)
    assert page.text_content("#label") == f"{k} / {k}"
    assert page.evaluate("document.documentElement.scrollWidth") <= screen["width"]  # no sideways page scroll
    assert column_shown(page, k)
    assert inside(box(page, "#legend-toggle"), screen) and page.is_visible("#legend-toggle")
    assert page.eval_on_selector("#legend", "e => getComputedStyle(e).visibility") == "hidden"

    diagnosis = diagnose(trace)
    account = blamed_account(trace, model)
    assert len(account) >= (3 if diagnosis else 1), account  # the lead, the cause and the damage when diagnosed
    if diagnosis:
        assert account[2][1].startswith(f"At step {diagnosis.step}, ")
        assert column_shown(page, diagnosis.step)
    aside = box(page, "#why")
    assert inside(aside, screen)
    # However long the explanation, it scrolls in its own box, which ends in the window.
    end = "e => e.getBoundingClientRect().top + parseFloat(getComputedStyle(e).maxHeight)"
    assert page.eval_on_selector("#why", end) <= screen["height"]
    for selector, sentence in account:
        assert page.text_content(selector) == sentence
        assert inside(box(page, selector), aside) and inside(box(page, selector), screen), selector

    parts = ["h1", "#controls", "#picture", "#why"]
    boxes = {p: box(page, p) for p in parts + ["#legend-toggle", "#what"]}
    for i, a in enumerate(parts):
        for b in parts[i + 1:]:
            assert overlap(boxes[a], boxes[b]) < 1, (a, b, boxes[a], boxes[b])
    assert inside(boxes["#legend-toggle"], boxes["#controls"]) and overlap(boxes["#legend-toggle"], boxes["#what"]) < 1
    assert overlap(box(page, f"#step-{k} path"), aside) < 1


@pytest.mark.parametrize("opened", CASES, ids=IDS, indirect=True)
def test_no_label_is_cut_by_the_sticky_lane_names_or_the_picture_edge(opened):
    page, trace, _ = opened
    names = page.evaluate(LANE_NAMES)
    gutter = box(page, "#gutter")
    assert [n[0] for n in names] == [f"r{r + 1}" for r in range(trace.bounds["replicas"])]
    for name, scroll_width, client_width, name_box in names:
        assert scroll_width <= client_width and name_box["width"] <= gutter["width"] + 0.5, name

    def uncut(where: str):
        strip = page.evaluate(CUT_LABELS)
        assert strip["cut"] == [], (where, strip)
        scrolled = page.evaluate(COLUMNS_SCROLLED)
        assert abs(scrolled - round(scrolled)) < 0.02, (where, scrolled)  # whole columns only

    uncut("on load")
    page.evaluate("document.getElementById('picture').scrollLeft = 270")  # a column and a third
    # wait for the browser to snap to a whole column (a sign, not a delay; playwright's 30 s only guard a hang)
    page.wait_for_function(f"() => {{ const s = ({COLUMNS_SCROLLED})(); return Math.abs(s - Math.round(s)) < 0.02; }}")
    uncut("scrolled by hand")
    page.keyboard.press("Home")
    assert column_shown(page, 0)
    uncut("at step 0")
    page.keyboard.press("ArrowRight")
    assert page.text_content("#label") == f"1 / {len(trace)}" and column_shown(page, 1)


@pytest.mark.parametrize("opened", CASES, ids=IDS, indirect=True)
def test_the_legend_opens_on_screen_beside_the_failing_column(opened):
    page, trace, _ = opened
    k = len(trace)
    page.click("#legend-toggle")
    assert page.get_attribute("#legend-toggle", "aria-expanded") == "true"
    legend = box(page, "#legend")
    assert inside(legend, window(page))
    assert overlap(legend, box(page, "#controls")) < 1 and overlap(legend, box(page, f"#step-{k} path")) < 1
    middle = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('#legend') !== null",
                           [legend["x"] + legend["width"] / 2, legend["y"] + legend["height"] / 2])
    assert middle, "the legend is under something"
    assert "red step number" in page.text_content("#legend")
    page.keyboard.press("Escape")
    assert page.eval_on_selector("#legend", "e => getComputedStyle(e).visibility") == "hidden"
    assert page.text_content("#label") == f"{k} / {k}"


@pytest.mark.parametrize("opened", STALE, ids=STALE_IDS, indirect=True)
def test_a_step_named_in_the_explanation_is_a_link_to_its_column_and_its_sentence(opened):
    # kip101 and kip279: the culprits of the truncation under a stale LeaderAndIsr at step 10 (the
    # FETCH served across epochs that brought the record, an earlier stale request) are named in
    # their own sentences, as links.
    page, trace, _ = opened
    culprits = diagnose(trace).culprit_steps
    assert culprits
    for step in culprits:
        page.click(f"#story a.goto[data-step='{step}']")
        assert page.text_content("#label") == f"{step} / {len(trace)}" and column_shown(page, step)
        current = page.eval_on_selector_all("#why .current", "els => els.map(e => e.textContent)")
        assert current and all(re.search(rf"\b[Ss]tep {step}\b", sentence) for sentence in current), current
        first = box(page, "#why .current")
        assert inside(first, box(page, "#why")) and inside(first, window(page))


@pytest.mark.parametrize("opened", CASES, ids=IDS, indirect=True)
def test_the_screenshot_shows_the_failing_column_where_its_box_is(opened, tmp_path, request):
    page, trace, _ = opened
    k = len(trace)
    image = screenshot(page, tmp_path, f"{request.node.callspec.id}.png")
    assert image.size == (page.viewport_size["width"], page.viewport_size["height"])
    column = box(page, f"#step-{k} path")
    x0, y0 = round(column["x"]), round(column["y"])
    x1, y1 = round(column["x"] + column["width"]), round(column["y"] + column["height"])
    red = sum(near(image.getpixel((x, y)), COLOURS["fails"]) for x in range(x0, x1, 2) for y in range(y0, y1, 2))
    assert red >= 40, red  # the red step number (and on spec traces the lost record)
    frame = [image.getpixel((x0, y)) for y in range(y0 + 10, y1 - 10, 5)]
    assert sum(near(p, COLOURS["selected"]) for p in frame) >= 0.9 * len(frame), frame[:5]
    left = box(page, f"#step-{k - 1} path")  # the column before it: no red step number there
    assert not any(near(image.getpixel((x, y)), COLOURS["fails"])
                   for x in range(round(left["x"]) + 4, round(left["x"] + 60)) for y in range(y0, y0 + 30))
