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
from pathlib import Path
from typing import assert_never

from ..errors import UserError, shown_path
from ..game.events import (AnyGameEvent, Chances, Fault, FlapRejected, FlapReopened,
                           GameEnded, GameStarted, Hint, Recovered, Resumed, Rolled, RoundEnded,
                           ThrowCommitted, TurnEnded, TurnStarted)
from ..game.saved import SavedGame, SavedTurn
from ..rules import mask_of, rules_from_dict
from ..textfile import os_problem
from .schema import SchemaError, migrate, not_a_regular_file, sqlite_problem

# systemd-timesyncd creates this once the clock has been synchronised since boot
TIMESYNC_FLAG = Path("/run/systemd/timesync/synchronized")


class StoreError(UserError):
    """The database cannot be opened or is not ours."""


def _dice_json(dice: tuple[int, ...] | None) -> str | None:
    return json.dumps(list(dice)) if dice else None


class Store:
    """One SQLite file. ``record`` takes the controller's game events."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time,
                 sync_flag: str | Path = TIMESYNC_FLAG) -> None:
        self.path = Path(path)
        self._clock = clock
        self._sync_flag = Path(sync_flag)
        name = shown_path(self.path)
        problem = not_a_regular_file(self.path)
        if problem:
            raise StoreError(f"cannot open the database {name}: {problem}")
        self.game_id: int | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None)
            try:
                migrate(self.db, self.path)  # reads the schema before changing anything
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.execute("PRAGMA foreign_keys=ON")
                row = self.db.execute("SELECT id FROM games WHERE ended_at IS NULL"
                                      " ORDER BY id DESC LIMIT 1").fetchone()
            except BaseException:
                self.db.close()  # a refused file is not held open
                raise
        except SchemaError as error:
            raise StoreError(str(error)) from None
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the database {name}: it {sqlite_problem(error)}") \
                from None
        except OSError as error:
            raise StoreError(f"cannot open the database {name}: {os_problem(error, 'database')}") \
                from None
        if row:
            self.game_id = int(row[0])

    def clock_synced(self) -> bool:
        """Whether the system clock is set (no RTC: before NTP it is not to be trusted)."""
        return self._sync_flag.exists()

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ writing

    def record(self, event: AnyGameEvent) -> None:
        """Write one game event durably, in one transaction of its own."""
        if isinstance(event, (FlapReopened, Resumed, Hint, Chances, Fault, Recovered)):
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
                    self.db.execute("UPDATE games SET ended_at = ?, ended_synced = ?, winners = ?,"
                                    " abandoned = ? WHERE id = ?",
                                    (now, int(self.clock_synced()),
                                     json.dumps(event.winner_names()), int(event.abandoned),
                                     self.game_id))
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
        synced = int(self.clock_synced())
        self.db.execute("UPDATE games SET ended_at = ?, ended_synced = ?, abandoned = 1"
                        " WHERE ended_at IS NULL", (now, synced))
        cur = self.db.execute(
            "INSERT INTO games (started_at, started_synced, rules, dice_mode)"
            " VALUES (?, ?, ?, ?)", (now, synced, json.dumps(dict(event.rules)), event.dice))
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
        """The game a power cut interrupted, as the controller needs it.

        A game whose record cannot be read back (damaged JSON, rules this version
        does not know) is closed as abandoned, where it stays for ``history``: the
        box starts a new game instead of failing at every boot.
        """
        if self.game_id is None:
            return None
        try:
            saved = self._saved_game()
            rules_from_dict(saved.rules)
        except (ValueError, TypeError, KeyError, AttributeError, UserError):
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute("UPDATE games SET ended_at = ?, ended_synced = ?, abandoned = 1"
                                " WHERE id = ?", (self._clock(), int(self.clock_synced()),
                                                  self.game_id))
            self.game_id = None
            return None
        return saved

    def _saved_game(self) -> SavedGame:
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
