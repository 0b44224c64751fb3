"""The box's memory: games, players, rounds, turns, throws and rejected flaps.

The controller's events are written here as they happen, each in its own
transaction (WAL, synchronous=FULL), so a throw is durable before the box
shows it. After a power cut :meth:`Store.unfinished_game` rebuilds exactly
what the rules need to carry on.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from typing import assert_never
from pathlib import Path

from ..errors import UserError
from ..game.events import (AnyGameEvent, Chances, Fault, FlapRejected, FlapReopened,
                           GameEnded, GameStarted, Hint, Resumed, Rolled, RoundEnded,
                           ThrowCommitted, TurnEnded, TurnStarted)
from ..game.saved import SavedGame, SavedTurn
from ..rules import mask_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started_at REAL NOT NULL,
    ended_at REAL,
    rules TEXT NOT NULL,
    dice_mode TEXT NOT NULL,
    winners TEXT,
    abandoned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS rounds (
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    ended_at REAL NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    round INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    open_tiles TEXT,
    score INTEGER,
    final_score INTEGER,
    shut INTEGER,
    UNIQUE (game_id, round, seat)
);
CREATE TABLE IF NOT EXISTS throws (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id),
    number INTEGER NOT NULL,
    dice TEXT,
    closed TEXT,
    rolled_at REAL NOT NULL,
    committed_at REAL,
    UNIQUE (turn_id, number)
);
CREATE TABLE IF NOT EXISTS rejected_flaps (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id),
    flap INTEGER NOT NULL,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""


class StoreError(UserError):
    """The database cannot be opened or is not ours."""


def _dice_json(dice: tuple[int, ...] | None) -> str | None:
    return json.dumps(list(dice)) if dice else None


class Store:
    """One SQLite file. ``record`` takes the controller's game events."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"cannot open the database {self.path}: {error}") from None
        self.game_id: int | None = None
        row = self.db.execute(
            "SELECT id FROM games WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        if row:
            self.game_id = int(row[0])

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ writing

    def record(self, event: AnyGameEvent) -> None:
        """Write one game event durably, in one transaction of its own."""
        if isinstance(event, (FlapReopened, Resumed, Hint, Chances, Fault)):
            return  # nothing to keep: they follow from what is stored
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            now = self._clock()
            match event:
                case GameStarted():
                    self._game_started(event, now)
                case TurnStarted():
                    self.db.execute("INSERT INTO turns (game_id, round, seat, started_at)"
                                    " VALUES (?, ?, ?, ?)",
                                    (self.game_id, event.round, event.seat, now))
                case Rolled():
                    self.db.execute(
                        "INSERT OR REPLACE INTO throws (turn_id, number, dice, rolled_at)"
                        " VALUES (?, ?, ?, ?)", (self._turn_id(event.round, event.seat),
                                                 event.throw, _dice_json(event.dice), now))
                case ThrowCommitted():
                    self._throw_committed(event, now)
                case FlapRejected():
                    turn_id = self._turn_id(event.round, event.seat)
                    if turn_id is not None:
                        self.db.execute("INSERT INTO rejected_flaps (turn_id, flap, reason, at)"
                                        " VALUES (?, ?, ?, ?)",
                                        (turn_id, event.flap, event.reason, now))
                case TurnEnded():
                    self.db.execute(
                        "UPDATE turns SET ended_at = ?, open_tiles = ?, score = ?, shut = ?"
                        " WHERE id = ?", (now, json.dumps(list(event.open)), event.score,
                                          int(event.shut), self._turn_id(event.round, event.seat)))
                case RoundEnded():
                    self._round_ended(event, now)
                case GameEnded():
                    self.db.execute("UPDATE games SET ended_at = ?, winners = ?, abandoned = ?"
                                    " WHERE id = ?", (now, json.dumps(event.winner_names()),
                                                      int(event.abandoned), self.game_id))
                    self.game_id = None
                case _:
                    assert_never(event)  # a new event type: decide what the store keeps

    def _turn_id(self, round_number: int, seat: int) -> int | None:
        row = self.db.execute(
            "SELECT id FROM turns WHERE game_id = ? AND round = ? AND seat = ?",
            (self.game_id, round_number, seat)).fetchone()
        return int(row[0]) if row else None

    def _game_started(self, event: GameStarted, now: float) -> None:
        # a new game abandons any unfinished one
        self.db.execute("UPDATE games SET ended_at = ?, abandoned = 1 WHERE ended_at IS NULL",
                        (now,))
        cur = self.db.execute(
            "INSERT INTO games (started_at, rules, dice_mode) VALUES (?, ?, ?)",
            (now, json.dumps(dict(event.rules)), event.dice))
        game_id = cur.lastrowid
        self.db.executemany("INSERT INTO players (game_id, seat, name) VALUES (?, ?, ?)",
                            [(game_id, seat, name) for seat, name in enumerate(event.players)])
        self.game_id = game_id

    def _throw_committed(self, event: ThrowCommitted, now: float) -> None:
        turn_id = self._turn_id(event.round, event.seat)
        closed = json.dumps(list(event.closed))
        updated = self.db.execute(
            "UPDATE throws SET closed = ?, committed_at = ? WHERE turn_id = ? AND number = ?",
            (closed, now, turn_id, event.throw)).rowcount
        if not updated:
            self.db.execute(
                "INSERT INTO throws (turn_id, number, dice, closed, rolled_at, committed_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (turn_id, event.throw, _dice_json(event.dice), closed, now, now))

    def _round_ended(self, event: RoundEnded, now: float) -> None:
        self.db.execute("INSERT INTO rounds (game_id, number, ended_at, result)"
                        " VALUES (?, ?, ?, ?)",
                        (self.game_id, event.round, now, json.dumps(event.as_json())))
        for seat, final in enumerate(event.final):
            if final is not None:
                self.db.execute("UPDATE turns SET final_score = ? WHERE game_id = ? AND round = ?"
                                " AND seat = ?", (final, self.game_id, event.round, seat))

    # ------------------------------------------------------------------ resuming

    def unfinished_game(self) -> SavedGame | None:
        """The game a power cut interrupted, as the controller needs it."""
        if self.game_id is None:
            return None
        rules_json, = self.db.execute("SELECT rules FROM games WHERE id = ?",
                                      (self.game_id,)).fetchone()
        players = [name for name, in self.db.execute(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (self.game_id,))]
        ended_rounds = {n for n, in self.db.execute(
            "SELECT number FROM rounds WHERE game_id = ?", (self.game_id,))}
        by_round: dict[int, dict[int, int]] = {}
        current: tuple[int, int] | None = None  # (turn id, seat)
        for turn_id, rnd, seat, open_json, ended in self.db.execute(
                "SELECT id, round, seat, open_tiles, ended_at FROM turns WHERE game_id = ?"
                " ORDER BY round, id", (self.game_id,)):
            if ended is None:
                current = (turn_id, seat)
            else:
                by_round.setdefault(rnd, {})[seat] = mask_of(json.loads(open_json))
        rounds = tuple(tuple(by_round.get(r, {}).get(seat) for seat in range(len(players)))
                       for r in sorted(ended_rounds))
        open_round = max(ended_rounds, default=0) + 1
        played = tuple(sorted(by_round.get(open_round, {}).items()))
        turn = None
        if current is not None:
            turn_id, seat = current
            closed, dice, started = [], None, False
            for dice_json, closed_json in self.db.execute(
                    "SELECT dice, closed FROM throws WHERE turn_id = ? ORDER BY number",
                    (turn_id,)):
                if closed_json is not None:
                    closed.append(mask_of(json.loads(closed_json)))
                else:
                    dice = tuple(json.loads(dice_json)) if dice_json else None
                    started = True
            turn = SavedTurn(player=seat, closed=tuple(closed), dice=dice,
                             throw_started=started)
        return SavedGame(rules=json.loads(rules_json), players=tuple(players), rounds=rounds,
                         played=played, turn=turn)
