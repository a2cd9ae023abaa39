"""The coverage page (`--coverage-html`), loaded in a real headless Chromium at 1280x800: it
fits the window's width, each action's bar is as long as its steps say, an action that never
fired names the guard that kept it off, the chart has a band for every action that fired, and a
screenshot shows the bars where their boxes are."""

from __future__ import annotations

import io
import json
import os
import shutil

import pytest

from conftest import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BOX = "el => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, width: r.width, height: r.height}; }"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """(the page's path, the same run's --json coverage) for fetch kip320 at the default bounds."""
    folder = tmp_path_factory.mktemp("coverage")
    page = folder / "coverage.html"
    args = ("check", "--model", "fetch", "--variant", "kip320", "--engine", "local")
    result = run_cli(*args, "--coverage-html", str(page))
    assert result.exit_code == 0, result.output
    coverage = json.loads(run_cli(*args, "--coverage", "--json").stdout)["coverage"]
    return page, coverage


@pytest.fixture(scope="module")
def page(written):
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the browser test: .ci/run installs Debian's chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        tab = browser.new_page(viewport={"width": 1280, "height": 800})
        errors = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.goto(written[0].as_uri())
        yield tab
        assert errors == []
        browser.close()


def test_the_page_fits_the_window_width(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert page.eval_on_selector("#actions", BOX)["width"] <= 1280


def test_each_bar_is_as_long_as_its_steps(page, written):
    actions = {name: row for name, row in written[1]["actions"].items() if name != "Init"}
    scale = max(row["fired"] for row in actions.values())
    for name, row in actions.items():
        track = page.eval_on_selector(f'tr[data-action="{name}"] .track', BOX)
        fired = page.eval_on_selector(f'tr[data-action="{name}"] .fired', BOX)
        new = page.eval_on_selector(f'tr[data-action="{name}"] .new', BOX)
        assert fired["width"] == pytest.approx(track["width"] * row["fired"] / scale, abs=1)
        assert new["width"] == pytest.approx(track["width"] * row["new"] / scale, abs=1)


def test_an_action_or_event_that_never_fired_names_its_guard(page, written):
    coverage = written[1]
    for name in coverage["never_fired"]:
        kind = "action" if name in coverage["actions"] else "event"
        why = page.inner_text(f'tr[data-{kind}="{name}"] td.why')
        blocked = (coverage["actions"].get(name) or coverage["events"][name])["blocked_by"]
        assert why.startswith(f"'{blocked['guard']}' false")
    assert page.inner_text('tr[data-action="Crash"] td.why') == ""


def test_the_chart_has_a_band_for_every_action_that_fired(page, written):
    fired = [name for name, row in written[1]["actions"].items() if name != "Init" and row["fired"]]
    bands = page.eval_on_selector_all("#shares svg g[id^=share-]", "els => els.map(el => el.id)")
    assert sorted(bands) == sorted(f"share-{name}" for name in fired)
    chart = page.eval_on_selector("#shares svg", BOX)
    assert chart["x"] >= 0 and chart["x"] + chart["width"] <= 1280


def test_the_screenshot_shows_the_bars_where_their_boxes_are(page, tmp_path):
    from PIL import Image

    bar = page.eval_on_selector('tr[data-action="Restart"] .fired', BOX)
    assert bar["y"] + bar["height"] <= 800  # on screen at load
    shot = Image.open(io.BytesIO(page.screenshot(path=str(tmp_path / "coverage.png")))).convert("RGB")
    assert shot.size == (1280, 800)
    x, y = int(bar["x"] + bar["width"] - 3), int(bar["y"] + 2)  # the blue of steps fired, beside the green of new
    assert all(abs(a - b) <= 40 for a, b in zip(shot.getpixel((x, y)), (0x1f, 0x5f, 0xbf)))
