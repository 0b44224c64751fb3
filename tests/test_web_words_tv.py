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
    ("/game/99", "de", "Nicht gefunden", "Es gibt keine Partie 99."),
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
    from shutbox_hw.web.content.numbers import decimal
    from shutbox_hw.web.players import pages as player_pages
    with speaking(code):
        assert decimal(19.8) == average and decimal(2026) == "2026"   # no grouping
        assert player_pages._value("accuracy", 97.5) == share
        assert player_pages._figure(19.8) == average


@pytest.mark.parametrize("code, share", [("en", "96.2%"), ("de", "96,2%"), ("it", "96,2%")])
def test_the_oled_writes_a_decimal_as_the_language_does(code, share):
    """The idle screen's best-moves table: "96,2%" on a German or Italian box (it said
    "96.2%" in every language), drawn with the comma's own glyph."""
    from shutbox_hw.base.events import HighScores
    from shutbox_hw.base.i18n import speaking
    from shutbox_hw.render.fonts import role
    from shutbox_hw.render.high_scores import place_lines
    table = HighScores("all_time", "accuracy", (("Wolfgang-Amadeus", 96.2), ("Bo", 88.0)))
    with speaking(code):
        lines = place_lines(table, 128)
    assert [figure for _, figure in lines] == [share, "88%"]
    font, _ = role("figures")
    assert font.normalise(share) == share          # no sign left out or spelled otherwise


@pytest.mark.parametrize("code", ("en", "de", "it"))
def test_a_box_without_babel_writes_numbers_as_babel_does(code):
    """The daemon needs no web extra: its own table of decimal signs gives what
    Babel's CLDR data gives, to two decimals, never grouped."""
    pytest.importorskip("babel", reason="Babel (the web extra) is not installed")
    from shutbox_hw.base.i18n import speaking
    from shutbox_hw.words.numbers import decimal, plain_decimal
    values = (96.2, 19.75, 0.5, -1.5, 3, 100.0, 2026, 1234567, 12.3456)
    with speaking(code):
        assert [plain_decimal(v) for v in values] == [decimal(v) for v in values]
        sign = "." if code == "en" else ","
        assert plain_decimal(19.8) == f"19{sign}8" and plain_decimal(1234567) == "1234567"


# --- the TV page's own words: the live summary is one for TVs of every language ---

SCRIPT = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"


def _house_summary(folder: Path, threshold: int) -> dict:
    """The live summary (computed in English, as the web's one feed does) after the
    two-player script on klappenspiel with its threshold changed: house rules."""
    import sqlite3
    import time

    from shutbox_hw.network.live import live
    db = folder / f"house-{threshold}.db"
    assert main(["sim", "--db", str(db), "--rules", "klappenspiel", "--set",
                 f"threshold={threshold}", "--script", str(SCRIPT)]) == 0
    connection = sqlite3.connect(db)
    try:
        return live(connection, time.time())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("house")
    return {"playing": _house_summary(folder, 60),     # round 3 under way
            "between": _house_summary(folder, 17)}     # the match over in round 2


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from tv_page import chromium
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    yield driver
    driver.quit()


def test_the_summary_carries_the_house_rules_line_as_data(house):
    """/live.json keeps its English title and adds its words as data (title_parts)."""
    playing, between = house["playing"], house["between"]
    assert playing["playing"] and playing["round"] == 3
    assert playing["title"] == "House rules (9 tiles, any-sum, elimination 60)"
    assert playing["title_parts"] == {"title": "House rules", "line": [
        {"text": "{n} tiles", "n": 9}, {"text": "any-sum"},
        {"text": "elimination {threshold}", "threshold": 60}]}
    last = between["last_result"]
    assert not between["playing"] and last["finished"]
    assert last["title"] == "House rules (9 tiles, any-sum, elimination 17)"
    assert last["title_parts"]["line"][-1] == {"text": "elimination {threshold}",
                                               "threshold": 17}
    assert between["tonight"]["clock"] == "not set"     # (the note below: its own words)
    assert between["tonight"]["note"] == "Clock not set: times not shown"


