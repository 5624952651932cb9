"""What users see, in headless Chromium: the study report's plots render without
JavaScript errors and its replay steps through the moves; the report of the
README's quick study (Morris) shows its two-stage confirmation and draws the
board's lines, with the replay's legend clear of the plot toolbar; ``heurtune
dashboard`` shows the study, its note, a trial's note and an artifact.

Screenshots land in each test's temporary folder; ``pytest
tests/tuning/views/test_browser.py --screenshots docs/img`` regenerates the
README's and the guide's (``report.png``, ``report-replay.png`` and
``report-confirmation.png`` from the quick study's report, ``dashboard.png``).
The tests fail, never skip, when Chromium or its driver is missing (``.ci/run``
installs them).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from heurtune.cli import main
from tests.helpers import ROOT
from tests.tuning.views.browser import chromium, console_errors, screenshot, wait_for

pytestmark = pytest.mark.browser

RENDERED = """
return Array.from(document.querySelectorAll(".js-plotly-plot")).map(div => ({
  id: div.id,
  traces: (div.data || []).length,
  marks: div.querySelectorAll(".point, .bars path, .heatmaplayer image, .contourlevel path").length,
  svgs: div.querySelectorAll(".main-svg").length,
}));
"""
DASHBOARD_WINDOW = (1280, 1800)  # a trial's note and its artifacts in one screenshot
PIECES = """
const data = document.getElementById(arguments[0]).data;
return data.slice(0, -1).map(t => t.x.length);
"""


# where an element of a replay sits in the window: its box, to tell overlaps
BOX = """
const r = document.querySelector(arguments[0]).getBoundingClientRect();
return [r.left, r.top, r.right, r.bottom];
"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.fixture(scope="module")
def report(small_study, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", "iso", "--storage", small_study.storage, "--out", str(out)]) == 0
    return out


def test_report_renders_and_replays(report: Path, tmp_path: Path) -> None:
    with chromium() as driver:
        driver.get(report.as_uri())
        plots = wait_for(lambda: (lambda r: r if r and all(p["svgs"] for p in r) else None)(
            driver.execute_script(RENDERED)), "every plot to render")
        assert len(plots) >= 9  # the figures and two replay boards
        for plot in plots:
            assert plot["traces"] > 0 and plot["marks"] > 0, plot
        assert console_errors(driver) == []
        screenshot(driver, tmp_path / "report.png")

        board, label = "replay-1-board", driver.find_element(By.ID, "replay-1-label")
        assert label.text.startswith("start (")
        start = driver.execute_script(PIECES, board)
        _ = driver.find_element(By.ID, "replay-1").location_once_scrolled_into_view  # scrolls
        steps = []
        for _ in range(3):
            driver.find_element(By.ID, "replay-1-next").click()
            steps.append((label.text, driver.execute_script(PIECES, board)))
        assert [text.split(":")[0] for text, _ in steps] == [
            f"ply {k} of {label.text.split(' of ')[1].split(':')[0]}" for k in (1, 2, 3)]
        assert len({str(pieces) for _, pieces in steps} | {str(start)}) == 4  # each a new board
        assert driver.find_element(By.ID, "replay-1-board").get_attribute("data-ply") == "3"
        driver.find_element(By.ID, "replay-1-back").click()
        assert label.text.startswith("ply 2 of")
        driver.find_element(By.ID, "replay-1-last").click()
        assert "no legal move" in label.text  # the end says how the game ended
        screenshot(driver, tmp_path / "report-replay.png")
        assert console_errors(driver) == []


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory) -> Path:
    """The report of the README's quick start, run as it says in a folder of its
    own: ``heurtune tune studies/quick/morris.toml``, ``heurtune export morris``
    (the default storage, studies/heurtune.db), then ``heurtune report morris``."""
    d = tmp_path_factory.mktemp("quick")
    (d / "studies" / "quick").mkdir(parents=True)
    shutil.copy(ROOT / "studies" / "quick" / "morris.toml", d / "studies" / "quick")
    here = os.getcwd()
    os.chdir(d)
    try:
        assert main(["tune", "studies/quick/morris.toml"]) == 0
        assert main(["export", "morris"]) == 0  # the confirmation found a gain
        assert main(["report", "morris"]) == 0
    finally:
        os.chdir(here)
    return d / "studies" / "reports" / "morris.html"


