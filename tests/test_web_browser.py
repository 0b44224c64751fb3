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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback import wait_for
from tv_page import chromium
from web_server import CHECKOUT, WebServer

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script, parse_script
from shutbox_hw.sim.script_commands import MoveFlaps

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,720"]


def start_chromium(profile: Path) -> Any:
    """Chromium at the TV's first size (the pages' tests; tv_page.chromium starts it)."""
    return chromium(profile, FLAGS)


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """A fresh tab of the module's Chromium: no cookies from an earlier test; afterwards
    the tab is closed, what its last page stored is cleared and the window is at the
    size it was started with again (emulated metrics go with the tab)."""
    home, size = chromium.current_window_handle, chromium.get_window_size()
    chromium.switch_to.new_window("tab")
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    yield chromium
    origin = chromium.execute_script("return location.origin")
    if origin.startswith("http"):
        chromium.execute_cdp_cmd("Storage.clearDataForOrigin",
                                 {"origin": origin, "storageTypes": "all"})
    for handle in chromium.window_handles:
        if handle != home:
            chromium.switch_to.window(handle)
            chromium.close()
    chromium.switch_to.window(home)
    chromium.set_window_size(size["width"], size["height"])


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
        " [...document.querySelectorAll('#flaps .flap.open, #flaps .flap.refused')]"
        ".map(e => e.innerText)]")
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
                assert wait_for(lambda now=now: shown(browser) == (now["dice"] or [], now["open"]),
                                5), \
                    (shown(browser), now)
                dice_seen.append(text_of(browser, "dice"))
                scores_seen.append(text_of(browser, "players"))
            if step.command == MoveFlaps((5,), shut=True):
                shot = tmp_path / "live.png"
                browser.save_screenshot(str(shot))
                keep(shot)
        runner.finish()
        # round 1 over, its flaps still shut: P1 plays round 2 next, as the box shows
        assert wait_for(lambda: text_of(browser, "turn") == "P1 plays next", 10)
        assert len(set(dice_seen)) >= 4, dice_seen      # the dice changed throw by throw
        assert len(set(scores_seen)) >= 2, scores_seen  # and so did the round's scores
        final = text_of(browser, "players")
        # seed 001: P1 4, P2 2, now the totals (round 2, not begun, has no scores yet)
        assert "P1\t\u2013\t4" in final and "P2\t\u2013\t2" in final, final
        flaps = browser.execute_script(
            "return [...document.querySelectorAll('#flaps .flap.open')]"
            ".map(e => e.innerText)")
        assert flaps == ["2"]
        shot = tmp_path / "live-end.png"
        browser.save_screenshot(str(shot))
        keep(shot)
        browser.get(server.url + "/game/1")
        assert "Game 1" in browser.title
        rows = browser.execute_script(
            "return [...document.querySelectorAll('tr')].map(r => [...r.children]"
            ".map(e => e.innerText))")
        assert ["1", "4", "4", "2", "2", "\u2013"] in rows, rows   # score, total; nobody shut
        shot = tmp_path / "scorecard.png"
        browser.save_screenshot(str(shot))
        keep(shot)
    finally:
        server.stop()


PAGES = ("/", "/tonight", "/history", "/game/1", "/game/2", "/audits", "/faults", "/export",
         "/backup", "/game/99")
SIZES = ((1920, 1080), (1280, 720))


def test_every_page_at_the_tv_s_sizes_and_the_tv_mid_turn(tmp_path, browser):
    """Each page at 1920x1080 and 1280x720: nothing wider than the screen, the TV
    page not taller; the TV mid-turn shows a pending and a refused flap with the
    reason as the box does. The screenshots are kept (``$SHUTBOX_SCREENSHOTS``)."""
    db = tmp_path / "box.db"
    scripts = CHECKOUT / "tests" / "scripts"
    house = load_config(rule_overrides={"match": "single-round"})
    done = SimRunner(house, db)
    for step in load_script(str(scripts / "two-player-klappenspiel.txt"), 9):
        done.run(step)
    done.let_ends_show()
    done.daemon.store.close()
    stopped = SimRunner(load_config(), db)    # P1 scores 9, stopped in P2's turn
    for step in parse_script("start 2\ndice 6 6\nroll\nclose 4\nclose 9\nopen 9\nclose 8\n"
                             "dice 6 6\nroll\nclose 5 7\ndice 6 6\nroll\nclose 3 9\ndice 6 6\n"
                             "roll\nopen 1 2 3 4 5 6 7 8 9\nhold-next\nroll\n", 9):
        stopped.run(step)
    stopped.daemon.store.close()
    mcp = load_config(str(CHECKOUT / "hardware" / "mcp23017-12" / "shutbox.toml"))
    faulty = SimRunner(mcp, db)
    for step in parse_script("start 3\nunplug 0x20\nwait 1.5\nplug 0x20\nwait 2\n"
                             "unplug 0x20\nwait 1.5\nhold-next\nroll\n", 12):
        faulty.run(step)
    faulty.daemon.store.close()
    runner = SimRunner(house, db)       # the game on the TV: 3 shut for 3+4, 8 refused
    for step in parse_script("start 2\ndice 3 4\nroll\nclose 3\nclose 8\n", 9):
        runner.run(step)
    server = WebServer(db)
    try:
        for width, height in SIZES:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            for page in PAGES:
                browser.get(server.url + page)
                if page == "/":
                    assert wait_for(lambda: "8 doesn't fit" in text_of(browser, "problem"), 10)
                    states = browser.execute_script(
                        "return [...document.querySelectorAll('#flaps .flap')]"
                        ".map(e => e.className.split(' ')[1])")
                    assert states[2] == "pending" and states[7] == "refused", states
                    assert text_of(browser, "title").startswith("House rules (9 tiles")
                    assert text_of(browser, "turn") == "P1's turn"
                size = browser.execute_script(
                    "return [document.documentElement.scrollWidth, window.innerWidth,"
                    " document.documentElement.scrollHeight, window.innerHeight]")
                assert size[0] <= size[1], (page, size)            # no sideways scrolling
                if page == "/":
                    assert size[2] <= size[3], (page, size)        # the TV: all on one screen
                name = "live" if page == "/" else page.strip("/").replace("/", "-")
                shot = tmp_path / f"{name}-{width}x{height}.png"
                browser.save_screenshot(str(shot))
                keep(shot)
        # the box's stop is the TV's: the game's title goes with it
        runner.run(parse_script("hold-next\nroll\n", 9)[0])
        runner.run(parse_script("roll\n", 9)[0])
        runner.let_ends_show()
        runner.press("roll")
        browser.get(server.url + "/")
        assert wait_for(lambda: text_of(browser, "title") == "House rules", 10), \
            text_of(browser, "title")
    finally:
        runner.daemon.store.close()
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
