"""Issue 41, item 6 through the real parts: a league player with games at two boxes
(a1 at pub A, b1 at pub B) exports what the league holds on them, which equals an
independent read of the boxes' records; then is deleted at the league
(``shutbox-hw league player delete``): the league holds the name in no table, its
rebuild equals what it kept; box a1, online, removes them within seconds; box b1,
whose pub broker is cut off from the league (its bridge's link cut), removes them
when the bridge comes back; restarted, b1 does not remove them again (a guest who
took the name after is kept)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from claims_box import short_folder
from forked import sb_run
from league_parts import Link
from league_setup import league_fixture  # noqa: F401 (the fixture "league")
from loopback import wait_for
from test_league_players import box, claim, play_game, roster_held

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]

NAME = "Annika"


def league_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return sb_run(["league", *args], timeout=120)


def box_rows(db: Path, box_id: str, name: str) -> list[dict[str, Any]]:
    """The player's games as the box's own tables hold them (not through the game's
    message): the game, their seats, when it ended, their turns' scores by round."""
    con = sqlite3.connect(db)
    try:
        out = []
        for game, ended in con.execute("SELECT id, ended_at FROM games WHERE ended_at IS NOT"
                                       " NULL ORDER BY id").fetchall():
            seats = [s for s, n in con.execute("SELECT seat, name FROM players WHERE"
                                               " game_id = ? ORDER BY seat", (game,))
                     if n.casefold() == name.casefold()]
            if not seats:
                continue
            scores = [s for s, seat in con.execute(
                "SELECT score, seat FROM turns WHERE game_id = ? ORDER BY round, seat",
                (game,)) if seat in seats]
            out.append({"box": box_id, "game": game, "seats": seats, "ended_at": ended,
                        "scores": scores})
        return out
    finally:
        con.close()


def exported_rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(({"box": g["box"], "game": g["game"], "seats": g["seats"],
                    "ended_at": g["ended_at"],
                    "scores": [t["score"] for t in sorted(
                        g["record"]["turns"], key=lambda t: (t["round"], t["seat"]))
                        if t["seat"] in g["seats"]]}
                   for g in document["games"]), key=lambda r: (r["box"], r["game"]))


def names_on_box(db: Path) -> str:
    """Every text the box's record holds that can carry a name, as one string."""
    con = sqlite3.connect(db)
    try:
        parts = [str(r) for table in ("players", "roster", "games", "rounds", "outbox",
                                      "league_roster", "league_claims")
                 for r in con.execute(f"SELECT * FROM {table}")]
        return "\n".join(parts)
    finally:
        con.close()


def applied(db: Path) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT player, games, applied_at FROM league_forgotten").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def league_text(pg: Any) -> str:
    """Every row of every table of the league's database, as text."""
    tables = [t for t, in pg.query("SELECT tablename FROM pg_tables WHERE schemaname ="
                                   " 'public' ORDER BY tablename")]
    assert {"games", "seats", "set_aside", "kept_standings", "league_players"} <= set(tables)
    return "\n".join(str(row[0]) for t in tables
                     for row in pg.query(f"SELECT t::text FROM {t} t"))


