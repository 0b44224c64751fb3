"""Issue 41, item 1 through the real parts: a player added at the league
(``shutbox-hw league players add``), the roster published by the ingests on the
league's broker, carried by pub A's bridge to its broker, kept by box a1 in its
record; a claim with the right secret seats the player, a wrong one is refused;
the same with the league's broker away (the pub cut off from the league), and
after the box restarts with no broker at all; the games reach the league with the
seat marked verified, and a game with a league name the box did not verify is
kept aside and reported."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from claims_box import claim_on_socket, short_folder
from forked import sb_run
from league_parts import PRACTICE, league_status
from league_setup import league_fixture  # noqa: F401 (the fixture "league")
from loopback import wait_for

from shutbox_hw.claims.league import NEEDS_SECRET, WRONG_SECRET
from shutbox_hw.config.config_file import load_config
from shutbox_hw.network.hookup import publishing
from shutbox_hw.players.league_secret import CODE_LENGTH
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]


def league_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return sb_run(["league", *args], timeout=60)


@contextmanager
def box(config_path: Path, db: Path, sock: Path) -> Iterator[SimRunner]:
    """Box a1 as ``run`` wires it: the daemon with its claims socket, and its publisher
    on the same record (the outbox, the resends, the league's roster)."""
    config = load_config(config_path)
    with publishing(config, db, lambda text: None) as outbox:
        runner = SimRunner(config, db, outbox=outbox, claims_path=str(sock))
        try:
            yield runner
        finally:
            runner.close()


def claim(runner: SimRunner, sock: Path, name: str, secret: str) -> dict:
    return claim_on_socket(runner, sock, name, secret)


def play_game(runner: SimRunner) -> None:
    """The practice game with the seats claimed, then the box set up again (the next
    game's join code)."""
    for step in load_script(str(PRACTICE), runner.config.rules.tiles):
        runner.run(step)
    runner.let_ends_show()
    assert runner.phase_now() == "over"
    runner.press("roll")
    assert runner.phase_now() == "idle"


def roster_held(db: Path) -> list[tuple[int, str]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT player, name FROM league_roster ORDER BY player").fetchall()
    finally:
        con.close()


def league_seats(league, game: int) -> list[dict] | None:
    rows = league.pg.query("SELECT record -> 'seats' FROM games WHERE box = 'a1'"
                           " AND game = %s", game)
    return rows[0][0] if rows else None


def roster_entry(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return str(con.execute("SELECT entry FROM league_roster WHERE player = 1")
                   .fetchone()[0])
    finally:
        con.close()


def outbox_games(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM outbox WHERE topic = 'game'").fetchone()[0])
    finally:
        con.close()


def test_a_league_player_claims_a_seat_online_offline_and_after_a_restart(league, tmp_path):
    pg = league.pg
    db = league.db("a1")
    db.parent.mkdir(parents=True, exist_ok=True)
    with short_folder() as folder:
        sock = folder / "claims.sock"
        with box(league.configs["a1"], db, sock) as runner:
            # before Anna joins the league, with pub A cut off from it: a guest called
            # Anna plays game 1 (the box knows no league player); it waits at the pub
            league.central.kill()
            guest = claim(runner, sock, "Anna", "")
            assert guest["ok"] and guest["player"] == "Anna", guest
            play_game(runner)
            assert wait_for(lambda: outbox_games(db) == 0, 30)   # taken by the pub's broker
        # (each game on a box started afresh: the simulated flaps open again)
        with box(league.configs["a1"], db, sock) as runner:

            added = league_cli("players", "add", "--dsn", pg.dsn, "Anna")
            assert added.returncode == 0, added.stderr
            assert added.stdout.startswith(
                "league player Anna (id 1); their secret, shown this once")
            code = added.stdout.split()[-1]
            assert len(code.replace("-", "")) == CODE_LENGTH
            again = league_cli("players", "add", "--dsn", pg.dsn, "ANNA")
            assert again.returncode == 2 and "has a player called Anna already" in again.stderr
            assert len(again.stderr.splitlines()) == 1 and "Traceback" not in again.stderr
            # the league keeps no secret: no column of the row holds the code in any form
            row, = pg.query("SELECT * FROM league_players")
            assert not any(code.replace("-", "") in str(v) or code in str(v) for v in row)

            # the pub back online: game 1 arrives with a league name the box did not
            # verify, and is kept aside (and never asked for again); the roster comes in
            league.central.start()

            def aside() -> list[tuple]:
                return pg.query("SELECT box, game, reason FROM set_aside")
            assert wait_for(lambda: aside() == [("a1", 1, "unverified league name")], 60), \
                league.logs()
            assert wait_for(lambda: roster_held(db) == [(1, "Anna")], 30), league.logs()
            text = league_cli("status", "--dsn", pg.dsn).stdout
            assert "unverified league name (game 1)" in text

            # online: a wrong secret, or none, is refused; the right one seats her
            assert claim(runner, sock, "Anna", "WRONGCODE2") == {
                "ok": False, "reason": WRONG_SECRET.format(name="Anna")}
            assert claim(runner, sock, "anna", "") == {     # a guest's name that is hers
                "ok": False, "reason": NEEDS_SECRET.format(name="Anna")}
            seated = claim(runner, sock, "anna", code.lower())
            assert seated["ok"] and seated["player"] == "Anna", seated
            play_game(runner)
            assert wait_for(lambda: league_seats(league, 2) is not None, 60), league.logs()
            assert league_seats(league, 2) == [
                {"seat": 0, "name": "Anna", "league": {"player": 1, "verified": True}},
                {"seat": 1, "name": "P2"}]
            assert pg.query("SELECT count(*) FROM games WHERE box = 'a1' AND game = 1") == [(0,)]
            # the gap rounds (every 2 s here) leave the game kept aside alone
            status, = [r for r in league_status(pg.dsn) if r["box"] == "a1"]
            assert status["latest"] == 2 and status["missing"] == [] and status["set_aside"] == 1
            runner.advance(1)
            wait_for(lambda: False, 6)            # three gap rounds
            status, = [r for r in league_status(pg.dsn) if r["box"] == "a1"]
            assert status["missing"] == [] and status["asked"] == 0, status

            # a lost card: a new secret; the old one stops working when the entry arrives
            entry_before = roster_entry(db)
            renewed = league_cli("players", "renew", "--dsn", pg.dsn, "ANNA")
            assert renewed.returncode == 0, renewed.stderr
            assert "league player Anna (id 1); their new secret" in renewed.stdout
            old_code, code = code, renewed.stdout.split()[-1]
            assert code != old_code
            assert wait_for(lambda: roster_entry(db) != entry_before, 30), league.logs()
            assert claim(runner, sock, "Anna", old_code)["reason"] == \
                WRONG_SECRET.format(name="Anna")
            assert claim(runner, sock, "Anna", code)["ok"]
            nobody = league_cli("players", "renew", "--dsn", pg.dsn, "Zed")
            assert nobody.returncode == 2 and "the league has no player called Zed" in \
                nobody.stderr

        with box(league.configs["a1"], db, sock) as runner:
            # the pub cut off from the league again: its broker is there, the league's not
            league.central.kill()
            assert claim(runner, sock, "Anna", "WRONGCODE2")["reason"] == \
                WRONG_SECRET.format(name="Anna")
            seated = claim(runner, sock, "Anna", code)
            assert seated["ok"] and seated["player"] == "Anna", seated
        # the box restarted with no broker at all: the roster is in its record
        league.pubs["pubA"].kill()
        with box(league.configs["a1"], db, sock) as runner:
            assert claim(runner, sock, "Anna", "WRONGCODE2")["reason"] == \
                WRONG_SECRET.format(name="Anna")
            assert claim(runner, sock, "Anna", "")["reason"] == NEEDS_SECRET.format(name="Anna")
            seated = claim(runner, sock, "Anna", code)
            assert seated["ok"] and seated["player"] == "Anna", seated
            play_game(runner)
        # back online: the game played offline arrives, its seat verified by the box
        league.central.start()
        league.pubs["pubA"].start()
        with box(league.configs["a1"], db, sock):
            assert wait_for(lambda: league_seats(league, 3) is not None, 60), league.logs()
        assert league_seats(league, 3) == [
            {"seat": 0, "name": "Anna", "league": {"player": 1, "verified": True}},
            {"seat": 1, "name": "P2"}]
        assert pg.query("SELECT game, reason FROM set_aside") == [(1, "unverified league name")]
    assert roster_held(db) == [(1, "Anna")]
    for ingest in league.ingests:   # the roster published, the gap rounds run, no failure
        log = ingest.text()
        assert "published the roster (1 player(s))" in log
        assert "Traceback" not in log and "PostgreSQL:" not in log, log[-2000:]
