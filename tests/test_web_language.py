"""The pages speak the box's language (issue 33, point 2): ``[box] language``
or the menu's adjustment in the database, declared in ``<html lang>`` and
``Content-Language``; a browser's ``Accept-Language`` may choose another the
box speaks. The real ``shutbox-hw web`` process, over HTTP."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from test_web_browser import browser  # noqa: F401  (the fixture)
from web_server import WebServer, need_web

from shutbox_hw.web.content.language import RECHECK_S


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    """A box that played one game, configured in German."""
    need_web()
    from shutbox_hw.commands.cli import main
    folder = tmp_path_factory.mktemp("box")
    db = folder / "box.db"
    script = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"
    assert main(["sim", "--db", str(db), "--script", str(script)]) == 0
    config = folder / "box.toml"
    config.write_text('[box]\nlanguage = "de"\n')
    server = WebServer(db, config)
    yield server, db
    assert "Traceback" not in server.stop()


def _lang(page: bytes) -> str:
    found = re.search(rb'<html lang="(\w+)"', page)
    assert found, page[:200]
    return found.group(1).decode()


def test_the_pages_speak_the_boxs_language(box):
    server, _db = box
    status, headers, page = server.get("/history")
    assert status == 200 and _lang(page) == "de" and headers["content-language"] == "de"
    text = page.decode()
    assert "<h1>Verlauf</h1>" in text and "Partien je Seite" in text
    assert ">Heute Abend</a>" in text and ">Statistik</a>" in text      # the navigation
    assert "<td>läuft</td>" in text                                  # the game still on
    status, _, page = server.get("/audits")
    assert "Beste Ergebnisse" in page.decode() and "Schaltvorgänge" in page.decode()


def test_a_browser_may_ask_for_another_language(box):
    server, _db = box
    _, headers, page = server.get("/history", headers={"Accept-Language": "it-IT,it;q=0.9"})
    assert _lang(page) == "it" and "<h1>Storico</h1>" in page.decode()
    assert "accept-language" in headers["vary"].lower()
    _, _, page = server.get("/faults", headers={"Accept-Language": "en-GB, en;q=0.8"})
    assert _lang(page) == "en" and "<h1>Faults</h1>" in page.decode()
    # one the box does not speak: the box's own
    _, _, page = server.get("/", headers={"Accept-Language": "fr-FR, fr"})
    assert _lang(page) == "de" and "Verbindung wird hergestellt" in page.decode()


def test_the_pages_follow_the_menus_adjustment(box, tmp_path):
    # the web process reads the box's stored adjustment (RECHECK_S apart)
    from shutbox_hw.web.content.language import BoxLanguage
    _server, db = box
    copy = tmp_path / "copy.db"
    with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as conn:
        conn.execute("INSERT OR REPLACE INTO settings (key, value, changed_at) "
                     "VALUES ('language', '\"it\"', 0)")
    now = [0.0]
    language = BoxLanguage(copy, "de", clock=lambda: now[0])
    import anyio
    assert anyio.run(language) == "it"
    with sqlite3.connect(copy) as conn:
        conn.execute("DELETE FROM settings")
    assert anyio.run(language) == "it"                 # not read again yet
    now[0] += RECHECK_S
    assert anyio.run(language) == "de"                 # back to the config file's


@pytest.mark.parametrize("code, words", [
    ("de", ("", "Spieler", "Runde", "ist dran")),
    ("it", ("", "Giocatore", "round", "Turno di")),   # a line's capital (issue 42)
])
def test_the_tv_page_plays_in_the_language_in_a_real_browser(tmp_path, browser, code, words):
    """The live page (its script writes the words) while a pool game plays,
    in a box configured in ``code``; a screenshot kept to be looked at."""
    from loopback import wait_for
    from test_web_browser import keep, text_of

    from shutbox_hw.sim.script import parse_script
    db = tmp_path / "box.db"
    config = _box_config(tmp_path, code)
    runner = _sim(config, db)
    server = WebServer(db, config)
    try:
        browser.get(server.url + "/")          # the browser asks for English (en-US) ...
        assert browser.execute_script("return document.documentElement.lang") == "en"
        browser.get(server.url + f"/?lang={code}")   # ... the TV pinned to the box's language
        browser.get(server.url + "/")                 # (kept in a cookie)
        assert wait_for(lambda: "Shut the Box" in text_of(browser, "last"), 10)
        for step in parse_script("start 2\ndice 3 4\nroll\nclose 7", 9):
            runner.run(step)
        assert browser.execute_script("return document.documentElement.lang") == code
        assert wait_for(lambda: words[3] in text_of(browser, "turn"), 10), \
            text_of(browser, "turn")
        assert words[1] in text_of(browser, "players")
        assert words[2] in text_of(browser, "title")
        shot = tmp_path / f"live-{code}.png"
        browser.save_screenshot(str(shot))
        keep(shot)
    finally:
        server.stop()


def _box_config(tmp_path: Path, code: str) -> Path:
    config = tmp_path / "box.toml"
    config.write_text(f'[box]\nlanguage = "{code}"\n[rules]\npreset = "pub"\n')
    return config


def _sim(config: Path, db: Path):
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.sim.runner import SimRunner
    return SimRunner(load_config(config), db)


def test_a_page_pinned_to_a_language_keeps_it(box):
    server, _db = box
    status, headers, page = server.get("/tonight?lang=it",
                                       headers={"Accept-Language": "en"})
    assert status == 200 and _lang(page) == "it" and "lang=it" in headers["set-cookie"]
    _, _, page = server.get("/tonight", headers={"Cookie": "lang=it", "Accept-Language": "en"})
    assert _lang(page) == "it"
    _, _, page = server.get("/tonight?lang=xx", headers={"Cookie": "lang=zz"})
    assert _lang(page) == "de"                   # nothing the box speaks: the box's own
