"""Issue 41, item 1 through the real parts: a player added at the league
(``shutbox-hw league players add``), the roster published by the ingests on the
league's broker, carried by pub A's bridge to its broker, kept by box a1 in its
record; a claim with the right secret seats the player, a wrong one is refused;
the same with the league's broker away (the pub cut off from the league), and
after the box restarts with no broker at all; the games reach the league with the
seat marked verified, and a game with a league name the box did not verify is
kept aside and reported."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from claims_box import short_folder
from league_parts import CHECKOUT, PRACTICE, SB, league_status, message_of, publish_as
from league_setup import league_fixture  # noqa: F401 (the fixture "league")
from loopback import wait_for

from shutbox_hw.claims import client
from shutbox_hw.claims.league import NEEDS_SECRET, WRONG_SECRET
from shutbox_hw.config.config_file import load_config
from shutbox_hw.network.hookup import publishing
from shutbox_hw.players.league_secret import CODE_LENGTH
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]


def league_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SB, "league", *args], capture_output=True, text=True, timeout=60,
                          cwd=CHECKOUT)


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
    code = runner.daemon.controller.state.join.code
    assert code is not None
    answer: dict = {}
    asking = threading.Thread(target=lambda: answer.update(
        client.claim(str(sock), name, code.code, secret=secret)))
    asking.start()
    while asking.is_alive():
        runner.advance(50)
    return answer


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


def test_a_league_player_claims_a_seat_online_offline_and_after_a_restart(league, tmp_path):
    pg = league.pg
    added = league_cli("players", "add", "--dsn", pg.dsn, "Anna")
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("league player Anna (id 1); their secret, shown this once")
    code = added.stdout.split()[-1]
    assert len(code.replace("-", "")) == CODE_LENGTH
    again = league_cli("players", "add", "--dsn", pg.dsn, "ANNA")
    assert again.returncode == 2 and "has a player called Anna already" in again.stderr
    assert len(again.stderr.splitlines()) == 1 and "Traceback" not in again.stderr
    # the league keeps no secret: no column of the row holds the code in any form
    row, = pg.query("SELECT * FROM league_players")
    assert not any(code.replace("-", "").encode() in bytes(str(v), "utf-8")
                   or code.replace("-", "") in str(v) for v in row)

    db = league.db("a1")
    db.parent.mkdir(parents=True, exist_ok=True)
    with short_folder() as folder:
        sock = folder / "claims.sock"
        # online: the roster comes through the bridge, the box verifies the claim
        with box(league.configs["a1"], db, sock) as runner:
            assert wait_for(lambda: roster_held(db) == [(1, "Anna")], 30), league.logs()
            assert claim(runner, sock, "Anna", "WRONGCODE2") == {
                "ok": False, "reason": WRONG_SECRET.format(name="Anna")}
            assert claim(runner, sock, "anna", "") == {     # a guest's name that is hers
                "ok": False, "reason": NEEDS_SECRET.format(name="Anna")}
            seated = claim(runner, sock, "anna", code.lower())
            assert seated["ok"] and seated["player"] == "Anna", seated
            play_game(runner)
            assert wait_for(lambda: league_seats(league, 1) is not None, 60), league.logs()
            assert league_seats(league, 1) == [
                {"seat": 0, "name": "Anna", "league": {"player": 1, "verified": True}},
                {"seat": 1, "name": "P2"}]

            # a game naming Anna that the box did not verify (a box of an older version,
            # or a name chosen on a box that had not received the roster yet): kept aside
            forged = message_of(db, "a1", 1, game=1000, seats=[
                {"seat": 0, "name": "Anna"}, {"seat": 1, "name": "P2"}])
            reason = publish_as(league.pubs["pubA"], "a1", "a1-pw", "shutbox/a1/game", forged)
            assert not reason.is_failure

            def aside() -> list[tuple]:
                return pg.query("SELECT box, game, reason FROM set_aside")
            assert wait_for(lambda: aside() == [("a1", 1000, "unverified league name")], 30)
            assert pg.query("SELECT count(*) FROM games WHERE game = 1000") == [(0,)]
            status = {row["box"]: row for row in league_status(pg.dsn)}
            assert status["a1"]["set_aside"] == 1
            text = league_cli("status", "--dsn", pg.dsn).stdout
            assert "unverified league name (game 1000)" in text

            # the pub cut off from the league: its broker is there, the league's is not
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
            assert wait_for(lambda: league_seats(league, 2) is not None, 60), league.logs()
        assert league_seats(league, 2) == [
            {"seat": 0, "name": "Anna", "league": {"player": 1, "verified": True}},
            {"seat": 1, "name": "P2"}]
        assert [r for r in pg.query("SELECT reason FROM set_aside")] == [
            ("unverified league name",)]
    assert json.loads(json.dumps(roster_held(db))) == [[1, "Anna"]]
