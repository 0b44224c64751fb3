"""``shutbox-hw league``'s mistakes in one line, and migrate/status on a real PostgreSQL
(a cluster as nobody, tests/league/league_parts.py)."""

from __future__ import annotations

import json
import subprocess

import pytest
from league_parts import CHECKOUT, SB, Postgres, need_parts

from shutbox_hw.league.schema import VERSION


def league(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SB, "league", *args], capture_output=True, text=True,
                          timeout=60, cwd=CHECKOUT)


@pytest.mark.parametrize("args, words, code", [
    (["status", "--dsn", "nosuchoption=1"], "--dsn is not a connection string", 2),
    (["status", "--dsn", "host=/nonexistent"], "cannot reach the league's database", 75),
    (["ingest", "--dsn", "host=/nonexistent"], "league ingest needs --mqtt URL", 2),
    (["ingest", "--dsn", "x", "--mqtt", "http://a"], "--mqtt:", 2),
    (["migrate", "--dsn", "x", "--json"],
     "--json goes with league status, season, standings, rebuild or flags", 2),
    (["ratings", "--dsn", "nosuchoption=1"], "--dsn is not a connection string", 2),
    (["rebuild", "--dsn", "host=/nonexistent"], "cannot reach the league's database", 75),
    (["rebuild", "--dsn", "x", "--band-games", "3"], "--band-games go(es) with league season",
     2),
    (["season", "--dsn", "x", "--name", "w", "--from", "2026-12-01", "--to", "2027-01-01",
      "--band-games", "many"], "expected a number of games 1..10000", 2),
    (["season", "--dsn", "x", "--name", "w", "--from", "2026-13-01", "--to", "2027-01-01"],
     "expected a date YYYY-MM-DD", 2),
    (["season", "--dsn", "x", "--name", "w", "--to", "2027-01-01"],
     "league season needs --from", 2),
    (["season", "--dsn", "x", "--name", "w", "--from", "2026-12-01", "--to", "2027-01-01",
      "--min-games", "0"], "expected a number of games 1..10000", 2),
    (["standings", "--dsn", "x", "--name", "w"], "--name go(es) with league season", 2),
    (["status", "--dsn", "x", "--season", "w"], "--season goes with league standings", 2),
    (["standings", "--dsn", "x", "--venue", "A", "--venue", "B"],
     "league standings takes one --venue", 2),
    (["standings", "--dsn", "nosuchoption=1"], "--dsn is not a connection string", 2),
    (["standings", "--dsn", "host=/nonexistent"], "cannot reach the league's database", 75),
    (["status", "--dsn", "x", "--mqtt", "mqtt://a"], "--mqtt go(es) with league ingest", 2),
    (["ingest", "--dsn", "x", "--mqtt", "mqtt://a", "--grace", "-1"],
     "expected seconds 0..86400", 2),
    (["ingest", "--dsn", "x", "--mqtt", "mqtt://a", "--retry-max", "soon"],
     "expected seconds 0..86400", 2),
    (["web", "--dsn", "x", "--listen", "nope"], "--listen: expected host:port", 2),
    (["web", "--dsn", "host=/nonexistent", "--listen", "127.0.0.1:1"],
     "cannot reach the league's database", 75),
    (["status", "--dsn", "x", "--listen", "127.0.0.1:1"], "--listen go(es) with league web", 2),
    (["status", "--dsn", "x", "--host", "a"], "--host go(es) with league web", 2),
    (["standings", "--dsn", "x", "--checked-dice"],
     "--checked-dice goes with league season, not standings", 2),
    (["flags", "--dsn", "x", "--clear", "1", "--exclude", "2"],
     "league flags takes one decision at a time", 2),
    (["flags", "--dsn", "x", "--clear", "0"], "expected a flag's number", 2),
    (["flags", "--dsn", "host=/nonexistent"], "cannot reach the league's database", 75),
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
        assert first.stdout == f"league schema {VERSION} (was 0)\n"
        assert again.stdout == f"league schema {VERSION} (already)\n"
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


@pytest.mark.league
@pytest.mark.other_user
def test_migrate_upgrades_a_league_of_schema_1_and_seasons_are_checked():
    import psycopg

    from shutbox_hw.league.schema import STEPS
    need_parts()
    pg = Postgres()
    try:
        pg.start()
        with psycopg.connect(pg.dsn, autocommit=True) as conn:   # a league made by schema 1
            for statement in STEPS[1]:
                conn.execute(statement)
            conn.execute("CREATE TABLE league_schema (version integer NOT NULL)")
            conn.execute("INSERT INTO league_schema VALUES (1)")
            conn.execute("INSERT INTO boxes (box, venue) VALUES ('bar', 'Crown')")
        old = league("season", "--dsn", pg.dsn, "--name", "w", "--from", "2026-12-01",
                     "--to", "2027-02-28")
        assert old.returncode == 2 and "run shutbox-hw league migrate" in old.stderr
        assert league("migrate", "--dsn", pg.dsn).stdout == \
            f"league schema {VERSION} (was 1)\n"
        assert pg.query("SELECT box, venue FROM boxes") == [("bar", "Crown")]   # kept
        nothing = league("standings", "--dsn", pg.dsn)
        assert nothing.returncode == 2 and "no season has started yet" in nothing.stderr
        made = league("season", "--dsn", pg.dsn, "--name", "Winter 26", "--from",
                      "2026-12-01", "--to", "2027-02-28", "--rules", "crafthouse-12",
                      "--venue", "Crown", "--venue", "Anchor", "--json")
        assert made.returncode == 0, made.stderr
        assert json.loads(made.stdout) == {
            "season": "Winter 26", "from": "2026-12-01", "to": "2027-02-28",
            "rules": ["crafthouse-12"], "venues": ["Crown", "Anchor"], "min_games": 3,
            "band_games": 10, "checked_dice": False}
        for args, words in [
                (["--name", "Winter 26", "--from", "2026-12-01", "--to", "2027-01-01"],
                 "a season named 'Winter 26' exists already"),
                (["--name", "back", "--from", "2027-01-02", "--to", "2027-01-01"],
                 "--to 2027-01-01 is before --from 2027-01-02"),
                (["--name", " ", "--from", "2027-01-01", "--to", "2027-01-01"],
                 "--name must not be empty")]:
            out = league("season", "--dsn", pg.dsn, *args)
            assert out.returncode == 2 and words in out.stderr, out.stderr
            assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
        unknown = league("standings", "--dsn", pg.dsn, "--season", "Summer")
        assert unknown.returncode == 2 and len(unknown.stderr.splitlines()) == 1
        assert "no season named 'Summer' (known: Winter 26)" in unknown.stderr
        empty = league("standings", "--dsn", pg.dsn, "--season", "Winter 26")
        assert empty.stdout.splitlines()[-1] == "nobody is ranked yet"
        assert league("standings", "--dsn", pg.dsn, "--season", "Winter 26",
                      "--json").stdout == ""
        assert pg.query("SELECT count(*) FROM seasons") == [(1,)]
    finally:
        pg.destroy()


def test_the_pauses_while_postgresql_is_away_grow_to_the_ceiling():
    from shutbox_hw.league.ingest import backoff
    assert [backoff(n, 10) for n in range(7)] == [0.5, 1, 2, 5, 10, 10, 10]   # the default
    assert [backoff(n, 1.5) for n in range(4)] == [0.5, 1, 1.5, 1.5]         # --retry-max 1.5
    assert backoff(3, 0) == 0.1      # --retry-max 0: still a pause, never a busy loop


def test_the_gap_round_runs_every_10_s_or_every_grace_period_if_shorter():
    from shutbox_hw.league.ingest import Options, gap_round_s
    assert gap_round_s(Options(dsn="", mqtt="", grace_s=60)) == 10
    assert gap_round_s(Options(dsn="", mqtt="", grace_s=2)) == 2
    assert gap_round_s(Options(dsn="", mqtt="", grace_s=0)) == 0.5
