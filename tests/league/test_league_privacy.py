"""Issue 41, item 6: a league player keeps off the public tables or shows initials only
(``shutbox-hw league player privacy NAME --public|--initials|--hidden``), against the
real PostgreSQL and the real ``league web``: the standings JSON and pages leave a hidden
player out and show another's initials, everyone else keeping the rank they had; a
player not public has no page by name, and on others' pages their seat shows their
initials or their seat's label. The expected rows are the public standings taken
before and changed by hand. Then a deletion on the same league: the player's rows
under the pseudonym, figures unchanged; a game naming them that arrives later stored
under the pseudonym, unless they joined the league again."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from forked import Forked, sb_run
from league_parts import CHECKOUT, PRACTICE, Postgres, message_of, need_parts
from loopback import free_port, wait_for
from test_league_web import BOX, _open, get, into_league, league, sim, tables

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.slow]

NAMES = {"a1": ["Anna Lena", "Ben"], "a2": ["Ben", "Cleo"]}


@pytest.fixture(name="pub", scope="module")
def pub_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    need_parts()
    folder = tmp_path_factory.mktemp("league-privacy")
    pg = Postgres()
    web = None
    try:
        pg.start()
        league(pg.dsn, "migrate")
        for box, names in NAMES.items():
            config = folder / f"{box}.toml"
            config.write_text(BOX + "[game]\nplayer_names = " + json.dumps(names) + "\n")
            db = folder / f"{box}.db"
            for _ in range(2):
                sim(config, db, PRACTICE)
            into_league(pg.dsn, box, db)
        for name in ("Anna Lena", "Ben", "Cleo"):
            added = sb_run(["league", "players", "add", "--dsn", pg.dsn, name], timeout=60)
            added.check_returncode()
        days = sorted(dt.datetime.fromtimestamp(at, dt.UTC).date()
                      for at, in pg.query("SELECT ended_at FROM games"))
        league(pg.dsn, "season", "--name", "Winter 26", "--from",
               str(days[0] - dt.timedelta(days=1)), "--to", str(days[-1] + dt.timedelta(days=1)),
               "--min-games", "1")
        league(pg.dsn, "ratings")
        port = free_port()
        web = Forked(["league", "web", "--dsn", pg.dsn, "--listen", f"127.0.0.1:{port}"],
                      cwd=CHECKOUT)
        base = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: _open(port) and get(base, "/")[0] == 200, 30)
        yield {"pg": pg, "base": base, "folder": folder}
    finally:
        if web is not None:
            web.terminate()
            web.wait(10)
        pg.destroy()


def standings(dsn: str) -> list[dict]:
    out = league(dsn, "standings", "--json", "--season", "Winter 26")
    return [json.loads(line) for line in out.stdout.splitlines()]


def privacy(dsn: str, name: str, flag: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    return league(dsn, "player", "privacy", name, flag, code=code)


def page_rows(base: str) -> list[tuple[str, str]]:
    status, _, html = get(base, "/standings?season=" + quote("Winter 26"))
    assert status == 200
    return [(r["rank"], r["player"]) for r in tables(html)[0]]


def test_a_player_keeps_off_the_tables_or_shows_initials_and_the_others_keep_their_ranks(pub):
    pg, base = pub["pg"], pub["base"]
    before = standings(pg.dsn)
    assert sorted(r["player"] for r in before) == ["Anna Lena", "Ben", "Cleo"]
    assert page_rows(base) == [(str(r["rank"]), r["player"]) for r in before]

    done = privacy(pg.dsn, "anna lena", "--initials")
    assert done.stdout == "league player Anna Lena (id 1): initials in the tables\n"
    privacy(pg.dsn, "Cleo", "--hidden")
    # by hand: Anna Lena's row says "A. L.", Cleo's row is gone, every rank as it was
    want = [{**r, "player": "A. L."} if r["player"] == "Anna Lena" else r
            for r in before if r["player"] != "Cleo"]
    assert standings(pg.dsn) == want
    assert page_rows(base) == [(str(r["rank"]), r["player"]) for r in want]
    status, _, html = get(base, "/players")
    assert sorted(r["player"] for r in tables(html)[0]) == ["A. L.", "Ben"]
    for name in ("Cleo", "Anna Lena"):       # no page of their own
        assert get(base, "/players/" + quote(name))[0] == 404
        assert get(base, "/players/" + quote(name) + "/games.json")[0] == 404
    # Ben's games: Anna Lena's seat by her initials, Cleo's by its label (P2 at a2)
    status, _, text = get(base, "/players/Ben/games.json")
    assert status == 200
    seen = {tuple(g["players"]) for g in json.loads(text)["games"]}
    assert seen == {("A. L.", "Ben"), ("Ben", "P2")}
    assert "Cleo" not in text and "Anna" not in text

    privacy(pg.dsn, "Cleo", "--public")
    privacy(pg.dsn, "Anna Lena", "--public")
    assert standings(pg.dsn) == before
    # mistakes: one line each, nothing changed
    nobody = privacy(pg.dsn, "Zed", "--hidden", code=2)
    assert nobody.stderr.strip().endswith("the league has no player called Zed")
    none = league(pg.dsn, "player", "privacy", "Ben", code=2)
    assert "needs --public, --initials or --hidden" in none.stderr
    wrong = league(pg.dsn, "standings", "--hidden", code=2)
    assert "--hidden goes with league player privacy" in wrong.stderr
    both = league(pg.dsn, "player", "privacy", "Ben", "--hidden", "--public", code=2)
    assert "not allowed with argument" in both.stderr
    for out in (nobody, none, wrong, both):
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 3
    assert standings(pg.dsn) == before


def write(dsn: str, box: str, payload: bytes) -> str:
    import psycopg

    from shutbox_hw.league.record import write as ingest_write
    with psycopg.connect(dsn, autocommit=True) as conn:
        return ingest_write(conn, f"shutbox/{box}/game", payload).kind


def test_a_deleted_player_s_rows_keep_their_figures_and_a_later_game_does_not_bring_the_name(
        pub):
    pg = pub["pg"]
    before = standings(pg.dsn)
    ben, = [r for r in before if r["player"] == "Ben"]
    out = league(pg.dsn, "player", "delete", "BEN")
    assert out.stdout.startswith("league player 2 deleted: Forgotten 2 in their 4 game(s)")
    # by hand: Ben's row under the pseudonym, every figure and rank as it was (players
    # of one rank listed by name, as the tie-break says)
    assert standings(pg.dsn) == sorted(
        ({**r, "player": "Forgotten 2"} if r is ben else r for r in before),
        key=lambda r: (r["rank"], r["player"]))
    assert json.loads(league(pg.dsn, "rebuild", "--json").stdout)["equal"]
    assert pg.query("SELECT count(*) FROM seats WHERE lower(name) = 'ben'") == [(0,)]
    assert pg.query("SELECT player, pseudonym FROM league_forgotten") == [(2, "Forgotten 2")]
    # a box that had not heard: its game naming Ben is stored under the pseudonym
    config = pub["folder"] / "c1.toml"
    config.write_text(BOX + '[game]\nplayer_names = ["Ben", "Dora"]\n')
    db = pub["folder"] / "c1.db"
    for _ in range(2):
        sim(config, db, PRACTICE)
    assert write(pg.dsn, "c1", message_of(db, "c1", 1)) == "stored"
    assert pg.query("SELECT name FROM seats WHERE box = 'c1' ORDER BY seat") == [
        ("Forgotten 2",), ("Dora",)]
    # Ben joins the league again (a new id): his games are his own name again
    again = sb_run(["league", "players", "add", "--dsn", pg.dsn, "Ben"], timeout=60)
    assert again.returncode == 0 and "league player Ben (id 4)" in again.stdout, again.stderr
    seats = [{"seat": 0, "name": "Ben", "league": {"player": 4, "verified": True}},
             {"seat": 1, "name": "Dora"}]
    assert write(pg.dsn, "c1", message_of(db, "c1", 2, seats=seats)) == "stored"
    assert pg.query("SELECT name FROM seats WHERE box = 'c1' AND game = 2 ORDER BY seat") \
        == [("Ben",), ("Dora",)]
