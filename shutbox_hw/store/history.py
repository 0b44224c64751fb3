"""Reading the record back: recent games and one game's scorecard."""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def recent_games(db: sqlite3.Connection, limit: int = 20) -> list[dict[str, Any]]:
    """Newest first: players, winners, totals and boxes shut per game."""
    games = []
    for game_id, started, ended, rules, winners, abandoned in db.execute(
            "SELECT id, started_at, ended_at, rules, winners, abandoned FROM games"
            " ORDER BY id DESC LIMIT ?", (limit,)):
        players = [n for n, in db.execute(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
        totals = {p: 0 for p in players}
        shut = {p: 0 for p in players}
        for name, final, raw, was_shut in db.execute(
                "SELECT p.name, t.final_score, t.score, t.shut FROM turns t JOIN players p"
                " ON p.game_id = t.game_id AND p.seat = t.seat WHERE t.game_id = ?"
                " AND t.ended_at IS NOT NULL", (game_id,)):
            totals[name] += final if final is not None else 0
            shut[name] += was_shut or 0
        rounds, = db.execute("SELECT COUNT(*) FROM rounds WHERE game_id = ?",
                             (game_id,)).fetchone()
        games.append({
            "id": game_id, "started_at": started, "ended_at": ended,
            "preset": json.loads(rules).get("preset"), "players": players,
            "winners": json.loads(winners) if winners else [],
            "finished": ended is not None and not abandoned, "abandoned": bool(abandoned),
            "rounds": rounds, "totals": totals, "boxes_shut": shut})
    return games


def scorecard(db: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    """Seed 001's scorecard: per round and player, raw, final and running total."""
    row = db.execute("SELECT rules, winners, started_at, ended_at, abandoned FROM games"
                     " WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return None
    rules, winners, started, ended, abandoned = row
    players = [n for n, in db.execute(
        "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
    rounds = []
    running = {p: 0 for p in players}
    for number, result_json in db.execute(
            "SELECT number, result FROM rounds WHERE game_id = ? ORDER BY number", (game_id,)):
        result = json.loads(result_json)
        entries = {}
        for name in players:
            if name in result["scores"]:
                running[name] += result["scores"][name]
                entries[name] = {"raw": result["raw"][name], "final": result["scores"][name],
                                 "total": running[name]}
            else:
                entries[name] = {"raw": None, "final": None, "total": running[name]}
        rounds.append({"round": number, "players": entries, "shut": result["shut"],
                       "out": result["out"]})
    throws = []
    for rnd, name, number, dice, closed in db.execute(
            "SELECT t.round, p.name, th.number, th.dice, th.closed FROM throws th"
            " JOIN turns t ON t.id = th.turn_id JOIN players p ON p.game_id = t.game_id"
            " AND p.seat = t.seat WHERE t.game_id = ? ORDER BY t.round, t.id, th.number",
            (game_id,)):
        throws.append({"round": rnd, "player": name, "throw": number,
                       "dice": json.loads(dice) if dice else None,
                       "closed": json.loads(closed) if closed else None})
    rejected, = db.execute(
        "SELECT COUNT(*) FROM rejected_flaps r JOIN turns t ON t.id = r.turn_id"
        " WHERE t.game_id = ?", (game_id,)).fetchone()
    return {"id": game_id, "rules": json.loads(rules), "players": players,
            "winners": json.loads(winners) if winners else [], "started_at": started,
            "ended_at": ended, "abandoned": bool(abandoned), "rounds": rounds,
            "throws": throws, "rejected_flaps": rejected}
