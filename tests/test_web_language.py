"""The pages speak the box's language (issue 33, point 2): ``[box] language``
or the menu's adjustment in the database, declared in ``<html lang>`` and
``Content-Language``; a browser's ``Accept-Language`` may choose another the
box speaks. The real ``shutbox-hw web`` process, over HTTP."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from web_server import WebServer, need_web

from shutbox_hw.web.language import RECHECK_S


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    """A box that played one game, configured in German."""
    need_web()
    from shutbox_hw.cli import main
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
    from shutbox_hw.web.language import BoxLanguage
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
