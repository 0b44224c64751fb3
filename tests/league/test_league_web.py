"""The league's own pages (issue 41, item 5) against the real PostgreSQL and the real
``shutbox-hw league web`` process: three boxes at two venues played by ``shutbox-hw
sim``, their moves rated on the boxes, their game messages written by the ingest's own
write; then every page's figures compared with ``league standings --json`` and with an
independent count from the boxes' own records (league_truth.py)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sqlite3
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
from forked import PIPE, STDOUT, Forked, sb_run
from league_parts import CHECKOUT, PRACTICE, Postgres, message_of, need_parts
from league_truth import VENUES, key, rated_on_the_box, slip, swapped, truth
from loopback import free_port, wait_for

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.slow]

NAMES = {"a1": ["Anna", "Ben"], "a2": ["Ben", "Cleo"], "b1": ["ANNA", "Bén"]}
BOX = '[rules]\npreset = "crafthouse-12"\nmatch = "single-round"\n'


def sim(config: Path, db: Path, script: Path) -> None:
    out = sb_run(["sim", "--config", str(config), "--db", str(db), "--script",
                  str(script)], timeout=120)
    assert out.returncode == 0, out.stderr


def into_league(dsn: str, box: str, db: Path) -> None:
    """Every ended game of the box's record, written as the ingest writes a message."""
    import psycopg

    from shutbox_hw.league.record import write
    with sqlite3.connect(db) as con:
        ids = [g for g, in con.execute("SELECT id FROM games WHERE ended_at IS NOT NULL")]
    with psycopg.connect(dsn, autocommit=True) as conn:
        for game in ids:
            assert write(conn, f"shutbox/{box}/game", message_of(db, box, game)).kind \
                == "stored"


def league(dsn: str, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    out = sb_run(["league", *args, "--dsn", dsn], timeout=120)
    assert out.returncode == code, (out.stdout, out.stderr)
    return out


class Tables(HTMLParser):
    """The pages' tables: each row a dict of ``data-field`` -> text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[dict[str, str]]] = []
        self.field: str | None = None
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append({})
        elif tag == "td":
            self.field, self.text = dict(attrs).get("data-field"), ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.field is not None:
            self.tables[-1][-1][self.field] = self.text
            self.field = None

    def handle_data(self, data: str) -> None:
        if self.field is not None:
            self.text += data


def tables(html: str) -> list[list[dict[str, str]]]:
    parser = Tables()
    parser.feed(html)
    return [[row for row in t if row] for t in parser.tables]


def get(base: str, path: str, headers: dict[str, str] | None = None
        ) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def shown(value: object) -> str:
    """A figure as the pages show it."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


@pytest.fixture(name="night", scope="module")
def night_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    need_parts()
    folder = tmp_path_factory.mktemp("league-web")
    pg = Postgres()
    web = None
    try:
        pg.start()
        league(pg.dsn, "migrate")
        dbs = {box: folder / f"{box}.db" for box in NAMES}
        swap, slipped = swapped(folder), slip(folder)
        for box, plays in (("a1", [PRACTICE, PRACTICE, swap]), ("a2", [swap, slipped]),
                           ("b1", [PRACTICE, swap])):
            config = folder / f"{box}.toml"
            config.write_text(BOX + "[game]\nplayer_names = " + json.dumps(NAMES[box]) + "\n")
            for script in plays:
                sim(config, dbs[box], script)
        casual = folder / "casual.toml"           # two seats nobody named: casual play
        casual.write_text(BOX)
        sim(casual, dbs["a1"], PRACTICE)
        for box, db in dbs.items():
            assert rated_on_the_box(db)
            into_league(pg.dsn, box, db)
        for box, venue in VENUES.items():
            pg.query("UPDATE boxes SET venue = %s WHERE box = %s", venue, box)
        days = sorted(dt.datetime.fromtimestamp(at, dt.UTC).date()
                      for at, in pg.query("SELECT ended_at FROM games"))
        starts, ends = days[0] - dt.timedelta(days=1), days[-1] + dt.timedelta(days=1)
        league(pg.dsn, "season", "--name", "Winter 26", "--from", str(starts), "--to",
               str(ends), "--rules", "crafthouse-12", "--min-games", "2", "--band-games", "2")
        port = free_port()
        web = Forked(["league", "web", "--dsn", pg.dsn, "--listen", f"127.0.0.1:{port}"],
                      cwd=CHECKOUT, stdout=PIPE, stderr=STDOUT)
        base = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: web.poll() is not None or get(base, "/")[0] == 200
                        if _open(port) else False, 30), web.output()[0]
        yield {"pg": pg, "dbs": dbs, "base": base, "starts": starts, "ends": ends,
               "folder": folder}
    finally:
        if web is not None:
            web.terminate()
            web.wait(10)
        pg.destroy()


