"""Each player's statistics and the high scores worked out again from a database's
rows (for the tests).

Written apart from the store on purpose: plain Python over the games, seats and
turns (never the statistics tables), by the rules the README gives: a game
counts once played to its end (not stopped); a win is the player's name among
its winners; a run of wins is broken by any other finished game of theirs; every
ended, scored turn counts (stopped games' too); the best turn is the lowest
score; a window (tonight, this week) holds the games *started* in it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from recount import _preset

from shutbox_hw.players.names import name_key


def truth(db: sqlite3.Connection, since: float | None = None) -> dict[str, dict[str, Any]]:
    """Per player (by the roster's name): the figures ``players --json`` gives,
    over the games started at or after ``since`` (all of them: None)."""
    names = dict(db.execute("SELECT id, name FROM roster"))
    games = {gid: (rules, winners, ended, abandoned, started) for
             gid, rules, winners, ended, abandoned, started in db.execute(
                 "SELECT id, rules, winners, ended_at, abandoned, started_at FROM games")}
    seats: dict[tuple[int, int], int] = {}
    in_game: dict[int, dict[int, list[str]]] = {}
    for gid, seat, name, pid in db.execute("SELECT game_id, seat, name, player_id FROM players"):
        if pid is None or (since is not None and games[gid][4] < since):
            continue
        seats[(gid, seat)] = pid
        in_game.setdefault(gid, {}).setdefault(pid, []).append(name)
    out: dict[str, dict[str, Any]] = {}

    def of(pid: int) -> dict[str, Any]:
        return out.setdefault(names[pid], {
            "games": 0, "wins": 0, "turns": 0, "score_sum": 0, "boxes_shut": 0,
            "best_turn": None, "streak": 0, "best_streak": 0, "rules": {}})
    for pid in names:
        if since is None:
            of(pid)
    for gid in sorted(in_game):
        rules, winners, ended, abandoned, _ = games[gid]
        if ended is None or abandoned:
            continue
        won_names = set(json.loads(winners or "[]"))
        for pid, seat_names in in_game[gid].items():
            p = of(pid)
            won = any(n in won_names for n in seat_names)
            p["games"] += 1
            p["wins"] += won
            p["streak"] = p["streak"] + 1 if won else 0
            p["best_streak"] = max(p["best_streak"], p["streak"])
            r = p["rules"].setdefault(_preset(rules), {"games": 0, "turns": 0, "score_sum": 0})
            r["games"] += 1
    for gid, seat, ended, score, shut in db.execute(
            "SELECT game_id, seat, ended_at, score, shut FROM turns ORDER BY id"):
        pid = seats.get((gid, seat))
        if pid is None or ended is None or score is None:
            continue
        p = of(pid)
        p["turns"] += 1
        p["score_sum"] += score
        p["boxes_shut"] += bool(shut)
        p["best_turn"] = score if p["best_turn"] is None else min(p["best_turn"], score)
        r = p["rules"].setdefault(_preset(games[gid][0]),
                                  {"games": 0, "turns": 0, "score_sum": 0})
        r["turns"] += 1
        r["score_sum"] += score
    return out


def high_scores(db: sqlite3.Connection, since: float | None, top: int) -> dict[str, list]:
    """The tables as ``(name, value)`` lists, best first, ties by the name's key:
    best turn (lowest), boxes shut, most wins (players with none left out)."""
    figures = truth(db, since)

    def best(key: str, low: bool) -> list[tuple[str, int]]:
        rows = [(n, f[key]) for n, f in figures.items() if f[key]]
        if low:
            rows = [(n, f[key]) for n, f in figures.items() if f[key] is not None]
        rows.sort(key=lambda r: ((r[1] if low else -r[1]), name_key(r[0])))
        return rows[:top]
    return {"best_turn": best("best_turn", True), "boxes_shut": best("boxes_shut", False),
            "wins": best("wins", False)}


def accuracy(db: sqlite3.Connection, since: float | None = None) -> dict[str, tuple[int, float]]:
    """Per player: (games with a rated move, percentage of best moves, one decimal)
    over the games started since ``since``, worked out from the record's own throws
    by the brute force of ``tests/skill/rating_truth.py`` (never the rater's figures):
    the turns the rater has reached so far (``turn_ratings`` says which, not what),
    each of its throws whose dice the box knew; players without a move left out."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent / "skill"))
    from recorded import expected
    names = dict(db.execute("SELECT id, name FROM roster"))
    reached = {turn for turn, in db.execute("SELECT turn_id FROM turn_ratings")}
    games: dict[int, set[int]] = {}
    tally: dict[int, list[int]] = {}
    for pid, gid, started, rules, turn in db.execute(
            "SELECT p.player_id, t.game_id, g.started_at, g.rules, t.id FROM turns t"
            " JOIN games g ON g.id = t.game_id"
            " JOIN players p ON p.game_id = t.game_id AND p.seat = t.seat"
            " WHERE t.ended_at IS NOT NULL"):
        if pid is None or turn not in reached or (since is not None and started < since):
            continue
        throws = [(tuple(json.loads(dice)), json.loads(closed) if closed else None)
                  for dice, closed in db.execute(
                      "SELECT dice, closed FROM throws WHERE turn_id = ? ORDER BY number",
                      (turn,)) if dice]
        moves, best, _ = expected(throws, json.loads(rules)["preset"])
        if not moves:
            continue
        games.setdefault(pid, set()).add(gid)
        t = tally.setdefault(pid, [0, 0])
        t[0] += moves
        t[1] += best
    return {names[pid]: (len(games[pid]), round(100 * best / moves, 1))
            for pid, (moves, best) in tally.items() if moves}


def accuracy_table(db: sqlite3.Connection, since: float | None, top: int,
                   least_games: int) -> list[tuple[str, float]]:
    rows = [(n, pct) for n, (g, pct) in accuracy(db, since).items() if g >= least_games]
    rows.sort(key=lambda r: (-r[1], name_key(r[0])))
    return rows[:top]
