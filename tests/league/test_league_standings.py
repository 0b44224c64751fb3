"""Seasons and standings against the real parts (issue 41, item 2 and item 5's command):
boxes played by ``shutbox-hw sim --publish`` at two venues through bridged brokers into
the league, their moves rated on the boxes and resent, then ``league standings --json``
compared with a truth computed here from each box's own SQLite record (its tables read
directly, not through the league's code or the box's game message)."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import statistics
import subprocess
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from league_parts import CHECKOUT, PRACTICE, SB, Answering, all_in, publish_as
from league_setup import league_fixture  # noqa: F401 (the fixture "league")
from loopback import wait_for

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]

VENUES = {"a1": "Crown", "a2": "Crown", "b1": "Anchor"}
# the seats' names on each box (b1's staff type them differently)
NAMES = {"a1": ["Anna", "Ben"], "a2": ["Ben", "Cleo"], "b1": ["ANNA", "Bén"]}


def named(config: Path, names: list[str], folder: Path) -> Path:
    """The box's config with its seats named."""
    path = folder / f"named-{config.name}"
    path.write_text(config.read_text() + "[game]\nplayer_names = " + json.dumps(names)
                    + "\n")
    return path


def key(name: str) -> str:
    """Case and accents folded (the docs' "as the box's roster compares names", enough
    for the names above)."""
    return "".join(c for c in unicodedata.normalize("NFKD", name.strip().casefold())
                   if not unicodedata.combining(c))


def swapped(folder: Path) -> Path:
    """practice-001 with its two players' turns swapped: P1 wins it instead of P2."""
    lines = PRACTICE.read_text().splitlines()
    start, second = lines.index("start 2"), lines.index("# player B")
    first_turn, second_turn = lines[start + 1:second], lines[second + 2:]
    path = folder / "swapped.txt"
    path.write_text("\n".join(["start 2", *second_turn, "open 1 3 4 5 6 7 8 9 10 11 12",
                               *first_turn]) + "\n")
    return path


def slip(folder: Path) -> Path:
    """practice-001 with P1's turn cut short after a closure the solver rates worse
    than its best (5 and 7 on a double six, not 12): P2 wins, P1's accuracy drops."""
    lines = PRACTICE.read_text().splitlines()
    start, second = lines.index("start 2"), lines.index("# player B")
    path = folder / "slip.txt"
    path.write_text("\n".join(["start 2", "dice 6 6", "roll", "close 5 7", "dice 1 1", "roll",
                               "close 2", "dice 1 1", "roll", "open 2 5 7",
                               *lines[start + 1:second]]) + "\n")
    return path


def play_script(config: Path, db: Path, script: Path) -> None:
    out = run_cli("sim", "--publish", "--config", config, "--db", db, "--script", script,
                  cwd=CHECKOUT)     # in this process: tests/league/league_parts.py's play
    assert out.returncode == 0, out.stderr


def rated_on_the_box(db: Path) -> int:
    """The box's rater over its record (as the box runs it between games): the moves
    rated."""
    from shutbox_hw.skill.rater import InlineRater
    rater = InlineRater(db)
    try:
        rater.wake()
    finally:
        rater.stop()
    assert rater.problem is None
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT count(*) FROM move_ratings").fetchone()[0])


# ------------------------------------------------------------------ the truth

