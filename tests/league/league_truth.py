"""The league tests' truth: figures computed from each box's own SQLite record (its
tables read directly, not through the league's code or the box's game message), as
docs/network/league.md defines them, and the helpers that play the boxes' games
(named seats, scripted games, the box's own rater). Moved out of
test_league_standings.py so that every league test compares with the same truth."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import statistics
import unicodedata
from collections import Counter
from pathlib import Path

from forked import sb_run
from league_parts import PRACTICE

VENUES = {"a1": "Crown", "a2": "Crown", "b1": "Anchor"}


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
    out = sb_run(["sim", "--publish", "--config", str(config), "--db", str(db),
                  "--script", str(script)], timeout=120)   # a process: league_parts.play says why
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
          venues: set[str] | None, min_games: int, venue: str | None = None,
          where_of: dict[str, str] | None = None) -> list[dict]:
    """The standings from the boxes' own tables, as docs/network/league.md defines them
    (``where_of``: each box's venue, default :data:`VENUES`)."""
    players: dict[str, dict] = {}
    spellings: dict[str, Counter] = {}
    for box, db in dbs.items():
        where = (where_of or VENUES)[box]
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


