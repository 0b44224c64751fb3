"""Issue 42, item 3: every word in the box's language, error pages included. A
refusal is one English line for a script and, on a person's page, the same
words translated under the translated heading (it was "Nicht gefunden" over
"There is no player called Nobody."); before the box made its database the pages
are in the site's design, in the language, not bare white text."""

from __future__ import annotations

from pathlib import Path

import pytest
from web_server import InProcessServer, need_web

from shutbox_hw.commands.cli import main

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    need_web()
    db = tmp_path_factory.mktemp("words") / "box.db"
    assert main(["sim", "--db", str(db), "--script", str(
        Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt")]) == 0
    server = InProcessServer(db)
    yield server
    server.stop()


@pytest.mark.parametrize("path, lang, heading, sentence", [
    ("/players/Nobody", "de", "Nicht gefunden", "Es gibt niemanden namens Nobody."),
    ("/players/Nobody", "it", None, "Non c’è nessuno di nome Nobody."),
    ("/game/99", "de", "Nicht gefunden", "Es gibt kein Spiel 99."),
    ("/game/99", "it", None, "Non esiste la partita 99."),
    ("/no/such/page", "de", "Nicht gefunden", "Nicht gefunden."),
    ("/history?limit=0", "de", None, "Limit: erwartet eine ganze Zahl 1..{top}."),
    ("/players?sort=nonsense", "it", None, "Sort: atteso uno tra "),
])
def test_an_error_page_speaks_the_page_s_language(box, path, lang, heading, sentence):
    from shutbox_hw.web.app import MAX_LIMIT
    sentence = sentence.replace("{top}", str(MAX_LIMIT))
    sep = "&" if "?" in path else "?"
    status, headers, body = box.get(f"{path}{sep}lang={lang}", headers=HTML)
    page = body.decode()
    assert status in (400, 404) and headers["content-type"].startswith("text/html")
    assert f'lang="{lang}"' in page and "<nav>" in page
    if heading:
        assert f"<h1>{heading}</h1>" in page
    assert sentence.replace("’", "&#x27;") in page or sentence in page, page
    # the English sentence is gone from the page ...
    status, _, english = box.get(path, headers={"Accept": "application/json"})
    assert english.decode().split(" ", 1)[1].strip().rstrip(".") not in page
    # ... and a script still gets its one English line
    assert english.startswith(f"{status} ".encode()) and english.count(b"\n") == 1


def test_before_the_box_made_its_database_the_pages_are_in_the_design(tmp_path):
    need_web()
    server = InProcessServer(tmp_path / "not-yet.db")
    try:
        status, headers, body = server.get("/history?lang=it", headers=HTML)
        page = body.decode()
        assert status == 503 and headers["content-type"].startswith("text/html")
        assert "<nav>" in page and 'lang="it"' in page
        assert "Ancora nessuna partita: la scatola non ha ancora creato il suo database." in page
        status, _, line = server.get("/history")
        assert status == 503 and line == \
            b"503 no games yet: the box has not made its database\n"
    finally:
        server.stop()


@pytest.mark.parametrize("code, average, share", [("en", "19.8", "97.5 %"),
                                                  ("de", "19,8", "97,5 %"),
                                                  ("it", "19,8", "97,5 %")])
def test_numbers_are_written_as_the_language_writes_them(code, average, share):
    pytest.importorskip("babel", reason="Babel (the web extra) is not installed")
    from shutbox_hw.base.i18n import speaking
    from shutbox_hw.web.numbers import decimal
    from shutbox_hw.web.players import pages as player_pages
    with speaking(code):
        assert decimal(19.8) == average and decimal(2026) == "2026"   # no grouping
        assert player_pages._value("accuracy", 97.5) == share
        assert player_pages._figure(19.8) == average
