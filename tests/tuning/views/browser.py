"""Headless Chromium for the browser tests and the README's screenshots.

Debian's ``chromium`` and ``chromium-driver`` packages (``.ci/run`` installs
them when missing), driven by Selenium with the system driver: Selenium never
downloads a browser. A missing browser is a test failure, never a skip.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVER = "chromedriver"
# the closed network refuses Chromium's background connections unless they are off
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars")
WINDOW = (1280, 1000)
WAIT_SECONDS = 60.0


def find_browser() -> tuple[str, str]:
    """The Chromium binary and its driver; fails (never skips) when either is missing."""
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = shutil.which(DRIVER)
    if browser is None or driver is None:
        raise AssertionError("the browser tests need Chromium and its driver (Debian: apt-get "
                             "install chromium chromium-driver; .ci/run installs them)")
    return browser, driver


@contextmanager
def chromium(window: tuple[int, int] = WINDOW) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a fresh profile that keeps the console's messages."""
    browser, driver_path = find_browser()
    profile = tempfile.mkdtemp(prefix="heurtune-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={window[0]},{window[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: webdriver.Chrome) -> list[str]:
    """The console's errors since the last call (JavaScript exceptions included)."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def wait_for(condition: Callable[[], Any], what: str, seconds: float = WAIT_SECONDS) -> Any:
    """Poll ``condition`` until it returns something true; fail naming ``what``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = condition()
        except AssertionError:  # a failure, not a wait
            raise
        except Exception:  # an element or a server not there yet
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def screenshot(driver: webdriver.Chrome, path: Path, full_page: bool = False) -> Path:
    """A PNG of the window (``full_page``: the whole page's height)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if full_page:
        height = int(driver.execute_script("return document.body.scrollHeight"))
        driver.set_window_size(WINDOW[0], min(max(height, WINDOW[1]), 8000))
    driver.save_screenshot(str(path))
    return path
