"""Seasons and standings against the real parts (issue 41, item 2 and item 5's command):
boxes played by ``shutbox-hw sim --publish`` at two venues through bridged brokers into
the league, their moves rated on the boxes and resent, then ``league standings --json``
compared with a truth computed from each box's own SQLite record (league_truth.py: its
tables read directly, not through the league's code or the box's game message)."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

import pytest
from cli_inprocess import run_cli
from forked import sb_run
from league_parts import CHECKOUT, PRACTICE, Answering, all_in, publish_as
from league_setup import league_fixture  # noqa: F401 (the fixture "league")
from league_truth import (
    VENUES,
    key,
    luck_truth,
    named,
    play_script,
    rated_on_the_box,
    ratings_truth,
    slip,
    swapped,
    truth,
)
from loopback import wait_for

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]

# the seats' names on each box (b1's staff type them differently)
NAMES = {"a1": ["Anna", "Ben"], "a2": ["Ben", "Cleo"], "b1": ["ANNA", "Bén"]}

RATING_FIELDS = ("rating", "mu", "sigma", "rating_games", "band", "band_accuracy",
                 "accuracy_games", "luck", "luck_turns")


def rebuild(dsn: str) -> tuple[int, dict]:
    out = run_cli("league", "rebuild", "--dsn", dsn, "--json", cwd=CHECKOUT)
    assert out.returncode in (0, 1), out.stderr
    return out.returncode, json.loads(out.stdout)


def standings(dsn: str, *args: str) -> list[dict]:
    out = run_cli("league", "standings", "--dsn", dsn, "--json", *args, cwd=CHECKOUT)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_standings_equal_the_boxes_own_records(league, tmp_path):
    swap, slipped = swapped(tmp_path), slip(tmp_path)
    dbs = {box: league.db(box) for box in league.configs}
    configs = {box: named(league.configs[box], NAMES[box], tmp_path) for box in NAMES}
    # the Crown: a1 Ben wins two, Anna one, then two unnamed seats play; a2 Ben wins one,
    # Cleo one (Ben slips); the Anchor: b1 "Bén" and "ANNA" one each, then a casual game
    # under other rules (klappenspiel) that Winter leaves out
    for box, plays in (("a1", [PRACTICE, PRACTICE, swap]), ("a2", [swap, slipped]),
                       ("b1", [PRACTICE, swap])):
        for script in plays:
            play_script(configs[box], dbs[box], script)
    play_script(league.configs["a1"], dbs["a1"], PRACTICE)
    casual = tmp_path / "b1-casual.toml"
    casual.write_text(configs["b1"].read_text().replace(
        'preset = "crafthouse-12"\nmatch = "single-round"', 'preset = "klappenspiel"\n'
        "threshold = 10"))
    play_script(casual, dbs["b1"], CHECKOUT / "tests" / "scripts" /
                "two-player-klappenspiel.txt")
    assert all_in(league.pg, {b: [p] for b, p in dbs.items()}, 60), league.logs()
    # the boxes rate the moves after the games; asked again, they resend them rated
    rated = {box: rated_on_the_box(db) for box, db in dbs.items()}
    assert all(rated.values()), rated

    def league_rated() -> dict[str, int]:
        return dict(league.pg.query("SELECT box, sum(jsonb_array_length(ratings))::int"
                                    " FROM games GROUP BY box"))
    with Answering(league.configs, dbs):
        def resent() -> bool:
            for box, db in dbs.items():
                with sqlite3.connect(db) as con:
                    ids = [g for g, in con.execute("SELECT id FROM games")]
                assert not publish_as(league.central, "league", "league-secret",
                                      f"shutbox/{box}/resend",
                                      json.dumps(ids).encode()).is_failure
            return wait_for(lambda: league_rated() == rated, 3)
        assert wait_for(resent, 60), (league_rated(), rated, league.logs())
    # the organiser says where the boxes stand
    for box, venue in VENUES.items():
        league.pg.query("UPDATE boxes SET venue = %s WHERE box = %s", venue, box)
    days = sorted(dt.datetime.fromtimestamp(at, dt.UTC).date()
                  for at, in league.pg.query("SELECT ended_at FROM games"))
    starts, ends = days[0] - dt.timedelta(days=1), days[-1] + dt.timedelta(days=1)
    for args in (["--name", "Winter", "--rules", "crafthouse-12", "--min-games", "2",
                  "--band-games", "2"],
                 ["--name", "Crown cup", "--venue", "Crown", "--min-games", "1"],
                 ["--name", "Gone", "--min-games", "1"]):
        extra = (["--from", str(starts), "--to", str(ends)] if args[1] != "Gone" else
                 ["--from", str(starts - dt.timedelta(days=30)),
                  "--to", str(starts - dt.timedelta(days=1))])
        made = sb_run(["league", "season", "--dsn", league.pg.dsn, *args,
                       *extra], timeout=60)
        assert made.returncode == 0, made.stderr

    def without_season(rows: list[dict]) -> list[dict]:
        assert all(row.pop("season") for row in rows)
        for row in rows:
            for name in RATING_FIELDS:
                row.pop(name, None)
        return rows
    dsn = league.pg.dsn
    winter = truth(dbs, starts, ends, {"crafthouse-12"}, None, 2)
    # what the games hold, so the comparison below means something: three players win,
    # spellings are merged, the casual and unnamed games are left out, every move rated,
    # one of them a slip
    assert [(r["player"], r["games"], r["wins"], r["points"], r["rank"]) for r in winter] \
        == [("Ben", 7, 4, 12, 1), ("Anna", 5, 2, 6, 2), ("Cleo", 2, 1, 3, 3)]
    assert 0 < winter[0]["accuracy"] < 100 and winter[1]["accuracy"] == 100.0
    shown = standings(dsn, "--season", "Winter")
    # the two ratings beside the standings, equal to the truth; every one banded
    rated = ratings_truth(dbs, starts, ends, {"crafthouse-12"}, 2)
    lucky = luck_truth(dbs, {(box, g) for box, db in dbs.items() for g, ended, rules in
                             sqlite3.connect(db).execute(
                                 "SELECT id, ended_at, rules FROM games WHERE ended_at IS NOT"
                                 " NULL AND abandoned = 0")
                             if starts <= dt.datetime.fromtimestamp(ended, dt.UTC).date()
                             <= ends and json.loads(rules)["preset"] == "crafthouse-12"})
    for row in shown:      # the luck: equal to the truth but for the box's rounding
        total, turns = lucky[key(row["player"])]
        assert abs(row.pop("luck") - total) < 0.011 and row.pop("luck_turns") == turns, \
            (row, total, turns)
    assert {r["player"]: {k: r[k] for k in RATING_FIELDS[:-2]} for r in shown} == {
        r["player"]: rated[key(r["player"])] for r in winter}
    assert [(r["player"], r["rating_games"], r["band"]) for r in shown] == [
        ("Ben", 7, "A"), ("Anna", 5, "A"), ("Cleo", 2, "A")], shown
    assert without_season(shown) == winter
    anchor = truth(dbs, starts, ends, {"crafthouse-12"}, None, 2, venue="Anchor")
    assert [(r["player"], r["points"], r["rank"]) for r in anchor] == [
        ("ANNA", 3, 1), ("Bén", 3, 1)]       # equal on every tie-break: one rank shared
    assert without_season(standings(dsn, "--season", "Winter", "--venue", "Anchor")) == \
        anchor
    crown = truth(dbs, starts, ends, None, {"Crown"}, 1)
    assert [(r["player"], r["games"], r["rank"]) for r in crown] == [
        ("Ben", 5, 1), ("Anna", 3, 2), ("Cleo", 2, 2)]
    assert without_season(standings(dsn, "--season", "Crown cup")) == crown
    assert without_season(standings(dsn)) == crown     # running today, and made last
    assert standings(dsn, "--season", "Gone") == []
    # and the plain table has a line per ranked player
    table = sb_run(["league", "standings", "--dsn", dsn, "--season", "Winter"], timeout=60)
    lines = table.stdout.splitlines()
    assert lines[0].startswith("season Winter") and len(lines) == 2 + len(winter)
    assert [line.split()[1] for line in lines[2:]] == [r["player"] for r in winter]
    # kept equals rebuilt; a kept value changed behind the league's back is found, and
    # league ratings keeps the rebuilt values again
    # nine finished games; ratings: Winter and Crown cup, three players each; standings:
    # Winter 3 + Crown 3 + Anchor 2, Crown cup 3 + Crown 3; luck: two players in each
    # of the eight named games
    assert rebuild(dsn) == (0, {"equal": True, "games": 9, "ratings": 6,
                                "standings": 14, "luck": 16,
                                "differences": []})
    # (the ingests still run, and a late resend they write starts a refresh that would put
    # the value back between the two rebuilds: the refresh's own lock is held meanwhile)
    import psycopg

    from shutbox_hw.league.ratings import REFRESH_LOCK
    with psycopg.connect(dsn, autocommit=True) as held:
        held.execute("SELECT pg_advisory_lock(%s)", (REFRESH_LOCK,))
        league.pg.query("UPDATE kept_ratings SET mu = mu + 1 WHERE player = 'anna'"
                        " AND season = 'Winter'")
        code, found = rebuild(dsn)
        assert code == 1 and [(d["season"], d["player"], d["field"]) for d in found[
            "differences"]] == [("Winter", "anna", "mu")]
        assert found["differences"][0]["kept"] == rated["anna"]["mu"] + 1
        text = sb_run(["league", "rebuild", "--dsn", dsn], timeout=60)
        assert text.returncode == 1 and text.stdout.splitlines()[0] == (
            f"ratings season 'Winter' player 'anna': mu kept {rated['anna']['mu'] + 1}, "
            f"rebuilt {rated['anna']['mu']}"), text.stdout
        assert "1 difference(s) from what was kept" in text.stdout
        held.execute("SELECT pg_advisory_unlock(%s)", (REFRESH_LOCK,))
    kept = sb_run(["league", "ratings", "--dsn", dsn], timeout=60)
    assert kept.returncode == 0 and "from 9 finished game(s)" in kept.stdout, kept.stderr
    assert rebuild(dsn)[0] == 0
    # a game arriving after the seasons were made (the box on, answering the league's
    # requests as between games): the ingest keeps the values current
    with Answering({"a2": configs["a2"]}, {"a2": dbs["a2"]}):
        play_script(configs["a2"], dbs["a2"], swap)
        assert wait_for(lambda: rebuild(dsn) == (0, {
            "equal": True, "games": 10, "ratings": 6, "standings": 14, "luck": 18,
            "differences": []}), 60), (rebuild(dsn), league.logs())
