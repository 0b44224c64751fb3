"""Each player's statistics, kept up to date as games are written (schema 7).

A regular's page, ``shutbox-hw players`` and the all-time high scores read a
player's figures from two small tables instead of counting their games, so
they cost the same at 100,000 games as at 10. Each game event adds to them in
the step's own transaction (a tally, :mod:`.tally`, like the audits'
:mod:`.figures`: :data:`PLAYERS` adds a scored turn and a game played to its
end): a power cut leaves rows and figures agreeing. The migration builds them once from the
games already in the record (:func:`rebuild`, plain SQL).

What is counted (the same words as the audits):

- ``games``: games played to their end (not stopped) with the player in a seat;
  ``wins``: those the player won; ``streak``: the wins in a row up to their
  last such game, ``best_streak``: the longest such run ever;
- ``turns``: turns ended with a score (in any game, stopped or not), with
  their ``score_sum``, ``boxes_shut`` (turns that shut the box) and
  ``best_turn`` (the lowest score; ``best_game``: the first game it was made in);
- per rule set (its preset: house rules count under the preset they change),
  the games, turns and score sum: the average turn score per rule set.

Rows are keyed by the roster's id and go with the player when they are
removed from the roster (``ON DELETE CASCADE``). Seat labels (P1..P8) have
no player and no statistics.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from .figures import preset_of
from .finished import finished_sql
from .tally import SCORED, PlayedGame, ScoredTurn

CREATE = (
    "CREATE TABLE IF NOT EXISTS player_stats ("
    " player_id INTEGER NOT NULL PRIMARY KEY REFERENCES roster(id) ON DELETE CASCADE,"
    " games INTEGER NOT NULL DEFAULT 0, wins INTEGER NOT NULL DEFAULT 0,"
    " turns INTEGER NOT NULL DEFAULT 0, score_sum INTEGER NOT NULL DEFAULT 0,"
    " boxes_shut INTEGER NOT NULL DEFAULT 0, best_turn INTEGER, best_game INTEGER,"
    " streak INTEGER NOT NULL DEFAULT 0, best_streak INTEGER NOT NULL DEFAULT 0,"
    " last_game INTEGER)",
    "CREATE TABLE IF NOT EXISTS player_rules ("
    " player_id INTEGER NOT NULL REFERENCES roster(id) ON DELETE CASCADE,"
    " preset TEXT NOT NULL, games INTEGER NOT NULL DEFAULT 0,"
    " turns INTEGER NOT NULL DEFAULT 0, score_sum INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (player_id, preset))",
    # the all-time high scores read the best few through these, not by a sort
    "CREATE INDEX IF NOT EXISTS player_stats_wins ON player_stats (wins)",
    "CREATE INDEX IF NOT EXISTS player_stats_shut ON player_stats (boxes_shut)",
    "CREATE INDEX IF NOT EXISTS player_stats_best ON player_stats (best_turn)",
)

COLUMNS = ("games", "wins", "turns", "score_sum", "boxes_shut", "best_turn", "best_game",
           "streak", "best_streak", "last_game")


@dataclass(frozen=True)
class RulesStats:
    games: int = 0
    turns: int = 0
    score_sum: int = 0

    @property
    def average(self) -> float | None:
        """The average turn score (one decimal), None before a turn."""
        return round(self.score_sum / self.turns, 1) if self.turns else None


@dataclass(frozen=True)
class PlayerStats:
    """One player's kept figures (all zero for a player with no turn yet)."""
    player_id: int
    name: str
    games: int = 0
    wins: int = 0
    turns: int = 0
    score_sum: int = 0
    boxes_shut: int = 0
    best_turn: int | None = None
    best_game: int | None = None
    streak: int = 0
    best_streak: int = 0
    last_game: int | None = None
    rules: dict[str, RulesStats] = field(default_factory=dict)

    @property
    def win_rate(self) -> float | None:
        """Wins in percent of games (one decimal), None before a game."""
        return round(100 * self.wins / self.games, 1) if self.games else None

    @property
    def average(self) -> float | None:
        return round(self.score_sum / self.turns, 1) if self.turns else None


# ---------------------------------------------------------------- kept up to date

