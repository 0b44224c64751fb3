"""``shutbox-hw league``'s mistakes in one line, and migrate/status on a real PostgreSQL
(a cluster as nobody, tests/league/league_parts.py)."""

from __future__ import annotations

import json
import subprocess

import pytest
from league_parts import CHECKOUT, SB, Postgres, need_parts


def league(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SB, "league", *args], capture_output=True, text=True,
                          timeout=60, cwd=CHECKOUT)


@pytest.mark.parametrize("args, words, code", [
    (["status", "--dsn", "nosuchoption=1"], "--dsn is not a connection string", 2),
    (["status", "--dsn", "host=/nonexistent"], "cannot reach the league's database", 75),
    (["ingest", "--dsn", "host=/nonexistent"], "league ingest needs --mqtt URL", 2),
    (["ingest", "--dsn", "x", "--mqtt", "http://a"], "--mqtt:", 2),
    (["migrate", "--dsn", "x", "--json"], "--json goes with league status", 2),
    (["status", "--dsn", "x", "--mqtt", "mqtt://a"], "--mqtt go(es) with league ingest", 2),
    (["ingest", "--dsn", "x", "--mqtt", "mqtt://a", "--grace", "-1"],
     "expected seconds 0..86400", 2),
])
def test_mistakes_are_one_line(args, words, code):
    pytest.importorskip("psycopg")
    out = league(*args)
    assert out.returncode == code, out.stderr
    assert words in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.league
@pytest.mark.other_user
def test_migrate_once_and_status_of_an_empty_league():
    need_parts()
    pg = Postgres()
    try:
        pg.start()
        refused = league("status", "--dsn", pg.dsn)
        assert refused.returncode == 2
        assert "run shutbox-hw league migrate --dsn DSN first" in refused.stderr
        first, again = league("migrate", "--dsn", pg.dsn), league("migrate", "--dsn", pg.dsn)
        assert first.stdout == "league schema 1 (was 0)\n"
        assert again.stdout == "league schema 1 (already)\n"
        assert league("status", "--dsn", pg.dsn).stdout == "no box has reported yet\n"
        assert league("status", "--dsn", pg.dsn, "--json").stdout == ""
        pg.query("INSERT INTO boxes (box) VALUES ('bar')")
        pg.query("INSERT INTO epochs (box, epoch, latest) VALUES ('bar', 'e1', 3)")
        pg.query("INSERT INTO missing (box, epoch, game, asks) VALUES ('bar', 'e1', 2, 1)")
        row, = map(json.loads, league("status", "--dsn", pg.dsn, "--json").stdout.splitlines())
        assert {k: row[k] for k in ("box", "epoch", "games", "latest", "missing")} == {
            "box": "bar", "epoch": "e1", "games": 0, "latest": 3, "missing": [2]}
        assert set(row) >= {"last_seen", "first_seen", "set_aside", "asked"}
        text = league("status", "--dsn", pg.dsn).stdout
        assert text.startswith("bar epoch e1: 0 game(s) held, latest 3, missing 1 (2)")
        # a league newer than this shutbox-hw is refused, not touched
        pg.query("UPDATE league_schema SET version = 99")
        newer = league("migrate", "--dsn", pg.dsn)
        assert newer.returncode == 2 and "newer than this shutbox-hw's" in newer.stderr
    finally:
        pg.destroy()
