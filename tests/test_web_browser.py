"""The live page in a real headless browser (Debian's chromium through its chromedriver).

The page is loaded while a simulated game plays into the database the web
process serves; the dice and the scores on the page must change as the game
goes on. Screenshots of the live page and a scorecard are kept in the test's
folder (and copied to $SHUTBOX_SCREENSHOTS when it is set) to be looked at.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from loopback import wait_for
from web_server import CHECKOUT, WebServer, need_web

from shutbox_hw.config import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script
from shutbox_hw.sim.script_commands import MoveFlaps

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,720"]


@pytest.fixture
def browser(tmp_path):
    need_web()
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium (the test extra) is not installed")
    if not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)):
        pytest.skip("Debian's chromium and chromium-driver are not installed "
                    "(.ci/run installs them where it can)")
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def keep(path: Path) -> None:
    folder = os.environ.get("SHUTBOX_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / path.name)


def text_of(driver, element_id: str) -> str:
    return str(driver.execute_script(
        f"return document.getElementById('{element_id}').innerText"))


def shown(driver) -> tuple[list[int], list[int]]:
    """The dice and the open flaps as the page shows them."""
    dice, flaps = driver.execute_script(
        "return [[...document.querySelectorAll('#dice .die:not(.none)')].map(e => e.innerText),"
        " [...document.querySelectorAll('#flaps .flap:not(.shut)')].map(e => e.innerText)]")
    return [int(d) for d in dice], [int(f) for f in flaps]


def test_live_page_follows_the_game_and_the_scorecard_shows(tmp_path, browser):
    db = tmp_path / "box.db"
    config = load_config(preset="crafthouse-12")
    steps = load_script(str(CHECKOUT / "tests" / "scripts" / "practice-001.txt"),
                        config.rules.tiles)
    runner = SimRunner(config, db)
    server = WebServer(db)
    try:
        browser.get(server.url + "/")
        assert wait_for(lambda: "Shut the Box" in text_of(browser, "last"), 10)
        dice_seen: list[str] = []
        scores_seen: list[str] = []
        for step in steps:
            runner.run(step)
            if step.command.word in ("roll", "close"):
                # wait until the page shows what the record says (the dice and open flaps)
                now = json.loads(server.get("/live.json")[2])
                assert wait_for(lambda now=now: shown(browser) == (now["dice"], now["open"]), 5), \
                    (shown(browser), now)
                dice_seen.append(text_of(browser, "dice"))
                scores_seen.append(text_of(browser, "players"))
            if step.command == MoveFlaps((5,), shut=True):
                shot = tmp_path / "live.png"
                browser.save_screenshot(str(shot))
                keep(shot)
        runner.finish()
        assert wait_for(lambda: "P2" in text_of(browser, "turn")
                        and "turn over" in text_of(browser, "turn"), 10)
        assert len(set(dice_seen)) >= 4, dice_seen      # the dice changed throw by throw
        assert len(set(scores_seen)) >= 2, scores_seen  # and so did the round's scores
        final = text_of(browser, "players")
        assert "P1\t4" in final and "P2\t2" in final, final   # seed 001: P1 4, P2 2
        flaps = browser.execute_script(
            "return [...document.querySelectorAll('#flaps .flap:not(.shut)')]"
            ".map(e => e.innerText)")
        assert flaps == ["2"]
        shot = tmp_path / "live-end.png"
        browser.save_screenshot(str(shot))
        keep(shot)
        browser.get(server.url + "/game/1")
        assert "Game 1" in browser.title
        cells = browser.execute_script(
            "return [...document.querySelectorAll('td')].map(e => e.innerText)")
        assert "4/4/4" in cells and "2/2/2" in cells
        shot = tmp_path / "scorecard.png"
        browser.save_screenshot(str(shot))
        keep(shot)
    finally:
        server.stop()
