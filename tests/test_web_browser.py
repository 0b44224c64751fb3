"""The live page in a real headless browser (Debian's chromium through its chromedriver).

The page is loaded while a simulated game plays into the database the web
process serves; the dice and the scores on the page must change as the game
goes on. Screenshots of the live page and a scorecard are kept in the test's
folder (and copied to $SHUTBOX_SCREENSHOTS when it is set) to be looked at.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
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


class Refusing(http.server.BaseHTTPRequestHandler):
    """What a proxy in front of the box answers while the web process is away: 503."""

    def do_GET(self) -> None:
        if self.path.endswith("/live/stream"):
            self.server.streams += 1          # type: ignore[attr-defined]
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def _follows(browser, server) -> bool:
    now = json.loads(server.get("/live.json")[2])
    return shown(browser) == (now["dice"], now["open"])


def test_the_page_comes_back_by_itself_after_a_restart_and_after_a_503(tmp_path, browser):
    db = tmp_path / "box.db"
    config = load_config(preset="crafthouse-12")
    steps = iter(load_script(str(CHECKOUT / "tests" / "scripts" / "practice-001.txt"),
                             config.rules.tiles))
    runner = SimRunner(config, db)

    def throw() -> None:
        for step in steps:
            runner.run(step)
            if step.command.word == "roll":
                return
    throw()
    server = WebServer(db)
    port = server.port
    refusing = None
    try:
        browser.get(server.url + "/")
        assert wait_for(lambda: _follows(browser, server), 10)
        # the web restarts (an upgrade): its stream ends, the page finds the next process
        server.stop()
        assert wait_for(lambda: browser.find_element("id", "stale").is_displayed(), 10)
        server = WebServer(db, port=port)
        throw()
        assert wait_for(lambda: _follows(browser, server), 10)
        # the web away behind a proxy that answers 503: the browser gives such a stream
        # up for good (WHATWG), the page makes a new one, again and again
        server.stop()
        refusing = http.server.ThreadingHTTPServer(("127.0.0.1", port), Refusing)
        refusing.streams = 0                  # type: ignore[attr-defined]
        threading.Thread(target=refusing.serve_forever, daemon=True).start()
        assert wait_for(lambda: refusing.streams >= 3, 30), refusing.streams
        assert browser.execute_script("return document.body.dataset.stream") == "closed"
        assert browser.find_element("id", "stale").is_displayed()
        refusing.shutdown()
        refusing.server_close()
        refusing = None
        server = WebServer(db, port=port)
        throw()
        # back within 10 s of the web answering again (the back-off is 5 s at most)
        assert wait_for(lambda: _follows(browser, server), 10)
        assert not browser.find_element("id", "stale").is_displayed()
    finally:
        if refusing is not None:
            refusing.shutdown()
            refusing.server_close()
        log = server.stop()
    assert "Traceback" not in log, log


def test_the_page_says_why_the_record_cannot_be_read_and_follows_once_it_can(tmp_path,
                                                                               browser):
    db = tmp_path / "box.db"          # the box has not made its database yet
    server = WebServer(db)
    try:
        browser.get(server.url + "/")
        assert wait_for(lambda: "no games yet" in text_of(browser, "stale"), 10), \
            text_of(browser, "stale")
        assert browser.find_element("id", "stale").is_displayed()
        config = load_config(preset="crafthouse-12")
        runner = SimRunner(config, db)
        for step in load_script(str(CHECKOUT / "tests" / "scripts" / "practice-001.txt"),
                                config.rules.tiles)[:3]:
            runner.run(step)
        assert wait_for(lambda: _follows(browser, server), 10)
        assert not browser.find_element("id", "stale").is_displayed()
    finally:
        log = server.stop()
    assert "Traceback" not in log, log
