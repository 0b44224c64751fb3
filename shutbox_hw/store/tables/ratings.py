"""Move accuracy in the record (schema 7): the rater writes, everyone reads.

Tables (statements in :data:`TABLES`, part of schema 7):

- ``move_ratings``: each rated move of a throw (``kind`` closure or dice, the option
  chosen, the best one, the points lost);
- ``turn_ratings``: each rated turn's tally (a turn with no choice has 0 moves);
- ``player_game_ratings``: each player's tally per game, ``player_ratings`` their
  all-time tally (both removed with the player from the roster);
- ``rating_mark``: one row: every turn with ``low <= id < high`` is rated. New turns
  are rated from ``high`` up as they end; the older record below ``low`` is
  backfilled downwards in small batches.

Every read here is a lookup by key, or the last :data:`LAST_GAMES` rows of one
player's index: none grows with the record.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...rules import mask_of, tiles_of
from ...strategy.rating import Rater, Tally

LAST_GAMES = 20

TABLES: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS move_ratings (throw_id INTEGER NOT NULL REFERENCES throws(id),"
    " kind TEXT NOT NULL CHECK (kind IN ('closure', 'dice')), chosen INTEGER NOT NULL,"
    " best INTEGER NOT NULL, loss REAL NOT NULL, PRIMARY KEY (throw_id, kind)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS turn_ratings (turn_id INTEGER PRIMARY KEY REFERENCES turns(id),"
    " objective TEXT NOT NULL, moves INTEGER NOT NULL, best INTEGER NOT NULL,"
    " lost REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS player_game_ratings (player_id INTEGER NOT NULL"
    " REFERENCES roster(id) ON DELETE CASCADE, game_id INTEGER NOT NULL REFERENCES games(id),"
    " moves INTEGER NOT NULL, best INTEGER NOT NULL, lost REAL NOT NULL,"
    " PRIMARY KEY (player_id, game_id)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS player_ratings (player_id INTEGER PRIMARY KEY"
    " REFERENCES roster(id) ON DELETE CASCADE, games INTEGER NOT NULL,"
    " moves INTEGER NOT NULL, best INTEGER NOT NULL, lost REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS rating_mark (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " low INTEGER NOT NULL, high INTEGER NOT NULL)",
)


def start_mark(db: sqlite3.Connection) -> None:
    """The mark for a record that has no ratings yet: everything up to the first turn
    still under way (or the last turn) is the backlog, to be backfilled."""
    db.execute(
        "INSERT OR IGNORE INTO rating_mark (id, low, high) SELECT 1, x, x FROM"
        " (SELECT coalesce((SELECT min(t.id) FROM turns t JOIN games g ON g.id = t.game_id"
        "  WHERE t.ended_at IS NULL AND g.ended_at IS NULL),"
        "  (SELECT coalesce(max(id), 0) + 1 FROM turns)) AS x)")




@dataclass(frozen=True)
class Accuracy:
    """A player's move accuracy: all time, and over their last :data:`LAST_GAMES` games."""

    games: int
    all_time: Tally
    last_games: int
    last: Tally


NOBODY = Accuracy(0, Tally(), 0, Tally())


def player_accuracy(db: sqlite3.Connection, player_id: int) -> Accuracy:
    """The player's accuracy (all zeros before any of their turns is rated)."""
    row = db.execute("SELECT games, moves, best, lost FROM player_ratings WHERE player_id = ?",
                     (player_id,)).fetchone()
    if row is None:
        return NOBODY
    games, moves, best, lost = row
    last = db.execute(
        "SELECT count(*), coalesce(sum(moves), 0), coalesce(sum(best), 0),"
        " coalesce(sum(lost), 0.0) FROM (SELECT moves, best, lost FROM player_game_ratings"
        " WHERE player_id = ? ORDER BY game_id DESC LIMIT ?)",
        (player_id, LAST_GAMES)).fetchone()
    return Accuracy(int(games), Tally(int(moves), int(best), float(lost)),
                    int(last[0]), Tally(int(last[1]), int(last[2]), float(last[3])))


def game_accuracy(db: sqlite3.Connection, player_id: int,
                  limit: int = LAST_GAMES) -> list[tuple[int, Tally]]:
    """The player's tally in each of their last ``limit`` rated games, newest first
    (``(game id, tally)``: skill over time for the players' pages)."""
    return [(int(g), Tally(int(m), int(b), float(lost))) for g, m, b, lost in db.execute(
        "SELECT game_id, moves, best, lost FROM player_game_ratings WHERE player_id = ?"
        " ORDER BY game_id DESC LIMIT ?", (player_id, limit))]


def turn_accuracy(db: sqlite3.Connection, turn_id: int) -> Tally | None:
    """The turn's tally; None while it is not rated (yet, or ever: manual dice still
    give a tally, of 0 moves)."""
    row = db.execute("SELECT moves, best, lost FROM turn_ratings WHERE turn_id = ?",
                     (turn_id,)).fetchone()
    return Tally(int(row[0]), int(row[1]), float(row[2])) if row else None


