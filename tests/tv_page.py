"""The TV page (``/``) without a server, for the tests that look at what it draws:
its HTML, style sheet and script written into one file that Debian's Chromium
opens, with the event stream left out (a stand-in that never connects); a test
hands the page a summary with ``draw`` as the stream would (the script's own
``show``). One Chromium a module: open it with :func:`chromium`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from shutbox_hw.base.i18n import speaking
from shutbox_hw.web.content.assets import LIVE_JS, STYLE
from shutbox_hw.web.content.pages import live_page

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1"]
NO_STREAM = ("<script>window.EventSource = class { constructor() { this.readyState = 0; }"
             " addEventListener() {} close() {} };</script>")


def chromium(profile: Path, flags: list[str] = FLAGS) -> Any:
    """Debian's Chromium through its chromedriver, with ``flags`` (skips where they are
    missing): the one way every browser test starts it."""
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium (the test extra) is not installed")
    if not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)):
        pytest.skip("Debian's chromium and chromium-driver are not installed "
                    "(.ci/run installs them where it can)")
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in flags:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def page_file(folder: Path, code: str = "en") -> Path:
    """The TV page in language ``code`` as one file (style and script inline)."""
    with speaking(code):
        html = live_page()
    html = html.replace('<link rel="stylesheet" href="/static/style.css">',
                        f"<style>{STYLE}</style>")
    html = html.replace('<script src="/static/live.js" defer></script>', NO_STREAM)
    html = html.replace("</body>", f"<script>{LIVE_JS}</script></body>")
    path = folder / f"tv-{code}.html"
    path.write_text(html, encoding="utf-8")
    return path


def open_page(driver: Any, folder: Path, code: str = "en",
              size: tuple[int, int] = (1280, 720)) -> None:
    """The page loaded, the browser's viewport exactly ``size`` (a TV's pixels)."""
    driver.get(page_file(folder, code).as_uri())
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    outer = driver.get_window_size()
    driver.set_window_size(outer["width"] + size[0] - inner[0],
                           outer["height"] + size[1] - inner[1])
    got = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    assert got == list(size), f"the viewport is {got}, not {size}"


def draw(driver: Any, summary: dict[str, Any]) -> None:
    """The page shows ``summary`` as if the stream had brought it. The join page's QR
    code (the box serves it; this page is a file) is the box's own SVG, inline."""
    join = summary.get("join")
    if join:
        from shutbox_hw.render import qr
        driver.execute_script(
            "const img = document.getElementById('joinqr'); img.dataset.code = arguments[0];"
            " img.src = 'data:image/svg+xml,' + encodeURIComponent(arguments[1]);",
            join["code"], qr.svg(join["url"]))
    driver.execute_script("show(arguments[0])", summary)


def text(driver: Any, element_id: str) -> str:
    return str(driver.execute_script(
        f"return document.getElementById('{element_id}').innerText"))
