"""Issue 42, item 7's last defect: docs/screens/ lacked the players' and the
high-score pages. Those pages (``/players``, a player's page, ``/highscores``),
after a night with named players (words_night: a pub pool and house rules), drawn
by Debian's Chromium at a pub TV's two sizes in every language: the night's
players are on them, nothing is wider than the screen, no text leaves it sideways
or is cut. A screenshot of each is kept (``$SHUTBOX_SCREENSHOTS``: the English ones
are docs/screens/sheet.py's ``players``, ``player`` and ``highscores``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tv_page import chromium
from web_server import InProcessServer, need_web

from shutbox_hw.base.i18n import LANGUAGES

SIZES = ((1280, 720), (1920, 1080))
PAGES = {"players": "/players", "player": "/players/J%C3%BCrgen", "highscores": "/highscores"}

# what leaves the screen sideways or is cut, as test_tv_fit's check reads it
WIDE = """
const W = window.innerWidth, bad = [];
if (document.documentElement.scrollWidth > W) bad.push("the page scrolls sideways: " +
  document.documentElement.scrollWidth + " > " + W);
for (const e of document.querySelectorAll("main *, nav *")) {
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0 || !(e.textContent || "").trim()) continue;
  const name = e.tagName.toLowerCase() + " '" + e.textContent.trim().slice(0, 30) + "'";
  if (r.left < -0.5 || r.right > W + 0.5)
    bad.push(name + " leaves the screen: " + [r.left, r.right].map(Math.round));
  else if (getComputedStyle(e).overflow === "hidden" && e.scrollWidth > e.clientWidth + 1)
    bad.push(name + " is cut: " + e.scrollWidth + " in " + e.clientWidth);
}
return bad;
"""


def keep(path: Path) -> None:
    folder = os.environ.get("SHUTBOX_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / path.name)


@pytest.fixture(scope="module")
def night_server(tmp_path_factory):
    need_web()
    from words_night import play
    db = tmp_path_factory.mktemp("night") / "box.db"
    play(db)
    server = InProcessServer(db)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    yield driver
    driver.quit()


def at_size(browser, size: tuple[int, int]) -> None:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_players_and_high_score_pages_fit_the_tv(night_server, browser, tmp_path, code):
    found = []
    for size in SIZES:
        at_size(browser, size)
        for name, path in PAGES.items():
            browser.get(f"{night_server.url}{path}?lang={code}")
            lang, shown = browser.execute_script(
                "return [document.documentElement.lang, document.body.innerText]")
            assert lang == code, (path, lang)
            assert "Jürgen" in shown, (path, shown[:300])        # the night is on it
            assert name == "player" or "Niccolò" in shown, (path, shown[:300])
            found += [f"{name} {size}: {p}" for p in browser.execute_script(WIDE)]
            suffix = "" if code == "en" else f"-{code}"
            shot = tmp_path / f"{name}{suffix}-{size[0]}x{size[1]}.png"
            browser.save_screenshot(str(shot))
            keep(shot)
    assert not found, f"{code}:\n" + "\n".join(found)


def test_the_check_sees_a_page_wider_than_the_tv(night_server, browser):
    """The check can fail: a heading wider than the screen is found."""
    at_size(browser, SIZES[0])
    browser.get(f"{night_server.url}/highscores?lang=en")
    assert browser.execute_script(WIDE) == []
    browser.execute_script("document.querySelector('main h1').style.width = '150vw'")
    found = browser.execute_script(WIDE)
    assert any("leaves the screen" in p for p in found), found