@dataclass(frozen=True)
class StoredMove:
    throw_number: int
    kind: str
    chosen: int
    best: int
    loss: float


def turn_moves(db: sqlite3.Connection, turn_id: int) -> list[StoredMove]:
    """The rated moves of one turn, by throw (closure before dice within a throw)."""
    return [StoredMove(int(n), kind, int(chosen), int(best), float(loss))
            for n, kind, chosen, best, loss in db.execute(
                "SELECT t.number, m.kind, m.chosen, m.best, m.loss FROM throws t"
                " JOIN move_ratings m ON m.throw_id = t.id WHERE t.turn_id = ?"
                " ORDER BY t.number, m.kind DESC", (turn_id,))]


# -- writing (the rater's own connection) ---------------------------------------------

RaterFor = Callable[[str], Rater | None]
"""The rater for a game's rules (its ``games.rules`` JSON); None when the record's
rules cannot be rated (never will be: the turn is passed); raising when the solver
is not available now (the turn waits for the next attempt)."""


@dataclass(frozen=True)
class _Turn:
    id: int
    game_id: int
    seat: int
    rules: str
    ended: bool


def mark(db: sqlite3.Connection) -> tuple[int, int]:
    """``(low, high)``: the turns ``low <= id < high`` are rated."""
    row = db.execute("SELECT low, high FROM rating_mark WHERE id = 1").fetchone()
    return (int(row[0]), int(row[1])) if row else (1, 1)


_TURNS = ("SELECT t.id, t.game_id, t.seat, g.rules, t.ended_at IS NOT NULL OR"
          " g.ended_at IS NOT NULL FROM turns t JOIN games g ON g.id = t.game_id")


def _turn(row: tuple[int, int, int, str, int]) -> _Turn:
    return _Turn(int(row[0]), int(row[1]), int(row[2]), str(row[3]), bool(row[4]))


def _new_turns(db: sqlite3.Connection, high: int, limit: int) -> list[_Turn]:
    """Turns from ``high`` up that are over (ended, or their game did), up to the
    first still under way."""
    turns = []
    for row in db.execute(f"{_TURNS} WHERE t.id >= ? ORDER BY t.id LIMIT ?", (high, limit)):
        turn = _turn(row)
        if not turn.ended:
            break
        turns.append(turn)
    return turns


def rate_new(db: sqlite3.Connection, rater_for: RaterFor, limit: int = 50) -> int:
    """Rate the turns ended since the last call (at most ``limit``), in one transaction
    with the mark; the number rated."""
    low, high = mark(db)
    turns = _new_turns(db, high, limit)
    if not turns:
        return 0
    return _write(db, turns, rater_for, (low, high), (low, turns[-1].id + 1))


def backfill(db: sqlite3.Connection, rater_for: RaterFor, limit: int = 20) -> int:
    """Rate up to ``limit`` of the older turns below the mark, newest first; the number
    rated (0: the backlog is done). Below the mark no turn is under way: the mark
    started at the first one (:func:`start_mark`)."""
    low, high = mark(db)
    turns = [_turn(row) for row in db.execute(
        f"{_TURNS} WHERE t.id < ? ORDER BY t.id DESC LIMIT ?", (low, limit))]
    if not turns:
        return 0
    return _write(db, turns, rater_for, (low, high), (turns[-1].id, high))


def _write(db: sqlite3.Connection, turns: list[_Turn], rater_for: RaterFor,
           old: tuple[int, int], new: tuple[int, int]) -> int:
    raters = {t.rules: rater_for(t.rules) for t in turns}   # any solving: before the lock
    db.execute("BEGIN IMMEDIATE")
    try:
        if mark(db) != old:
            db.execute("ROLLBACK")   # rated meanwhile by another rater: theirs stands
            return 0
        for turn in turns:
            rater = raters[turn.rules]
            if rater is not None:
                _rate_turn(db, turn, rater)
        db.execute("INSERT OR REPLACE INTO rating_mark (id, low, high) VALUES (1, ?, ?)", new)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return len(turns)


def _mask(closed_json: str | None) -> int | None:
    return mask_of(json.loads(closed_json)) if closed_json is not None else None