@pytest.mark.parametrize("code", ["de", "it"])
def test_a_house_rules_title_on_the_tv_is_in_the_tv_s_language(house, browser, tmp_path, code):
    """The rules line was English under a translated "Hausregeln"; the clock's line
    was the summary's English note. Expected: the pages' own Python translation."""
    from tv_page import draw, open_page, text

    from shutbox_hw.base.i18n import speaking, tr
    from shutbox_hw.network.live import TV_CLOCK_NOTES
    from shutbox_hw.words.record import rules_shown
    open_page(browser, tmp_path, code)
    with speaking(code):
        playing_title = tr("{rules} · round {round}").format(
            rules=rules_shown({"preset": "klappenspiel", "threshold": 60}), round=3)
        last_title = rules_shown({"preset": "klappenspiel", "threshold": 17})
        last_line = tr("Last game: {title}").format(title=last_title)
        note = tr(TV_CLOCK_NOTES["not set"])
    assert "(" in last_title and "tiles" not in last_title    # (the catalogue's words)
    draw(browser, house["playing"])
    assert text(browser, "title") == playing_title
    draw(browser, house["between"])
    assert text(browser, "last").split("\n")[0] == last_line[:1].upper() + last_line[1:]
    assert text(browser, "tonight").endswith(". " + note)
    for english in ("tiles", "any-sum", "elimination", "Clock not set"):
        assert english not in text(browser, "title") + text(browser, "last") \
            + text(browser, "tonight")


@pytest.fixture(scope="module")
def night_summaries(tmp_path_factory) -> dict:
    """The TV's states of a pub night (words_night): a pool under way (its pot and
    balances), house rules' round 2 under way, and between games after both (the
    last result, tonight, the high scores)."""
    from words_night import play
    seen = play(tmp_path_factory.mktemp("night") / "box.db")
    pool = [s for s in seen if s["playing"] and s["match"] == "pool"]
    house = [s for s in seen if s["playing"] and s["match"] == "elimination"]
    assert pool and house and not seen[-1]["playing"]
    assert pool[-1]["pot"] and seen[-1]["high_scores"]
    return {"pool": pool[-1], "house": house[-1], "between": seen[-1]}


@pytest.mark.parametrize("state", ["pool", "house", "between"])
def test_no_english_word_is_left_on_the_german_or_italian_tv(night_summaries, browser,
                                                            tmp_path, state):
    """The TV page drawn from the same summary in English, German and Italian: a
    word of the German or Italian TV (its text and its flaps' hover text) that the
    English TV has is a name, the brand or a word the language shares
    (words_night.SHARED_BY)."""
    from tv_page import draw, open_page
    from words_night import english_left
    shown = {}
    for code in ("en", "de", "it"):
        open_page(browser, tmp_path, code)
        draw(browser, night_summaries[state])
        shown[code] = str(browser.execute_script(
            "return document.body.innerText + '\\n' + [...document.querySelectorAll('.flap')]"
            ".map(f => f.title).join('\\n')"))     # (a flap's hover text: its state)
    assert "Jürgen" in shown["en"]
    if state != "between":
        assert "flap 1: " in shown["en"]
    for code in ("de", "it"):
        left = english_left(code, shown[code], shown["en"])
        assert not left, f"{state} in {code}: English left: {left}\n{shown[code]}"


def test_the_italian_tv_s_title_line_is_the_catalogue_s(night_summaries, browser, tmp_path):
    """"Pub Pool · round 1" on the Italian TV: the title and its round in the
    catalogue's Italian (the round is "round" there, as on the box's OLED)."""
    from tv_page import draw, open_page, text

    from shutbox_hw.base.i18n import speaking, tr
    summary = night_summaries["pool"]
    open_page(browser, tmp_path, "it")
    draw(browser, summary)
    with speaking("it"):
        want = tr("{rules} · round {round}").format(rules=tr("Pub Pool"), round=summary["round"])
        pot = tr("pot {pot}").format(pot=summary["pot"])
    assert text(browser, "title") == want == f"Pool del pub · round {summary['round']}"
    assert text(browser, "pot") == pot[:1].upper() + pot[1:] and pot.startswith("piatto")


@pytest.mark.parametrize("code", ["en", "de", "it"])
def test_why_the_tv_is_not_live_is_said_in_its_language(browser, tmp_path, code):
    """The feed's reasons are the web's English sentences (a database's fault, a
    damaged row: web/content/feed.py): the German and Italian TV say their kind in their own
    words (it said "the database is locked"); the English TV the sentence itself; a
    reason the catalogue has (no database yet) in its translation."""
    from tv_page import open_page, text

    from shutbox_hw.base.i18n import speaking, tr
    from shutbox_hw.web.content.pages import STALE_WHY
    from shutbox_hw.web.content.reader import NO_DATABASE
    locked = "the database is locked (another program holds it)"
    damaged = ("the record has a damaged row (ValueError: bad json); the live page waits "
               "for the next game")
    open_page(browser, tmp_path, code)
    with speaking(code):
        want = {"unavailable": tr(STALE_WHY["unavailable"]),
                "damaged": tr(STALE_WHY["damaged"]), "none": tr(NO_DATABASE)}
    for reason, kind in ((locked, "unavailable"), (damaged, "damaged")):
        browser.execute_script("stale(arguments[0], arguments[1])", reason, kind)
        shown = text(browser, "stale")
        assert shown == (reason if code == "en" else want[kind]), (code, kind, shown)
    browser.execute_script("stale(arguments[0], 'unavailable')", NO_DATABASE)
    assert text(browser, "stale") == want["none"]
    if code != "en":
        assert want["none"] != NO_DATABASE and "database" not in want["damaged"]