def test_the_quick_study_report(quick_report: Path, screenshots: Callable[[str], Path]) -> None:
    """The README's pictures: the facts with the two-stage confirmation's verdict
    and the history; the confirmation plot, its title in full; a Morris replay
    on the board's lines, its legend clear of the plot's toolbar."""
    with chromium() as driver:
        driver.get(quick_report.as_uri())
        wait_for(lambda: (lambda r: r if r and all(p["svgs"] for p in r) else None)(
            driver.execute_script(RENDERED)), "every plot to render")
        facts = driver.find_element(By.CSS_SELECTOR, "table.facts").text
        assert "further fresh pairs" in facts and "vs the baseline" in facts  # two-stage
        screenshot(driver, screenshots("report.png"))

        heading = next(h for h in driver.find_elements(By.TAG_NAME, "h2")
                       if h.text == "Confirmation")
        driver.execute_script("arguments[0].scrollIntoView()", heading)
        title = driver.execute_script(
            "return arguments[0].nextElementSibling.nextElementSibling"
            ".querySelector('.gtitle').getBoundingClientRect().right", heading)
        assert title < driver.execute_script("return window.innerWidth")  # not cut
        screenshot(driver, screenshots("report-confirmation.png"))

        board = "#replay-1-board"
        assert len(driver.find_elements(By.CSS_SELECTOR, f"{board} .shapelayer path")) == 16
        legend = driver.execute_script(BOX, f"{board} .legend")
        toolbar = driver.execute_script(BOX, f"{board} .modebar")
        assert not _overlap(legend, toolbar), (legend, toolbar)
        driver.execute_script("arguments[0].scrollIntoView()", driver.find_element(
            By.XPATH, "//div[@id='replay-1']/preceding-sibling::h3[1]"))  # its heading on top
        driver.find_element(By.ID, "replay-1-last").click()
        last = driver.find_element(By.ID, "replay-1-ply").get_attribute("max")
        assert driver.find_element(By.ID, "replay-1-board").get_attribute("data-ply") == last
        screenshot(driver, screenshots("report-replay.png"))
        assert console_errors(driver) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _body(driver: Any) -> str:
    return str(driver.find_element(By.TAG_NAME, "body").text)


def test_dashboard_shows_notes_and_artifacts(small_study, screenshots: Callable[[str], Path]
                                             ) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "heurtune", "dashboard", "--storage",
                             small_study.storage, "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}/dashboard"

        def answers() -> bool:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/studies", timeout=2):
                return True

        wait_for(answers, "the dashboard to answer")
        with chromium(DASHBOARD_WINDOW) as driver:
            def page(path: str, text: str) -> str:
                driver.get(f"{base}{path}")
                return str(wait_for(lambda: text in _body(driver) and _body(driver),
                                    f"{text!r} at {path}"))

            page("", "iso")  # the study list
            note = page("/studies/1/note", "Study iso")
            for fact in ("opponent", "isolation:ab_open", "confirmation", "winner trial",
                         "exported engine"):
                assert fact in note, fact
            trial = page("/studies/1/trials", "Trial 0: complete")
            assert "pairs won / even / lost" in trial and "pentanomial" in trial
            wait_for(lambda: "trial-0-games.jsonl" in _body(driver), "trial 0's artifacts")
            assert "trial-0.toml" in _body(driver)
            screenshot(driver, screenshots("dashboard.png"))
            assert console_errors(driver) == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)