class _Players:
    """Each player's statistics as a tally (:mod:`.tally`): seat labels count for nobody."""

    def add_turn(self, db: sqlite3.Connection, turn: ScoredTurn) -> None:
        """A turn has just ended with a score: it counts for its player."""
        if turn.player_id is None:
            return
        shut = int(turn.shut)
        db.execute("INSERT INTO player_stats (player_id, turns, score_sum, boxes_shut,"
                   " best_turn, best_game) VALUES (?, 1, ?, ?, ?, ?) ON CONFLICT (player_id)"
                   " DO UPDATE SET turns = turns + 1, score_sum = score_sum + excluded.score_sum,"
                   " boxes_shut = boxes_shut + excluded.boxes_shut,"
                   " best_game = CASE WHEN best_turn IS NULL OR excluded.best_turn < best_turn"
                   " THEN excluded.best_game ELSE best_game END,"
                   " best_turn = min(coalesce(best_turn, excluded.best_turn),"
                   " excluded.best_turn)",
                   (turn.player_id, turn.score, shut, turn.score, turn.game_id))
        db.execute("INSERT INTO player_rules (player_id, preset, turns, score_sum)"
                   " VALUES (?, ?, 1, ?) ON CONFLICT (player_id, preset) DO UPDATE SET"
                   " turns = turns + 1, score_sum = score_sum + excluded.score_sum",
                   (turn.player_id, preset_of(turn.rules), turn.score))

    def add_game(self, db: sqlite3.Connection, game: PlayedGame) -> None:
        """A game has just been played to its end (not stopped): each player in it has
        one more game, a win or not, and their run of wins goes on or starts again."""
        preset = preset_of(game.rules)
        winners = set(winner_names(game.winners))
        won: dict[int, bool] = {}
        for player, name in game.seats:
            if player is not None:
                won[player] = won.get(player, False) or name in winners
        for player, win in sorted(won.items()):
            db.execute("INSERT INTO player_stats (player_id, games, wins, streak, best_streak,"
                       " last_game) VALUES (?, 1, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE"
                       " SET games = games + 1, wins = wins + excluded.wins,"
                       " streak = CASE WHEN excluded.wins THEN streak + 1 ELSE 0 END,"
                       " best_streak = max(best_streak, CASE WHEN excluded.wins"
                       " THEN streak + 1 ELSE 0 END), last_game = excluded.last_game",
                       (player, int(win), int(win), int(win), game.id))
            db.execute("INSERT INTO player_rules (player_id, preset, games) VALUES (?, ?, 1)"
                       " ON CONFLICT (player_id, preset) DO UPDATE SET games = games + 1",
                       (player, preset))

    def rebuild(self, db: sqlite3.Connection) -> None:
        rebuild(db)


PLAYERS = _Players()
"""Each player's tally (the writer's ``KEPT``)."""


def won_sql(game: str = "g", seat: str = "p") -> str:
    """Whether the seat's player is among the game's winners, in SQL over ``games``
    aliased ``game`` and ``players`` aliased ``seat`` (:func:`winner_names` in a query:
    damaged winners are nobody)."""
    return (f"EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid({game}.winners)"
            f" THEN {game}.winners ELSE '[]' END) w WHERE w.value = {seat}.name)")


def winner_names(winners_json: str | None) -> list[str]:
    """Who won, from the game row's stored JSON (damaged: nobody)."""
    try:
        names = json.loads(winners_json or "[]")
    except ValueError:
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


# ---------------------------------------------------------------- reading

def read(db: sqlite3.Connection, player_id: int) -> PlayerStats | None:
    """One player's figures (None: no such player in the roster)."""
    row = db.execute("SELECT r.id, r.name, " + ", ".join(f"s.{c}" for c in COLUMNS)
                     + " FROM roster r LEFT JOIN player_stats s ON s.player_id = r.id"
                     " WHERE r.id = ?", (player_id,)).fetchone()
    if row is None:
        return None
    rules = {preset: RulesStats(games, turns, score_sum) for preset, games, turns, score_sum
             in db.execute("SELECT preset, games, turns, score_sum FROM player_rules"
                           " WHERE player_id = ? ORDER BY preset", (player_id,))}
    return _stats(row, rules)


def _stats(row: tuple[object, ...], rules: dict[str, RulesStats]) -> PlayerStats:
    player_id, name, *values = row
    kept = dict(zip(COLUMNS, values, strict=True))
    for key in ("games", "wins", "turns", "score_sum", "boxes_shut", "streak", "best_streak"):
        kept[key] = kept[key] or 0
    return PlayerStats(int(str(player_id)), str(name), rules=rules, **kept)  # type: ignore[arg-type]


SORTS: dict[str, str] = {
    # ?sort= key: ORDER BY (the best first; ties by name)
    "name": "r.key",
    "games": "coalesce(s.games, 0) DESC",
    "wins": "coalesce(s.wins, 0) DESC",
    "win_rate": "coalesce(1.0 * s.wins / nullif(s.games, 0), -1) DESC",
    "average": "coalesce(1.0 * s.score_sum / nullif(s.turns, 0), 1e9)",
    "boxes_shut": "coalesce(s.boxes_shut, 0) DESC",
    "best_turn": "coalesce(s.best_turn, 1e9)",
    "best_streak": "coalesce(s.best_streak, 0) DESC",
    "last_seen": "r.last_seen DESC",
}
DEFAULT_SORT = "wins"