def _open(port: int) -> bool:
    import socket
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def standings_json(dsn: str, *args: str) -> list[dict]:
    out = league(dsn, "standings", "--json", *args)
    return [json.loads(line) for line in out.stdout.splitlines()]


FIELDS = ("rank", "player", "games", "wins", "points", "turn_score", "boxes_shut",
          "accuracy", "rated", "band", "rating", "luck", "luck_turns")


def test_the_standings_pages_equal_the_json_and_the_boxes_records(night):
    base, dsn, dbs = night["base"], night["pg"].dsn, night["dbs"]
    expected = truth(dbs, night["starts"], night["ends"], {"crafthouse-12"}, None, 2)
    assert [(r["player"], r["games"], r["points"], r["rank"]) for r in expected] == [
        ("Ben", 7, 12, 1), ("Anna", 5, 6, 2), ("Cleo", 2, 3, 3)]
    status, headers, html = get(base, "/standings?season=" + quote("Winter 26"))
    assert status == 200 and headers["x-frame-options"] == "DENY"
    assert 'name="viewport"' in html             # a phone's width
    rows = tables(html)[0]
    as_json = standings_json(dsn, "--season", "Winter 26")
    assert [r["player"] for r in rows] == [r["player"] for r in as_json]
    for row, want in zip(rows, as_json, strict=True):
        for field in FIELDS:
            value = want[field]
            assert row[field] == (f"{value:.1f}" if field == "accuracy" and value is not None
                                  else shown(value)), (field, row, want)
    for row, want in zip(as_json, expected, strict=True):   # and the boxes' own records
        assert {f: row[f] for f in want} == want
    # a venue's table: the page, the JSON and the records
    status, _, html = get(base, "/standings?season=Winter+26&venue=Anchor")
    anchor = truth(dbs, night["starts"], night["ends"], {"crafthouse-12"}, None, 2,
                   venue="Anchor")
    assert status == 200
    assert [(r["player"], r["points"], r["rank"]) for r in tables(html)[0]] == [
        (r["player"], str(r["points"]), str(r["rank"])) for r in anchor] == [
        (r["player"], str(r["points"]), str(r["rank"]))
        for r in standings_json(dsn, "--season", "Winter 26", "--venue", "Anchor")]
    # the seasons' index links the table; a season nobody made is one line, 404
    assert "Winter 26" in get(base, "/")[2]
    status, _, text = get(base, "/standings?season=Spring")
    assert status == 404 and text.startswith("404 no season named 'Spring'")


def record_games(dbs: dict[str, Path]) -> dict[str, list[dict]]:
    """Per player key, their ended games from the boxes' own tables."""
    found: dict[str, list[dict]] = {}
    for box, db in dbs.items():
        with sqlite3.connect(db) as con:
            for game, abandoned, winners in con.execute(
                    "SELECT id, abandoned, winners FROM games WHERE ended_at IS NOT NULL"):
                won = {key(w) for w in json.loads(winners or "[]")}
                seen = set()
                for name, in con.execute("SELECT name FROM players WHERE"
                                              " game_id = ? ORDER BY seat", (game,)):
                    if name in ("P1", "P2") or key(name) in seen:
                        continue
                    seen.add(key(name))
                    found.setdefault(key(name), []).append({
                        "box": box, "venue": VENUES[box], "game": game,
                        "state": "abandoned" if abandoned else "finished",
                        "won": key(name) in won and not abandoned,
                        "points": (3 if len(won) == 1 else 1) if key(name) in won else 0})
    return found


