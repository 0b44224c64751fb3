"""The pages' words (issue 31's, issue 33's catalogues): tonight, a game's counts,
the error pages and the clock's notes read in the language in force, with the
plural each language gives the number; English stays the code's own text."""

from __future__ import annotations

import pytest

from shutbox_hw.base.events import Tonight
from shutbox_hw.base.i18n import speaking
from shutbox_hw.web.content import pages
from shutbox_hw.words.record import CLOCK_NOTES, count, game_state


def test_counts_take_each_language_s_plural():
    assert [count(n, "{n} throw", "{n} throws") for n in (0, 1, 2)] == \
        ["0 throws", "1 throw", "2 throws"]
    with speaking("de"):
        assert [count(n, "{n} throw", "{n} throws") for n in (1, 4)] == ["1 Wurf", "4 Würfe"]
    with speaking("it"):
        assert [count(n, "{n} throw", "{n} throws") for n in (1, 4)] == ["1 lancio", "4 lanci"]


def test_tonight_reads_in_german_and_italian_with_the_clock_note():
    figures = Tonight(games=1, boxes_shut=2, best=("Jürgen", 3), clock="not set")
    english = pages.tonight_body(figures, [], CLOCK_NOTES["not set"])
    assert "1 game finished, 2 boxes shut, best turn 3 by Jürgen." in english
    assert "clock was not set" in english and "No games tonight yet." in english
    with speaking("de"):
        german = pages.tonight_body(figures, [], CLOCK_NOTES["not set"])
    assert "<h1>Heute Abend</h1>" in german and "1 Partie beendet" in german
    assert "bester Durchgang 3 von Jürgen" in german and "Uhr der Box war" in german
    assert "Heute Abend noch keine Partien." in german and "finished" not in german
    with speaking("it"):
        italian = pages.tonight_body(figures, [], CLOCK_NOTES["not set"])
    assert "<h1>Stasera</h1>" in italian and "1 partita finita" in italian
    assert "miglior turno 3 di Jürgen" in italian and "Stasera ancora nessuna" in italian


def test_the_record_keeps_its_english_state_and_the_page_shows_it_translated():
    game = {"id": 7, "started_at": None, "clock_synced": {"started": False},
            "title": "House rules", "rounds": 2, "totals": {"A": 3}, "winners": [],
            "boxes_shut": {}, "abandoned": True}
    game["state"] = game_state(game)
    assert game["state"] == "stopped"
    with speaking("de"):
        row = pages.games_table([game])
    assert "<td>abgebrochen</td>" in row and "<td>Hausregeln</td>" in row
    assert "Partie 7" in row and "Uhr nicht gestellt" in row and game["state"] == "stopped"


def test_an_error_page_speaks_the_language_in_force():
    assert "<h1>Not found</h1>" in pages.error_page(404, "no game 9")
    with speaking("it"):
        page = pages.error_page(404, "no game 9")
    assert "<h1>Non trovato</h1>" in page and "Tutte le partite" in page


def test_a_game_page_names_house_rules_in_the_language_in_force():
    from shutbox_hw.words.record import rules_named, rules_shown
    table = {"preset": "klappenspiel", "tiles": 12}
    assert rules_shown(table) == rules_named(table) == \
        "House rules (12 tiles, any-sum, elimination 78)"     # 1+...+12 = 78
    with speaking("de"):
        assert rules_shown(table) == "Hausregeln (12 Klappen, jede Summe, raus ab 78)"
    assert rules_named(table).startswith("House rules")    # the record's words stay English


# --- every page after a pub night, in German and Italian: no English left (issue 42) ---

PAGES = ("/", "/tonight", "/history", "/game/1", "/game/2", "/players",
         "/players/J%C3%BCrgen", "/highscores", "/join", "/players/Nobody", "/game/99",
         "/no/such/page", "/history?limit=0", "/audits", "/faults", "/export", "/backup",
         "/join/ABC123", "/players?sort=wins")


@pytest.fixture(scope="module")
def night_server(tmp_path_factory):
    from web_server import InProcessServer, need_web
    from words_night import play
    need_web()
    db = tmp_path_factory.mktemp("night") / "box.db"
    play(db)
    server = InProcessServer(db)
    yield server
    server.stop()


@pytest.mark.parametrize("path", PAGES)
def test_no_english_word_is_left_on_a_german_or_italian_page(night_server, path):
    """Each page in English, German and Italian: a word of the German or Italian page
    that the English page has is a name, the brand or a word the language shares
    (words_night.SHARED_BY), else it is English left (the house rules' line on
    /history and /tonight was: "Hausregeln (9 tiles, any-sum, elimination 17)")."""
    from words_night import english_left, visible
    sep = "&" if "?" in path else "?"
    got = {}
    for code in ("en", "de", "it"):
        status, _, body = night_server.get(f"{path}{sep}lang={code}",
                                           headers={"Accept": "text/html"})
        got[code] = (status, visible(body.decode()))
    assert got["en"][0] == got["de"][0] == got["it"][0]
    assert len(got["en"][1].split()) > 3        # (a page, with words to compare)
    for code in ("de", "it"):
        left = english_left(code, got[code][1], got["en"][1], {"Jürgen", "Niccolò", "Carla",
                                                               "Nobody"})
        assert not left, f"{path} in {code}: English left: {left}"


def test_the_history_names_house_rules_in_the_page_s_language(night_server):
    from shutbox_hw.words.record import rules_shown
    table = {"preset": "klappenspiel", "threshold": 17}
    for code in ("de", "it"):
        with speaking(code):
            want = rules_shown(table)
        for path in ("/history", "/tonight"):
            _, _, body = night_server.get(f"{path}?lang={code}", headers={"Accept": "text/html"})
            assert f"<td>{want}</td>" in body.decode(), (path, code, want)
    _, _, body = night_server.get("/history?lang=en", headers={"Accept": "text/html"})
    assert "<td>House rules (9 tiles, any-sum, elimination 17)</td>" in body.decode()


def test_a_stored_rule_of_the_wrong_type_is_not_named_as_the_right_one():
    """``multiplication = 1`` is refused by the rules (a true or false is asked for); the
    names are cached per rules table, and ``True == 1`` in Python: the refused table
    must not be named as the valid one seen just before it (nor the other way round)."""
    from shutbox_hw.rules.ruleset import RulesError, rules_from_dict
    from shutbox_hw.words.record import rules_named
    good = {"preset": "pub", "multiplication": True}
    bad = {"preset": "pub", "multiplication": 1}
    with pytest.raises(RulesError):
        rules_from_dict(bad)
    assert rules_named(good).startswith("House rules (")
    assert rules_named(bad) == "pub"           # not a rule set: its preset's name as stored
    assert rules_named(good).startswith("House rules (")