def truth(dbs: dict[str, Path], starts: dt.date, ends: dt.date, rules: set[str] | None,
          venues: set[str] | None, min_games: int, venue: str | None = None) -> list[dict]:
    """The standings from the boxes' own tables, as docs/network/league.md defines them."""
    players: dict[str, dict] = {}
    spellings: dict[str, Counter] = {}
    for box, db in dbs.items():
        where = VENUES[box]
        if (venues and where not in venues) or (venue and where != venue):
            continue
        con = sqlite3.connect(db)
        try:
            for game_id, ended, winners, abandoned, rules_json in con.execute(
                    "SELECT id, ended_at, winners, abandoned, rules FROM games"
                    " WHERE ended_at IS NOT NULL"):
                day = dt.datetime.fromtimestamp(ended, dt.UTC).date()
                if abandoned or not starts <= day <= ends:
                    continue
                if rules and json.loads(rules_json)["preset"] not in rules:
                    continue
                won = {key(w) for w in json.loads(winners or "[]")}
                seats = dict(con.execute("SELECT seat, name FROM players WHERE game_id = ?",
                                         (game_id,)).fetchall())
                for seat, shown in seats.items():
                    if shown in ("P1", "P2"):      # seats nobody named: casual
                        continue
                    name = key(shown)
                    spellings.setdefault(name, Counter())[shown] += 1
                    p = players.setdefault(name, {"games": 0, "wins": 0, "points": 0,
                                                  "scores": [], "shut": 0, "losses": []})
                    p["games"] += 1
                    if name in won:
                        p["wins"] += 1
                        p["points"] += 3 if len(won) == 1 else 1
                    for score, shut in con.execute(
                            "SELECT score, shut FROM turns WHERE game_id = ? AND seat = ?",
                            (game_id, seat)):
                        p["scores"].append(score)
                        p["shut"] += shut == 1
                    p["losses"] += [loss for loss, in con.execute(
                        "SELECT m.loss FROM move_ratings m JOIN throws th ON th.id = m.throw_id"
                        " JOIN turns t ON t.id = th.turn_id WHERE t.game_id = ?"
                        " AND t.seat = ?", (game_id, seat))]
        finally:
            con.close()
    rows = []
    for name, p in players.items():
        if p["games"] < min_games:
            continue
        losses = p["losses"]
        shown = min(spellings[name].items(), key=lambda s: (-s[1], s[0]))[0]
        rows.append({"player": shown, "games": p["games"], "wins": p["wins"],
                     "points": p["points"],
                     "turn_score": round(sum(p["scores"]) / len(p["scores"]), 2),
                     "boxes_shut": p["shut"],
                     "accuracy": round(100 * sum(x == 0 for x in losses) / len(losses), 1)
                     if losses else None, "rated": len(losses)})

    def merit(r: dict) -> tuple:
        return (r["points"], r["wins"], r["boxes_shut"],
                -1 if r["accuracy"] is None else r["accuracy"])
    rows.sort(key=lambda r: r["player"])
    rows.sort(key=merit, reverse=True)
    for row in rows:
        row["rank"] = 1 + sum(merit(other) > merit(row) for other in rows)
    return rows


def ratings_truth(dbs: dict[str, Path], starts: dt.date, ends: dt.date, rules: set[str],
                  band_games: int) -> dict[str, dict]:
    """The season's two ratings from the boxes' own tables, as docs/network/league.md
    defines them: the games in the order (end, box, epoch, game id), a player's rank 1
    among the winners, else 2; openskill's Plackett-Luce itself called here; the band
    from the median of the games' accuracies, never dropping once given."""
    from openskill.models import PlackettLuce
    games = []
    for box, db in dbs.items():
        con = sqlite3.connect(db)
        try:
            epoch, = con.execute("SELECT epoch FROM record WHERE id = 1").fetchone()
            for game_id, ended, winners, abandoned, rules_json in con.execute(
                    "SELECT id, ended_at, winners, abandoned, rules FROM games"
                    " WHERE ended_at IS NOT NULL"):
                day = dt.datetime.fromtimestamp(ended, dt.UTC).date()
                if abandoned or not starts <= day <= ends or \
                        json.loads(rules_json)["preset"] not in rules:
                    continue
                players: dict[str, int] = {}
                for seat, shown in con.execute("SELECT seat, name FROM players WHERE"
                                               " game_id = ? ORDER BY seat", (game_id,)):
                    if shown not in ("P1", "P2"):
                        players.setdefault(key(shown), seat)
                accuracy = {}
                for name, seat in players.items():
                    losses = [loss for loss, in con.execute(
                        "SELECT m.loss FROM move_ratings m JOIN throws th ON th.id ="
                        " m.throw_id JOIN turns t ON t.id = th.turn_id WHERE t.game_id = ?"
                        " AND t.seat = ?", (game_id, seat))]
                    if losses:
                        accuracy[name] = 100 * sum(x == 0 for x in losses) / len(losses)
                won = {key(w) for w in json.loads(winners or "[]")}
                games.append(((ended, box, epoch, game_id), list(players), won, accuracy))
        finally:
            con.close()
    games.sort(key=lambda g: g[0])
    model = PlackettLuce()
    state: dict[str, object] = {}
    out: dict[str, dict] = {}
    for _, players, won, accuracy in games:
        if len(players) >= 2:
            rated = model.rate([[state.get(p) or model.rating()] for p in players],
                               ranks=[1 if p in won else 2 for p in players])
            for p, (after,) in zip(players, rated, strict=True):
                state[p] = after
                mine = out.setdefault(p, {"rating_games": 0, "accs": [], "band": None})
                mine.update(mu=after.mu, sigma=after.sigma,
                            rating=round(after.mu - 3 * after.sigma, 2))
                mine["rating_games"] += 1
        for p, acc in accuracy.items():
            mine = out.setdefault(p, {"rating_games": 0, "accs": [], "band": None})
            mine["accs"].append(acc)
            if len(mine["accs"]) >= band_games:
                m = statistics.median(mine["accs"])
                now = "A" if m >= 90 else "B" if m >= 75 else "C" if m >= 55 else "D"
                mine["band"] = min(now, mine["band"] or "D")     # A < B < C < D
    for mine in out.values():
        accs = mine.pop("accs")
        mine["band_accuracy"] = round(statistics.median(accs), 1) if accs else None
        mine["accuracy_games"] = len(accs)
    return out


