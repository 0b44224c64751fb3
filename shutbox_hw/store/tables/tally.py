"""The kept tallies: figures kept up to date by every write and recounted from the rows.

The audits (:mod:`.figures`) and each player's statistics (:mod:`.player_stats`)
are both tallies: small tables a reader reads instead of counting the whole
record. A tally is defined once, by the rows that count and two things:

- how one such row adds to it (:meth:`Tally.add_turn` for a turn ended with a
  score, :meth:`Tally.add_game` for a game played to its end), in the writing
  step's own transaction, so a power cut leaves rows and tallies agreeing;
- how it is counted again from every row (:meth:`Tally.rebuild`: the migration
  that brings it, the salvage of a damaged record).

The rows that count are read here, by one definition each, for both: a scored
turn is :data:`SCORED` (the turn joined with its game and its seat; the writer's
:func:`turn_ended` reads the one turn through it, a recount every turn), a game
played to its end is :func:`.finished.finished_sql`. The writer tells every
tally at once (``store/write/game_rows.py``, ``KEPT``): :func:`turn_ended` and
:func:`game_ended` read the row once and hand it to each.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Protocol

SCORED = (" FROM turns t JOIN games g ON g.id = t.game_id JOIN players p"
          " ON p.game_id = t.game_id AND p.seat = t.seat"
          " WHERE t.ended_at IS NOT NULL AND t.score IS NOT NULL")
"""Every turn that counts in a tally (ended, with a score), with its game (``g``)
and its seat (``p``): a query's ``FROM`` and ``WHERE``, to go on with ``AND ...``."""


@dataclass(frozen=True)
class ScoredTurn:
    """A turn ended with a score, as a tally adds it."""
    id: int
    game_id: int
    player_id: int | None      # None: a seat label (P1..P8), no player
    score: int
    shut: bool
    rules: str                 # the game's rules as stored (JSON)


@dataclass(frozen=True)
class PlayedGame:
    """A game played to its end (not stopped), as a tally adds it."""
    id: int
    rules: str                                     # as stored (JSON)
    winners: str | None                            # as stored (JSON)
    seats: tuple[tuple[int | None, str], ...]      # (player id or None, name), by seat


class Tally(Protocol):
    """A kept tally: how a row adds to it, and how it is counted from the rows."""

    def add_turn(self, db: sqlite3.Connection, turn: ScoredTurn) -> None: ...

    def add_game(self, db: sqlite3.Connection, game: PlayedGame) -> None: ...

    def rebuild(self, db: sqlite3.Connection) -> None: ...


def scored_turn(db: sqlite3.Connection, turn_id: int) -> ScoredTurn | None:
    """The turn ``turn_id`` if it counts (:data:`SCORED`), else None."""
    row = db.execute(f"SELECT t.id, t.game_id, p.player_id, t.score, t.shut, g.rules{SCORED}"
                     " AND t.id = ?", (turn_id,)).fetchone()
    if row is None:
        return None
    turn, game, player, score, shut, rules = row
    return ScoredTurn(int(turn), int(game), None if player is None else int(player),
                      int(score), bool(shut), str(rules))


def played_game(db: sqlite3.Connection, game_id: int) -> PlayedGame | None:
    """The game ``game_id`` with its seats (None: no such game)."""
    row = db.execute("SELECT rules, winners FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return None
    seats = tuple((None if player is None else int(player), str(name))
                  for player, name in db.execute(
                      "SELECT player_id, name FROM players WHERE game_id = ? ORDER BY seat",
                      (game_id,)))
    return PlayedGame(game_id, str(row[0]), row[1], seats)


def turn_ended(db: sqlite3.Connection, game_id: int | None, turn_id: int | None,
               tallies: tuple[Tally, ...]) -> None:
    """A turn has just ended (it had not before): it adds to every tally if it counts."""
    if game_id is None or turn_id is None:
        return
    turn = scored_turn(db, turn_id)
    if turn is not None:
        for tally in tallies:
            tally.add_turn(db, turn)


def game_ended(db: sqlite3.Connection, game_id: int | None,
               tallies: tuple[Tally, ...]) -> None:
    """A game has just been played to its end (not stopped): it adds to every tally."""
    if game_id is None:
        return
    game = played_game(db, game_id)
    if game is not None:
        for tally in tallies:
            tally.add_game(db, game)


def rebuild(db: sqlite3.Connection, tallies: tuple[Tally, ...]) -> None:
    """Every tally counted again from the rows (inside the caller's transaction)."""
    for tally in tallies:
        tally.rebuild(db)