# --- the words a German and an Italian pub use, reviewed as such (issue 42 item 3) ---

def _catalogue(code: str) -> list[tuple[str, list[str]]]:
    """(the English words, their translations) of every entry of a shipped catalogue."""
    from babel.messages.pofile import read_po

    from shutbox_hw.base import i18n
    with (i18n.LOCALE_DIR / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.po").open("rb") as f:
        entries = [m for m in read_po(f) if m.id]
    return [(" ".join([m.id] if isinstance(m.id, str) else m.id),
             [m.string] if isinstance(m.string, str) else list(m.string)) for m in entries]


# a player's turn and a move (one decision a throw) are two things: each language's
# word for the one never stands for the other (German said "Zug" for both)
TURN_VS_MOVE = {"de": (r"\bZ(ug|üge)\b", r"Durchg[aä]ng"),
                "it": (r"\bmoss[ae]\b", r"\bturn[oi]\b")}


@pytest.mark.parametrize("code", sorted(TURN_VS_MOVE))
def test_a_turn_is_never_called_a_move_nor_a_move_a_turn(code):
    import re
    move_word, turn_word = TURN_VS_MOVE[code]
    wrong = []
    for english, said in _catalogue(code):
        turn = re.search(r"\bturns?\b", english) is not None
        move = re.search(r"\bmoves?\b", english) is not None and "NEXT: move" not in english
        for text in said:
            if turn and not move and re.search(move_word, text, re.I):
                wrong.append(f"{english!r} (a turn) -> {text!r}")
            if move and not turn and re.search(turn_word, text, re.I):
                wrong.append(f"{english!r} (a move) -> {text!r}")
    assert not wrong, "\n".join(wrong)


# words that give a named player a man's form (or a woman's): the OLED called
# every winner "SIEGER", the TV said "Anna ist als Nächster dran"
GENDERED = {"de": r"\b(Sieger(in)?|Gewinner(in)?|Nächster|Nächste|Erster|Letzter|Spieler(in)?)\b",
            "it": r"\b(vincitor[ei]|vincitrice|prim[oa]|ultim[oa]|giocat(ore|rice))\b"}


@pytest.mark.parametrize("code", sorted(GENDERED))
def test_a_named_player_is_never_given_a_gender(code):
    import re
    wrong = [f"{english!r} -> {text!r}" for english, said in _catalogue(code)
             if re.search(r"\{(player|name|names)\}|^WINNERS?$", english)
             for text in said if re.search(GENDERED[code], text, re.I)]
    assert not wrong, "\n".join(wrong)



@pytest.mark.parametrize("code", ("en", "de", "it"))
def test_a_high_score_period_is_named_alike_on_the_oled_and_the_tv(code):
    """The TV's (and the pages') column of high scores and the OLED's table name a
    period with the same word (the OLED's may be the shorter): German said
    "Aller Zeiten" on the TV and "insgesamt" on the box."""
    from shutbox_hw.base.i18n import speaking, tr
    from shutbox_hw.render.high_scores import PERIODS
    from shutbox_hw.words.record import HIGH_SCORE_PERIODS
    assert set(PERIODS) == set(HIGH_SCORE_PERIODS)
    with speaking(code):
        for period, title in HIGH_SCORE_PERIODS.items():
            tv, oled = tr(title).lower(), tr(PERIODS[period]).lower()
            assert oled in tv, (period, tv, oled)


@pytest.mark.parametrize("code, sign", [("en", "."), ("de", ","), ("it", ",")])
def test_the_audits_write_a_decimal_as_the_language_does(code, sign, tmp_path):
    """The average score a turn and the database's size: "6,5" and "0,1 MB" on a
    German or Italian box's audits screen and /audits page (they were "6.5")."""
    import sqlite3

    from shutbox_hw.base.i18n import speaking
    from shutbox_hw.game.display import service_view
    from shutbox_hw.game.model.service import ServiceMenu
    from shutbox_hw.store.read.audit import audits
    from shutbox_hw.web.content.pages import audits_page
    lines = ("avg score a turn", "Klappenspiel\t6.5", "storage", "database\t0.1 MB",
             "played\t12", "P1 2026-12-05\t3")
    with speaking(code):
        shown = service_view.screen(ServiceMenu(values={}, page="audits"), 9, lines)
    assert shown.values == ("", f"6{sign}5", "", f"0{sign}1 MB", "12", "3")
    db = tmp_path / "box.db"
    assert main(["sim", "--db", str(db), "--script", str(SCRIPT)]) == 0
    connection = sqlite3.connect(db)
    try:
        figures = audits(connection)
    finally:
        connection.close()
    figures["average_score"] = {"klappenspiel": 6.5}
    with speaking(code):
        page = audits_page(figures)
    assert f"<td>6{sign}5</td>" in page and (sign == "." or "6.5" not in page)


@pytest.mark.parametrize("lang, sentence", [
    ("de", "Die Daten der Box können gerade nicht gelesen werden."),
    ("it", "I dati della scatola non si possono leggere ora.")])
def test_a_record_that_cannot_be_read_is_said_in_the_page_s_language(tmp_path, lang, sentence):
    """A 503 whose reason has no words in the catalogue (a file that is no database):
    the page says the record's state in its language and quotes the box's line as
    code; it said "Gerade nicht verfügbar" over "The database is not a shutbox-hw
    database (not an SQLite file)."."""
    need_web()
    from words_night import english_left, visible
    junk = tmp_path / "box.db"
    junk.write_bytes(bytes(range(256)) * 16)
    server = InProcessServer(junk)
    try:
        status, _, body = server.get(f"/history?lang={lang}", headers=HTML)
        _, _, english = server.get("/history?lang=en", headers=HTML)
        _, _, line = server.get("/history")
    finally:
        server.stop()
    page = body.decode()
    assert status == 503 and f'lang="{lang}"' in page and sentence in page, page
    reason = line.decode().split(" ", 1)[1].strip()
    assert reason.startswith("the database is not") and f"<code>{reason}</code>" in page
    assert not english_left(lang, visible(page), visible(english.decode())), visible(page)


@pytest.mark.parametrize("lang, sentence", [
    ("de", "Partie 1 ist beschädigt: ihre Aufzeichnung lässt sich nicht lesen"),
    ("it", "La partita 1 è danneggiata: la sua registrazione non si può leggere")])
def test_a_damaged_game_s_page_is_said_in_the_page_s_language(tmp_path, lang, sentence):
    """A scorecard whose record cannot be read back (a 409): its reason translated (it
    was "Kann nicht angezeigt werden" over "Game 1 is damaged: ..."); a script still
    gets the English line."""
    import sqlite3
    need_web()
    db = tmp_path / "box.db"
    assert main(["sim", "--db", str(db), "--script", str(SCRIPT)]) == 0
    connection = sqlite3.connect(db)
    with connection:
        connection.execute("UPDATE games SET rules = '[1' WHERE id = 1")
    connection.close()
    server = InProcessServer(db)
    try:
        status, _, body = server.get(f"/game/1?lang={lang}", headers=HTML)
        _, _, line = server.get("/game/1")
    finally:
        server.stop()
    assert status == 409 and sentence in body.decode(), body.decode()
    assert line.startswith(b"409 game 1 is damaged: its record cannot be read back (")
    assert b"is damaged" not in body


@pytest.mark.parametrize("lang, heading, sentence", [
    ("de", "Etwas ist schiefgegangen", "Interner Fehler (das Journal der Box hat die"),
    ("it", "Qualcosa è andato storto", "Errore interno (i dettagli sono nel registro")])
def test_a_page_that_failed_says_so_in_the_page_s_language(tmp_path, monkeypatch, lang,
                                                           heading, sentence):
    """A page the web failed to make (a bug: a 500) is the design's page in the page's
    language, not a bare English line; a script still gets the line."""
    need_web()
    from shutbox_hw.web.content import views

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    db = tmp_path / "box.db"
    assert main(["sim", "--db", str(db), "--script", str(SCRIPT)]) == 0
    monkeypatch.setattr(views, "history_html", broken)
    server = InProcessServer(db)
    try:
        status, headers, body = server.get(f"/history?lang={lang}", headers=HTML)
        _, _, line = server.get("/history")
    finally:
        server.stop()
    page = body.decode()
    assert status == 500 and headers["content-type"].startswith("text/html")
    assert f"<h1>{heading}</h1>" in page and sentence in page, page
    assert line == b"500 internal error (the box's journal has the details)\n"
