"""The ``schedule --report`` page in a real headless Chromium (the distribution's package,
driven by Playwright's Python package, never ``playwright install``): its charts and tables
render, nothing is fetched but the file itself, no console error, a header click sorts;
a screenshot is saved (to the test's folder; with ``RULESET_UPDATE_SCREENSHOT=1`` over
docs/report-screenshot.png, the one README shows: tests do not rewrite the checkout otherwise).
The ``explain``, ``compare`` and ``capacity`` pages open the same way: figures drawn, nothing
fetched, no console error.

Skipped when Playwright or Chromium is absent, except under CI (``CI`` set), where ``.ci/run``
installs both and a missing browser is a failure."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

if os.environ.get("CI"):  # .ci/run installs both: there a missing one is a failure, not a skip
    import matplotlib  # noqa: F401
    import playwright.sync_api as sync_api
else:
    pytest.importorskip("matplotlib")
    sync_api = pytest.importorskip("playwright.sync_api")

from ruleset.cli import main

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "report-screenshot.png"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]

pytestmark = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                reason="Chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def browser():
    # One Playwright per module: a second sync_playwright() while one runs is refused.
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _open(browser, report: Path):
    """A new tab on ``report``: the tab, its URL, the requests made and the problems logged."""
    url = report.as_uri()
    requests: list[str] = []
    problems: list[str] = []
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    tab.on("request", lambda request: requests.append(request.url))
    tab.on("console", lambda message: problems.append(f"console {message.type}: {message.text}")
           if message.type in ("error", "warning") else None)
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    # Anything but the file itself is refused (and recorded by the request handler).
    tab.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    tab.goto(url, wait_until="load")
    return tab, url, requests, problems


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    report = tmp_path_factory.mktemp("report") / "schedule.html"
    assert main(["schedule", "-o", "json", "--report", str(report)]) == 0
    opened = _open(browser, report)
    try:
        yield opened
    finally:
        opened[0].close()


def test_no_request_but_the_file_and_no_console_error(page):
    tab, url, requests, problems = page
    tab.wait_for_timeout(300)  # anything late would show up here
    assert requests == [url]
    assert problems == []


def test_charts_render(page):
    tab = page[0]
    svgs = tab.locator("figure svg")
    assert svgs.count() == 6  # heatmap; cpu, memory, nvidia.com/gpu per node; pods and cpu per zone
    for i in range(svgs.count()):
        box = svgs.nth(i).bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100
    assert tab.locator("figure svg").first.locator("path").count() > 50  # the heatmap's cells


def test_tables_render(page):
    tab = page[0]
    headings = tab.locator("h2").all_inner_texts()
    assert headings == ["Weighted scores by node and plugin", "Utilisation per node, before and after",
                        "Spread across zones", "Placements (9)", "Not scheduled (1)"]
    tables = tab.locator("table")
    assert tables.count() == 3
    assert [tables.nth(i).locator("tbody tr").count() for i in range(3)] == [24, 9, 1]
    assert tab.locator("table").nth(2).locator("tbody td").first.inner_text() == "batch/warehouse-etl"


def _column(tab, table: int, column: int) -> list[str]:
    return tab.locator("table").nth(table).locator(f"tbody tr td:nth-child({column})").evaluate_all(
        "cells => cells.map(c => c.getAttribute('data-v'))")


def test_clicking_a_header_sorts(page):
    tab = page[0]
    placements = tab.locator("table").nth(1)
    header = placements.locator("th", has_text="score")
    index = placements.locator("th").all_inner_texts().index("score") + 1
    header.first.click()
    assert header.first.get_attribute("aria-sort") == "ascending"
    # Blank scores (a single feasible node: not scored) sort last both ways.
    assert _column(tab, 1, index) == ["612", "688", "688", "688", "874", "874", None, None, None]
    header.first.click()
    assert header.first.get_attribute("aria-sort") == "descending"
    assert _column(tab, 1, index) == ["874", "874", "688", "688", "688", "612", None, None, None]
    names = placements.locator("th", has_text="pod")
    names.first.click()
    assert _column(tab, 1, 1) == ["batch/train-resnet", "shop/api-5c4d7f-p0", "shop/api-5c4d7f-p1",
                                  "shop/payments-9f7c-p0", "shop/payments-9f7c-p1", "shop/postgres-2",
                                  "shop/web-7d9f8c6b5-p0", "shop/web-7d9f8c6b5-p1", "shop/web-7d9f8c6b5-p2"]


def test_screenshot(page, tmp_path):
    tab = page[0]
    path = SCREENSHOT if os.environ.get("RULESET_UPDATE_SCREENSHOT") == "1" else tmp_path / "report.png"
    tab.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


# (case, the command's arguments, figures on its page)
COMMANDS = [
    ("explain", ["explain", "shop/payments-9f7c-p0"], 0),
    ("compare", ["compare", "--profile", "default-1.20", "--profile", "cluster-autoscaler"], 2),
    ("capacity", ["capacity", "--pod", "web-pod.yaml", "--max", "100"], 2),
]
WEB_POD = ('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"}, "spec": '
           '{"containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "2", '
           '"memory": "4Gi"}}}]}}')


@pytest.mark.parametrize(("args", "figures"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_command_pages_open_cleanly(browser, tmp_path, args, figures):
    (tmp_path / "web-pod.yaml").write_text(WEB_POD)
    argv = [str(tmp_path / a) if a == "web-pod.yaml" else a for a in args]
    report = tmp_path / "page.html"
    assert main([*argv, "-o", "json", "--report", str(report)]) == 0
    tab, url, requests, problems = _open(browser, report)
    try:
        tab.wait_for_timeout(300)  # anything late would show up here
        svgs = tab.locator("figure svg")
        assert svgs.count() == figures
        for i in range(figures):
            box = svgs.nth(i).bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 100
        tab.screenshot(path=str(tmp_path / "page.png"), full_page=True)
    finally:
        tab.close()
    assert requests == [url]
    assert problems == []