def leaderboard(db: sqlite3.Connection, sort: str = DEFAULT_SORT, limit: int = 50,
                offset: int = 0) -> list[PlayerStats]:
    """A page of the roster with each player's figures, ordered by ``sort``
    (one of :data:`SORTS`; it reads the roster and the kept figures, never a game)."""
    order = SORTS[sort]
    rows = db.execute("SELECT r.id, r.name, " + ", ".join(f"s.{c}" for c in COLUMNS)
                      + " FROM roster r LEFT JOIN player_stats s ON s.player_id = r.id"
                      f" ORDER BY {order}, r.key, r.id LIMIT ? OFFSET ?",
                      (limit, offset)).fetchall()
    by_player: dict[int, dict[str, RulesStats]] = {int(r[0]): {} for r in rows}
    if by_player:
        marks = ",".join("?" * len(by_player))
        for player, preset, games, turns, score_sum in db.execute(
                "SELECT player_id, preset, games, turns, score_sum FROM player_rules"
                f" WHERE player_id IN ({marks}) ORDER BY player_id, preset", list(by_player)):
            by_player[int(player)][preset] = RulesStats(games, turns, score_sum)
    return [_stats(row, by_player[int(row[0])]) for row in rows]


def players_count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COUNT(*) FROM roster").fetchone()[0])


# ---------------------------------------------------------------- built from the rows

_FINISHED = ("SELECT p.player_id AS pid, g.id AS gid, g.rules AS rules,"
             f" max({won_sql()}) AS won FROM players p JOIN games g ON g.id = p.game_id"
             f" WHERE p.player_id IS NOT NULL AND {finished_sql('g')}"
             " GROUP BY p.player_id, g.id")
_SCORED = f"{SCORED} AND p.player_id IS NOT NULL"   # the turns a tally counts (.tally)


def rebuild(db: sqlite3.Connection) -> None:
    """Every player's figures counted from the rows, in SQL, in place of the kept
    ones (the migration, inside its transaction; never the box's loop)."""
    db.create_function("preset_of", 1, preset_of, deterministic=True)
    db.execute("DELETE FROM player_stats")
    db.execute("DELETE FROM player_rules")
    db.execute("INSERT INTO player_stats (player_id, turns, score_sum, boxes_shut, best_turn)"
               " SELECT p.player_id, COUNT(*), SUM(t.score), SUM(coalesce(t.shut, 0) != 0),"
               f" MIN(t.score){_SCORED} GROUP BY p.player_id")
    db.execute("UPDATE player_stats SET best_game = (SELECT MIN(t.game_id)"
               f"{_SCORED} AND p.player_id = player_stats.player_id"
               " AND t.score = player_stats.best_turn)")
    # runs of wins: each loss starts a new group; a group's wins are one run
    db.execute(f"CREATE TEMP TABLE finished AS {_FINISHED}")
    db.execute(
        "INSERT INTO player_stats (player_id, games, wins, streak, best_streak, last_game)"
        " SELECT pid, COUNT(*), SUM(won), 0, 0, MAX(gid) FROM temp.finished GROUP BY pid"
        " ON CONFLICT (player_id) DO UPDATE SET games = excluded.games, wins = excluded.wins,"
        " last_game = excluded.last_game")
    db.execute(
        "WITH grouped AS (SELECT pid, gid, won, SUM(NOT won) OVER (PARTITION BY pid ORDER BY gid)"
        " AS run FROM temp.finished), runs AS (SELECT pid, run, SUM(won) AS wins FROM grouped"
        " GROUP BY pid, run), last AS (SELECT pid, MAX(run) AS run FROM grouped GROUP BY pid)"
        " UPDATE player_stats SET"
        " best_streak = (SELECT MAX(wins) FROM runs WHERE runs.pid = player_stats.player_id),"
        " streak = (SELECT runs.wins FROM runs JOIN last ON last.pid = runs.pid"
        " AND last.run = runs.run WHERE runs.pid = player_stats.player_id)"
        " WHERE player_id IN (SELECT pid FROM temp.finished)")
    db.execute("INSERT INTO player_rules (player_id, preset, turns, score_sum)"
               f" SELECT p.player_id, preset_of(g.rules), COUNT(*), SUM(t.score){_SCORED}"
               " GROUP BY 1, 2")
    db.execute("INSERT INTO player_rules (player_id, preset, games)"
               " SELECT pid, preset_of(rules), COUNT(*) FROM temp.finished GROUP BY 1, 2"
               " ON CONFLICT (player_id, preset) DO UPDATE SET games = excluded.games")
    db.execute("DROP TABLE temp.finished")


def migrate_player_stats(db: sqlite3.Connection) -> None:
    """Schema 7's statistics tables, built once from the games already played."""
    for statement in CREATE:
        db.execute(statement)
    rebuild(db)


def as_json(stats: PlayerStats, accuracy: float | None = None,
            recent: float | None = None) -> dict[str, object]:
    """One player as ``players --json`` and the pages' JSON give them (``accuracy``:
    the percentage of best moves from the solver's ratings, all time and over the
    last games, None before any)."""
    return {"name": stats.name, "games": stats.games, "wins": stats.wins,
            "accuracy": accuracy, "accuracy_recent": recent, "win_rate": stats.win_rate,
            "turns": stats.turns,
            "average_score": stats.average, "boxes_shut": stats.boxes_shut,
            "best_turn": stats.best_turn, "best_turn_game": stats.best_game,
            "streak": stats.streak, "best_streak": stats.best_streak,
            "rules": {preset: {"games": r.games, "turns": r.turns, "average_score": r.average}
                      for preset, r in stats.rules.items()}}
