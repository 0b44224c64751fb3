"""The high scores: tonight's, this week's and all-time tables of the players.

Four tables per period, each player at most once, the best :data:`TOP` first
(ties by name): ``best_turn`` (the lowest turn score), ``boxes_shut``,
``wins`` and ``accuracy`` (the percentage of best moves, over at least
:data:`ACCURACY_GAMES` games; from the solver's ratings, :mod:`.ratings`: the
solver rates each turn off the box's loop, a little after it ends, and its games
are the player's games with a rated turn). A player with nothing in a table (no
win, no box shut) is not in it.

Tonight is :mod:`.tonight`'s (games *started* in the last 12 hours by the
box's own clock), this week the last 7 days by the same rule. Their tables
read the window's games through the index on ``games.started_at`` and their
turns through the turns' own index: they cost the window's games, never the
record's. The all-time tables read the kept statistics
(:mod:`.player_stats`) through their indexes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ...strategy.rating import Tally
from ..tables.ratings import player_accuracy
from .tonight import tonight_since, week_since

TOP = 5                    # entries a table keeps
ACCURACY_GAMES = 10        # games a player needs before their accuracy is ranked
PERIODS = ("tonight", "week", "all_time")
TABLES = ("best_turn", "boxes_shut", "wins", "accuracy")

Entry = tuple[str, float]    # (the player's name, the figure)


@dataclass(frozen=True)
class Table:
    period: str            # one of PERIODS
    kind: str              # one of TABLES
    entries: tuple[Entry, ...]


def high_scores(db: sqlite3.Connection, now: float) -> list[Table]:
    """Every table of every period (empty ones too), in :data:`PERIODS` then
    :data:`TABLES` order."""
    tables = []
    for period in PERIODS:
        since = {"tonight": tonight_since(now), "week": week_since(now)}.get(period)
        figures = _all_time(db) if since is None else _window(db, since)
        ranked = [(pid, pct) for pid, games, pct in rated(db, since) if games >= ACCURACY_GAMES]
        figures["accuracy"] = _ranked(_names(db, {pid for pid, _ in ranked}), ranked, low=False)
        tables += [Table(period, kind, tuple(figures.get(kind, ()))) for kind in TABLES]
    return tables


def _all_time(db: sqlite3.Connection) -> dict[str, list[Entry]]:
    def best(column: str, order: str, where: str) -> list[Entry]:
        return [(str(n), v) for n, v in db.execute(
            f"SELECT r.name, s.{column} FROM player_stats s JOIN roster r ON r.id = s.player_id"
            f" WHERE {where} ORDER BY s.{column} {order}, r.key LIMIT ?", (TOP,))]
    return {"best_turn": best("best_turn", "", "s.best_turn IS NOT NULL"),
            "boxes_shut": best("boxes_shut", "DESC", "s.boxes_shut > 0"),
            "wins": best("wins", "DESC", "s.wins > 0")}


def _window(db: sqlite3.Connection, since: float) -> dict[str, list[Entry]]:
    """The tables over the games started since ``since`` (CROSS JOIN keeps SQLite to
    the window's games first, then their seats and turns by their indexes)."""
    turns = db.execute(
        "SELECT p.player_id, MIN(t.score), SUM(coalesce(t.shut, 0) != 0) FROM games g"
        " CROSS JOIN players p ON p.game_id = g.id CROSS JOIN turns t ON t.game_id = p.game_id"
        " AND t.seat = p.seat WHERE g.started_at >= ? AND p.player_id IS NOT NULL"
        " AND t.ended_at IS NOT NULL AND t.score IS NOT NULL GROUP BY p.player_id",
        (since,)).fetchall()
    wins = db.execute(
        "SELECT p.player_id, COUNT(DISTINCT g.id) FROM games g CROSS JOIN players p"
        " ON p.game_id = g.id WHERE g.started_at >= ? AND p.player_id IS NOT NULL"
        " AND g.ended_at IS NOT NULL AND NOT g.abandoned AND EXISTS (SELECT 1 FROM"
        " json_each(CASE WHEN json_valid(g.winners) THEN g.winners ELSE '[]' END) w"
        " WHERE w.value = p.name) GROUP BY p.player_id", (since,)).fetchall()
    names = _names(db, {pid for pid, *_ in turns} | {pid for pid, _ in wins})
    return {"best_turn": _ranked(names, [(pid, best) for pid, best, _ in turns], low=True),
            "boxes_shut": _ranked(names, [(pid, shut) for pid, _, shut in turns if shut],
                                  low=False),
            "wins": _ranked(names, wins, low=False)}


def _names(db: sqlite3.Connection, players: set[int]) -> dict[int, tuple[str, str]]:
    """The roster's ``(name, key)`` of each of ``players`` (a window's: a night's, a week's)."""
    if not players:
        return {}
    marks = ",".join("?" * len(players))
    return {int(pid): (str(name), str(key)) for pid, name, key in db.execute(
        f"SELECT id, name, key FROM roster WHERE id IN ({marks})", sorted(players))}


def _ranked(names: dict[int, tuple[str, str]], figures: list[tuple[int, float]], low: bool
            ) -> list[Entry]:
    """The best :data:`TOP` of ``(player id, figure)`` with their names, ties by the
    roster's key (the name with case and accents folded)."""
    rows = [(names[pid], value) for pid, value in figures if pid in names]
    rows.sort(key=lambda r: (r[1] if low else -r[1], r[0][1]))
    return [(name, value) for (name, _), value in rows[:TOP]]


def accuracy_of(db: sqlite3.Connection, player_id: int) -> tuple[float | None, float | None]:
    """A player's percentage of best moves (one decimal), all time and over their last
    :data:`~.ratings.LAST_GAMES` games; None before a rated move (the ratings are
    written off the box's loop, a little after each turn)."""
    rated = player_accuracy(db, player_id)
    return _percent(rated.all_time), _percent(rated.last)


def _percent(tally: Tally) -> float | None:
    percent = tally.percent
    return None if percent is None else round(percent, 1)


def rated(db: sqlite3.Connection, since: float | None) -> list[tuple[int, int, float]]:
    """Each rated player's ``(player id, games rated, percentage of best moves)`` over
    the games started since ``since`` (None: all time, from each player's tally; a
    window: its games' seats looked up in the per-game tallies by their key)."""
    if since is None:
        rows = db.execute("SELECT player_id, games, best, moves FROM player_ratings"
                          " WHERE moves > 0").fetchall()
    else:
        rows = db.execute(
            "SELECT p.player_id, COUNT(DISTINCT g.id), SUM(r.best), SUM(r.moves) FROM games g"
            " CROSS JOIN players p ON p.game_id = g.id CROSS JOIN player_game_ratings r"
            " ON r.player_id = p.player_id AND r.game_id = g.id WHERE g.started_at >= ?"
            " AND p.player_id IS NOT NULL GROUP BY p.player_id HAVING SUM(r.moves) > 0",
            (since,)).fetchall()
    return [(int(pid), int(games), round(100.0 * best / moves, 1))
            for pid, games, best, moves in rows]


def as_json(tables: list[Table]) -> dict[str, dict[str, list[dict[str, object]]]]:
    """``{period: {table: [{"name": ..., "value": ...}, ...]}}`` (the pages' JSON)."""
    out: dict[str, dict[str, list[dict[str, object]]]] = {}
    for t in tables:
        out.setdefault(t.period, {})[t.kind] = [{"name": n, "value": v} for n, v in t.entries]
    return out