def _rate_turn(db: sqlite3.Connection, turn: _Turn, rater: Rater) -> None:
    rows = db.execute("SELECT id, dice, closed FROM throws WHERE turn_id = ? ORDER BY number",
                      (turn.id,)).fetchall()
    rating = rater.rate_turn([(tuple(json.loads(d)) if d else None, _mask(c))
                              for _, d, c in rows])
    for (throw_id, _, _), rated in zip(rows, rating.throws, strict=True):
        db.executemany("INSERT OR REPLACE INTO move_ratings (throw_id, kind, chosen, best, loss)"
                       " VALUES (?, ?, ?, ?, ?)",
                       [(throw_id, m.kind, m.chosen, m.best, m.loss) for m in rated.moves])
    tally = rating.tally
    db.execute("INSERT OR REPLACE INTO turn_ratings (turn_id, objective, moves, best, lost)"
               " VALUES (?, ?, ?, ?, ?)", (turn.id, rating.objective, *_fields(tally)))
    row = db.execute("SELECT player_id FROM players WHERE game_id = ? AND seat = ?",
                     (turn.game_id, turn.seat)).fetchone()
    if row is None or row[0] is None:
        return   # a seat label, or a player removed from the roster
    player = int(row[0])
    new_game = db.execute("SELECT 1 FROM player_game_ratings WHERE player_id = ?"
                          " AND game_id = ?", (player, turn.game_id)).fetchone() is None
    db.execute("INSERT INTO player_game_ratings (player_id, game_id, moves, best, lost)"
               " VALUES (?, ?, ?, ?, ?) ON CONFLICT (player_id, game_id) DO UPDATE SET"
               " moves = moves + excluded.moves, best = best + excluded.best,"
               " lost = lost + excluded.lost", (player, turn.game_id, *_fields(tally)))
    db.execute("INSERT INTO player_ratings (player_id, games, moves, best, lost)"
               " VALUES (?, 1, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET"
               " games = games + ?, moves = moves + excluded.moves,"
               " best = best + excluded.best, lost = lost + excluded.lost",
               (player, *_fields(tally), int(new_game)))


def _fields(tally: Tally) -> tuple[int, int, float]:
    return (tally.moves, tally.best, tally.lost)


# -- one game, for ``history --game`` --------------------------------------------------

def game_ratings(db: sqlite3.Connection, game_id: int,
                 throws: list[dict[str, Any]]) -> dict[str, Any]:
    """Each throw of ``throws`` (the scorecard's: round, player, throw) given its
    rating, in place: ``best`` (the best closure's tiles, or null), ``best_dice`` (the
    best number of dice, or null), ``loss`` (points lost on the throw; null: not rated,
    or manual dice, which are never rated);
    returned: ``accuracy``, per player their rated turns' moves, best moves and points
    lost (a player with no rated turn is left out)."""
    moves: dict[tuple[int, str, int], list[tuple[str, int, float]]] = {}
    rated: set[tuple[int, str]] = set()
    for rnd, name, number, kind, best, loss in db.execute(
            "SELECT t.round, p.name, th.number, m.kind, m.best, m.loss FROM turns t"
            " JOIN players p ON p.game_id = t.game_id AND p.seat = t.seat"
            " JOIN throws th ON th.turn_id = t.id JOIN move_ratings m ON m.throw_id = th.id"
            " WHERE t.game_id = ?", (game_id,)):
        moves.setdefault((rnd, name, number), []).append((kind, best, loss))
    accuracy: dict[str, Tally] = {}
    for rnd, name, count, best, lost in db.execute(
            "SELECT t.round, p.name, r.moves, r.best, r.lost FROM turns t"
            " JOIN players p ON p.game_id = t.game_id AND p.seat = t.seat"
            " JOIN turn_ratings r ON r.turn_id = t.id WHERE t.game_id = ? ORDER BY t.id",
            (game_id,)):
        rated.add((rnd, name))
        accuracy[name] = accuracy.get(name, Tally()) + Tally(count, best, lost)
    for throw in throws:
        found = moves.get((throw["round"], throw["player"], throw["throw"]), [])
        kinds = {kind: best for kind, best, _ in found}
        closure = kinds.get("closure")
        throw["best"] = tiles_of(closure) if closure is not None else None
        throw["best_dice"] = kinds.get("dice")
        throw["loss"] = (sum(loss for _, _, loss in found) if throw["dice"]
                         and (throw["round"], throw["player"]) in rated else None)
    return {"accuracy": {name: {"moves": t.moves, "best": t.best, "lost": t.lost}
                         for name, t in accuracy.items()}}


def last_turn_accuracy(db: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    """The newest rated turn of the game with a choice in it, for the TV: ``player``,
    ``round``, ``best``, ``moves``, ``lost`` (None: none yet, or a record before
    schema 7). Read through the game's turns only."""
    version, = db.execute("PRAGMA user_version").fetchone()
    if version < 7:
        return None
    row = db.execute(
        "SELECT p.name, t.round, r.best, r.moves, r.lost FROM turns t"
        " JOIN turn_ratings r ON r.turn_id = t.id"
        " JOIN players p ON p.game_id = t.game_id AND p.seat = t.seat"
        " WHERE t.game_id = ? AND r.moves > 0 ORDER BY t.id DESC LIMIT 1",
        (game_id,)).fetchone()
    if row is None:
        return None
    name, rnd, best, moves, lost = row
    return {"player": name, "round": int(rnd), "best": int(best), "moves": int(moves),
            "lost": float(lost)}
