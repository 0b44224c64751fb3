"""The players' pages with awkward names and bad requests: every name escaped in
the text and percent-encoded in its links (a slash, an accent, markup), an unknown
name the design's missing page, a bad ``?sort=`` / ``?page=`` / ``?before=`` one
line with 400, an older record a plain 503; the downloads are the player's own."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest
from test_figures_recount import game
from web_server import InProcessServer, need_web

from shutbox_hw.game.model.events import GameStarted
from shutbox_hw.store import Store

NAMES = ("AC/DC", "Zoë", "<i>Bo</i>")


def _named(step, names):
    from dataclasses import replace
    table = dict(zip(("Anna", "Ben", "Cleo"), names, strict=False))
    out = []
    for e in step:
        if isinstance(e, GameStarted) or hasattr(e, "players"):
            e = replace(e, players=tuple(table.get(n, n) for n in e.players))
        if hasattr(e, "player") and isinstance(e.player, str):
            e = replace(e, player=table.get(e.player, e.player))
        out.append(e)
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    need_web()
    path = tmp_path_factory.mktemp("pages") / "box.db"
    store = Store(path)
    for spec in ((3, [[0, 7, 4]], "pub", "ended"), (3, [[5, 3, 9]], "klappenspiel", "ended")):
        for step in game(*spec):
            store.record_all(_named(step, NAMES))
    store.close()
    web = InProcessServer(path)
    yield web
    web.stop()


def test_names_are_escaped_and_encoded(server):
    status, _, body = server.get("/players")
    text = body.decode()
    assert status == 200
    assert '<a href="/players/AC%2FDC">AC/DC</a>' in text
    assert '<a href="/players/Zo%C3%AB">Zoë</a>' in text
    assert "&lt;i&gt;Bo&lt;/i&gt;" in text and "<i>Bo" not in text
    for link in ("/players/AC%2FDC", "/players/Zo%C3%AB", "/players/zoe",
                 "/players/%3Ci%3EBo%3C%2Fi%3E"):
        status, _, body = server.get(link)
        assert status == 200, link
        assert "<h1>" in body.decode() and "<i>Bo" not in body.decode()


def test_the_downloads_are_the_player_s_own_games(server):
    status, headers, body = server.get("/players/AC%2FDC/games.csv")
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert status == 200 and headers["content-disposition"].endswith('filename="AC-DC-games.csv"')
    assert [r["game"] for r in rows] == ["1", "2"] and {r["name"] for r in rows} == {"AC/DC"}
    assert [r["won"] for r in rows] == ["True", "True"]        # seat 1 wins each game
    status, _, body = server.get("/players/Zo%C3%AB/games.json")
    data = json.loads(body)
    assert status == 200 and data["player"] == "Zoë"
    assert [(g["seat"], g["score_sum"], g["won"]) for g in data["games"]] == \
        [(2, 7, False), (2, 3, False)]


@pytest.mark.parametrize("path,status,words", [
    ("/players?sort=height", 400, "sort: expected one of"),
    ("/players?page=0", 400, "page: expected a whole number"),
    ("/players?page=x", 400, "page: expected a whole number"),
    ("/players/Zo%C3%AB?before=-1", 400, "before: expected a whole number"),
    ("/players/Nobody", 404, "there is no player called Nobody"),
    ("/players/" + "x" * 500, 404, "there is no player called xxxx"),
    ("/players/Nobody/games.csv", 404, "there is no player called Nobody"),
])
def test_bad_requests_are_one_line(server, path, status, words):
    got, _, body = server.get(path)
    text = body.decode()
    assert got == status and words in text and text.count("\n") == 1 and "Traceback" not in text
    got, _, body = server.get(path, headers={"Accept": "text/html"})
    if not path.endswith(".csv"):
        assert got == status and "<!doctype html>" in body.decode()   # the design's page


def test_a_record_before_the_players_is_a_plain_503(tmp_path):
    need_web()
    path = tmp_path / "old.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 6")
    db.commit()
    db.close()
    web = InProcessServer(path)
    try:
        status, _, body = web.get("/players")
        assert status == 503 and b"the players come with the box's next start" in body
    finally:
        web.stop()