def test_a_deleted_player_is_gone_from_the_league_and_every_box(league, tmp_path):
    pg = league.pg
    # pub B's bridge goes through a link that can be cut (the pub's internet)
    pub_b = league.pubs["pubB"]
    pub_b.kill()
    link = Link(league.central.port)
    conf = pub_b.folder / "mosquitto.conf"
    conf.write_text(conf.read_text().replace(f"address 127.0.0.1:{league.central.port}",
                                             f"address 127.0.0.1:{link.port}"))
    pub_b.start()
    added = league_cli("players", "add", "--dsn", pg.dsn, NAME)
    assert added.returncode == 0, added.stderr
    code = added.stdout.split()[-1]
    dbs = {b: league.db(b) for b in ("a1", "b1")}
    with short_folder() as folder:
        sock = folder / "claims.sock"
        for b, db in dbs.items():       # a game at each box, Annika verified
            db.parent.mkdir(parents=True, exist_ok=True)
            with box(league.configs[b], db, sock) as runner:
                assert wait_for(lambda db=db: roster_held(db) == [(1, NAME)], 30), \
                    league.logs()
                assert claim(runner, sock, NAME.lower(), code)["ok"]
                assert claim(runner, sock, "Bob", "")["ok"]
                play_game(runner)
                assert wait_for(lambda b=b: pg.query(
                    "SELECT count(*) FROM games WHERE box = %s", b) == [(1,)], 60), \
                    league.logs()
        kept = league_cli("ratings", "--dsn", pg.dsn)
        assert kept.returncode == 0, kept.stderr

        # export: everything the league holds on her, equal to the boxes' own tables
        out = league_cli("player", "export", "--dsn", pg.dsn, NAME.upper())
        assert out.returncode == 0, out.stderr
        document = json.loads(out.stdout)
        assert document["roster"]["name"] == NAME and document["roster"]["player"] == 1
        (salt, digest), = pg.query("SELECT salt, hash FROM league_players")
        assert bytes(salt).hex() not in out.stdout and bytes(digest).hex() not in out.stdout
        assert set(document) == {"v", "roster", "games", "ratings", "standings", "luck",
                                 "flags", "set_aside"}
        truth = sorted(box_rows(dbs["a1"], "a1", NAME) + box_rows(dbs["b1"], "b1", NAME),
                       key=lambda r: (r["box"], r["game"]))
        assert len(truth) == 2 and exported_rows(document) == truth
        assert {g["box"] for g in document["games"]} == {"a1", "b1"}

        # pub B cut off from the league; a1 online: the deletion
        link.cut()
        with box(league.configs["a1"], dbs["a1"], sock):
            wait_for(lambda: False, 2)          # connected, the roster as it was
            assert NAME in names_on_box(dbs["a1"])
            gone = league_cli("player", "delete", "--dsn", pg.dsn, NAME)
            assert gone.returncode == 0, gone.stderr
            assert gone.stdout.startswith("league player 1 deleted: Forgotten 1 in their 2")
            assert wait_for(lambda: applied(dbs["a1"]) != [], 15), league.logs()
            assert NAME.lower() not in names_on_box(dbs["a1"]).lower()
            assert roster_held(dbs["a1"]) == []
            con = sqlite3.connect(dbs["a1"])
            assert con.execute("SELECT name FROM players WHERE game_id = 1 ORDER BY seat"
                               ).fetchall() == [("P1",), ("Bob",)]
            con.close()
        # the league: the name in no table; the rebuild equals what was kept
        assert NAME.lower() not in league_text(pg).lower()
        assert pg.query("SELECT DISTINCT name FROM seats ORDER BY name") == [
            ("Bob",), ("Forgotten 1",)]
        rebuilt = league_cli("rebuild", "--dsn", pg.dsn, "--json")
        assert rebuilt.returncode == 0 and json.loads(rebuilt.stdout)["equal"], rebuilt.stdout
        again = league_cli("player", "export", "--dsn", pg.dsn, NAME)
        assert again.returncode == 2 and "the league has no player called Annika" in \
            again.stderr and "Traceback" not in again.stderr

        # b1 behind the cut link: nothing reaches it; the link mended: it applies
        with box(league.configs["b1"], dbs["b1"], sock):
            wait_for(lambda: False, 3)
            assert applied(dbs["b1"]) == [] and NAME in names_on_box(dbs["b1"])
            link.mend()
            assert wait_for(lambda: applied(dbs["b1"]) != [], 30), league.logs()
            assert NAME.lower() not in names_on_box(dbs["b1"]).lower()
            (player, games, at), = applied(dbs["b1"])
            assert (player, games) == (1, 1)
        # restarted: applied once; a guest who takes the name now is not removed
        with box(league.configs["b1"], dbs["b1"], sock) as runner:
            guest = claim(runner, sock, NAME, "")
            assert guest["ok"] and guest["player"] == NAME, guest
            play_game(runner)
        with box(league.configs["b1"], dbs["b1"], sock):
            wait_for(lambda: False, 3)          # the retained tombstone comes again
            assert applied(dbs["b1"]) == [(1, 1, at)]
            assert [r["game"] for r in box_rows(dbs["b1"], "b1", NAME)] == [2]
    # the guest's game reaches the league under the pseudonym: the name stays gone
    assert wait_for(lambda: pg.query("SELECT count(*) FROM games WHERE box = 'b1'")
                    == [(2,)], 60), league.logs()
    assert NAME.lower() not in league_text(pg).lower()
    for ingest in league.ingests:
        assert "Traceback" not in ingest.text(), ingest.text()[-2000:]
