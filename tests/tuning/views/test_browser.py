"""What users see, in headless Chromium: the study report's plots render without
JavaScript errors and its replay steps through the moves; ``heurtune
dashboard`` shows the study, its note, a trial's note and an artifact.

Screenshots land in each test's temporary folder; ``pytest tests/test_browser.py
--screenshots docs/img`` regenerates the README's. The tests fail, never
skip, when Chromium or its driver is missing (``.ci/run`` installs them).
"""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def report(small_study, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", "iso", "--storage", small_study.storage, "--out", str(out)]) == 0
    return out


def test_report_renders_and_replays(report: Path, screenshots: Callable[[str], Path]) -> None:
    with chromium() as driver:
        driver.get(report.as_uri())
        plots = wait_for(lambda: (lambda r: r if r and all(p["svgs"] for p in r) else None)(
            driver.execute_script(RENDERED)), "every plot to render")
        assert len(plots) >= 9  # the figures and two replay boards
        for plot in plots:
            assert plot["traces"] > 0 and plot["marks"] > 0, plot
        assert console_errors(driver) == []
        screenshot(driver, screenshots("report.png"))

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