RATING_FIELDS = ("rating", "mu", "sigma", "rating_games", "band", "band_accuracy",
                 "accuracy_games", "luck", "luck_turns")


def luck_truth(dbs: dict[str, Path], season_games: set[tuple[str, int]]) -> dict[str, tuple]:
    """Per player, the season's luck and turns from the boxes' own tables, by the docs'
    identity per turn: the solver's expected score from the full board, plus the points
    the player's moves lost (the box's own ratings), minus the score the turn ended with."""
    from shutbox_hw.rules import mask_of, rules_from_dict, turn_score
    from shutbox_hw.strategy.cache import solver_for
    from shutbox_hw.strategy.rating import objective_for
    luck: dict[str, list] = {}
    for box, db in dbs.items():
        con = sqlite3.connect(db)
        try:
            for game_id, rules_json in con.execute("SELECT id, rules FROM games"):
                if (box, game_id) not in season_games:
                    continue
                rules = rules_from_dict(json.loads(rules_json))
                assert objective_for(rules) == "min-score"
                start = float(solver_for(rules).expected_score("min-score", 2 ** 12 - 1))
                names: dict[int, str] = {}
                for seat, shown in con.execute("SELECT seat, name FROM players WHERE"
                                               " game_id = ? ORDER BY seat", (game_id,)):
                    if shown not in ("P1", "P2") and key(shown) not in names.values():
                        names[seat] = key(shown)
                for turn_id, seat, open_tiles in con.execute(
                        "SELECT id, seat, open_tiles FROM turns WHERE game_id = ?",
                        (game_id,)):
                    if seat not in names:
                        continue
                    lost = con.execute("SELECT coalesce(sum(m.loss), 0) FROM move_ratings m"
                                       " JOIN throws th ON th.id = m.throw_id"
                                       " WHERE th.turn_id = ?", (turn_id,)).fetchone()[0]
                    ended = turn_score(rules, mask_of(json.loads(open_tiles)))
                    mine = luck.setdefault(names[seat], [0.0, 0])
                    mine[0] += start + lost - ended
                    mine[1] += 1
        finally:
            con.close()
    return {name: (total, turns) for name, (total, turns) in luck.items()}


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
        made = subprocess.run([*SB, "league", "season", "--dsn", league.pg.dsn, *args,
                               *extra], capture_output=True, text=True, timeout=60,
                              cwd=CHECKOUT)
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
    table = subprocess.run([*SB, "league", "standings", "--dsn", dsn, "--season", "Winter"],
                           capture_output=True, text=True, timeout=60, cwd=CHECKOUT)
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
        text = subprocess.run([*SB, "league", "rebuild", "--dsn", dsn], capture_output=True,
                              text=True, timeout=60, cwd=CHECKOUT)
        assert text.returncode == 1 and text.stdout.splitlines()[0] == (
            f"ratings season 'Winter' player 'anna': mu kept {rated['anna']['mu'] + 1}, "
            f"rebuilt {rated['anna']['mu']}"), text.stdout
        assert "1 difference(s) from what was kept" in text.stdout
        held.execute("SELECT pg_advisory_unlock(%s)", (REFRESH_LOCK,))
    kept = subprocess.run([*SB, "league", "ratings", "--dsn", dsn], capture_output=True,
                          text=True, timeout=60, cwd=CHECKOUT)
    assert kept.returncode == 0 and "from 9 finished game(s)" in kept.stdout, kept.stderr
    assert rebuild(dsn)[0] == 0
    # a game arriving after the seasons were made (the box on, answering the league's
    # requests as between games): the ingest keeps the values current
    with Answering({"a2": configs["a2"]}, {"a2": dbs["a2"]}):
        play_script(configs["a2"], dbs["a2"], swap)
        assert wait_for(lambda: rebuild(dsn) == (0, {
            "equal": True, "games": 10, "ratings": 6, "standings": 14, "luck": 18,
            "differences": []}), 60), (rebuild(dsn), league.logs())