def test_venues_players_and_each_players_games(night):
    base, dbs = night["base"], night["dbs"]
    games = record_games(dbs)
    # venues: the finished games each holds, counted from the records
    status, _, html = get(base, "/venues")
    by_venue: dict[str, int] = {}
    for box, db in dbs.items():
        with sqlite3.connect(db) as con:
            by_venue[VENUES[box]] = by_venue.get(VENUES[box], 0) + con.execute(
                "SELECT count(*) FROM games WHERE ended_at IS NOT NULL AND abandoned = 0"
            ).fetchone()[0]
    assert status == 200
    assert {r["venue"]: int(r["games"]) for r in tables(html)[0]} == by_venue == {
        "Crown": 6, "Anchor": 2}
    # players: one per player however their name was typed, with their games everywhere
    status, _, html = get(base, "/players")
    listed = {key(r["player"]): int(r["games"]) for r in tables(html)[0]}
    assert listed == {k: sum(g["state"] == "finished" for g in v) for k, v in games.items()}
    assert set(listed) == {"anna", "ben", "cleo"}
    # each player's page: their row of the season's table, their games in CSV and JSON
    as_json = {key(r["player"]): r for r in standings_json(night["pg"].dsn, "--season",
                                                            "Winter 26")}
    assert set(as_json) == {"anna", "ben", "cleo"}
    for player in ("Anna", "bén", "Cleo"):
        status, _, html = get(base, "/players/" + quote(player))
        assert status == 200, html
        found = tables(html)
        want = as_json[key(player)]          # their row of the season's table
        assert [r["season"] for r in found[0]] == ["Winter 26"]
        for field in (f for f in FIELDS if f != "player"):
            value = want[field]
            assert found[0][0][field] == (f"{value:.1f}" if field == "accuracy"
                                          and value is not None else shown(value)), field
        status, headers, text = get(base, "/players/" + quote(player) + "/games.csv")
        assert status == 200 and headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(text)))
        mine = sorted(games[key(player)], key=lambda g: (g["box"], g["game"]))
        assert sorted(({"box": r["box"], "venue": r["venue"], "game": int(r["game"]),
                        "state": r["state"], "won": r["won"] == "True",
                        "points": int(r["points"])} for r in rows),
                      key=lambda g: (g["box"], g["game"])) == mine
        status, headers, text = get(base, "/players/" + quote(player) + "/games.json")
        body = json.loads(text)
        assert status == 200 and body["player"] == key(player)
        assert [(g["box"], g["game"], g["points"]) for g in body["games"]] == [
            (r["box"], int(r["game"]), int(r["points"])) for r in rows]
    status, _, text = get(base, "/players/Nobody")
    assert status == 404 and text == "404 no league player named 'Nobody'\n"
    status, _, text = get(base, "/players/P1")       # a seat label is nobody's
    assert status == 404


def test_the_flags_page_equals_league_flags(night):
    # the sim commits a closure milliseconds after its roll: every finished game with a
    # league player is flagged as faster than a hand (league/trust.py); the page lists
    # the same flags
    listed = [json.loads(line) for line in league(night["pg"].dsn, "flags", "--json")
              .stdout.splitlines()]
    status, _, html = get(night["base"], "/flags")
    assert status == 200
    rows = tables(html)[0]
    assert [(int(r["id"]), r["kind"], r["decision"]) for r in rows] == [
        (f["id"], f["kind"], "undecided") for f in listed]
    for flag in listed:      # each with its reason, in words that wrap on a phone
        assert f'<p id="flag-{flag["id"]}" data-field="reason"><b>#{flag["id"]} ' \
            f'{flag["kind"]}</b>: {escape(flag["reason"])}</p>' in html
    named = {(g["box"], g["game"]) for games in record_games(night["dbs"]).values()
             for g in games if g["state"] == "finished"}
    assert {(f["box"], f["game"]) for f in listed if f["kind"] == "fast"} == named
    # (and the practice scripts' dice, mostly 3 to 6, are far from fair for the players
    # with enough of them: dice flags beside)
    assert {f["kind"] for f in listed} <= {"fast", "dice"}


def test_the_gate_and_read_only(night):
    base = night["base"]
    status, headers, text = get(base, "/", {"Host": "evil.example"})
    assert status == 421 and headers["x-frame-options"] == "DENY"
    status, headers, _ = get(base, "/venues")
    assert headers["content-security-policy"].startswith("default-src 'self'")
    # the pages' connections refuse to write
    import psycopg

    from shutbox_hw.commands.serve.league_web import _connect
    conn = _connect(night["pg"].dsn)
    try:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM seasons")
    finally:
        conn.close()
    assert night["pg"].query("SELECT count(*) FROM seasons") == [(1,)]
    # at most 20 downloads a minute from one address (the tests above may have taken
    # some): the 21st is refused, and every one after it
    codes = [get(base, "/players/Anna/games.json")[0] for _ in range(21)]
    assert 429 in codes and set(codes[codes.index(429):]) == {429}
    assert set(codes[:codes.index(429)]) <= {200}
    status, _, text = get(base, "/players/Anna/games.csv")
    assert status == 429 and text.startswith("429 at most 20 downloads a minute")
    # PostgreSQL away: one line, 503, and the pages back when it is
    night["pg"].stop()
    try:
        for path in ("/venues", "/standings", "/players/Anna"):
            status, headers, text = get(base, path)
            assert status == 503 and text.startswith("503 the league's database cannot be "
                                                     "reached right now"), (path, text)
            assert headers["x-frame-options"] == "DENY"
    finally:
        night["pg"].start()
    assert wait_for(lambda: get(base, "/venues")[0] == 200, 30)
