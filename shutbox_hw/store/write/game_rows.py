"""The rows each game event becomes, and the unfinished game read back from them.

:func:`write_event` is called by :class:`~.sqlite.Store` inside the step's
transaction; :func:`read_saved_game` rebuilds exactly what the rules need to
carry on after a power cut. Both work on an open connection and the current
game's id, and do nothing else: no transaction, no clock.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from typing import assert_never

from ...game.model.events import (
    AnyGameEvent,
    AuditsReset,
    Chances,
    Fault,
    FlapRejected,
    FlapReopened,
    GameEnded,
    GameStarted,
    Hint,
    PlayerRemoved,
    Recovered,
    Resumed,
    Rolled,
    RoundEnded,
    SeatClaimed,
    SeatLeft,
    ServiceEntered,
    ServiceExited,
    SettingChanged,
    ThrowCommitted,
    TurnEnded,
    TurnStarted,
)
from ...game.model.saved import SavedGame, SavedTurn
from ...rules import mask_of
from ..read.audit import reset_counters
from ..tables import figures, player_stats, roster, tally
from . import forget
from .settings import clear_settings, save_setting

log = logging.getLogger("shutbox_hw.store")

NOT_STORED = (FlapReopened, Resumed, Hint, Chances, ServiceEntered, ServiceExited, SeatClaimed,
              SeatLeft)
"""Events that follow from what is stored (or only say something to the screen; a
seat claimed or left before the game is in its ``game_started``)."""

KEPT: tuple[tally.Tally, ...] = (figures.AUDITS, player_stats.PLAYERS)
"""The kept tallies every game event adds to, in the step's own transaction
(:mod:`..tables.tally`)."""


def _dice_json(dice: tuple[int, ...] | None) -> str | None:
    return json.dumps(list(dice)) if dice else None


def write_event(db: sqlite3.Connection, game_id: int | None, event: AnyGameEvent, now: float,
                synced: Callable[[], bool]) -> int | None:
    """Write ``event``'s rows at ``now``; returns the game's id after it (a new
    game's, or None once the game has ended). ``synced`` says whether the
    system clock can be trusted (asked only when a game starts or ends, or a
    fault is noted)."""
    match event:
        case GameStarted():
            return _game_started(db, event, now, synced())
        case TurnStarted():
            db.execute("INSERT INTO turns (game_id, round, seat, started_at) VALUES (?, ?, ?, ?)",
                       (game_id, event.round, event.seat, now))
        case Rolled():
            db.execute("INSERT OR REPLACE INTO throws (turn_id, number, dice, rolled_at)"
                       " VALUES (?, ?, ?, ?)", (turn_id(db, game_id, event.round, event.seat),
                                                event.throw, _dice_json(event.dice), now))
        case ThrowCommitted():
            _throw_committed(db, game_id, event, now)
        case FlapRejected():
            turn = turn_id(db, game_id, event.round, event.seat)
            if turn is not None:
                db.execute("INSERT INTO rejected_flaps (turn_id, flap, reason, at)"
                           " VALUES (?, ?, ?, ?)", (turn, event.flap, event.reason, now))
        case TurnEnded():
            turn = turn_id(db, game_id, event.round, event.seat)
            was_open = _unended(db, "turns", turn)
            db.execute("UPDATE turns SET ended_at = ?, open_tiles = ?, score = ?, shut = ?"
                       " WHERE id = ?", (now, json.dumps(list(event.open)), event.score,
                                         int(event.shut), turn))
            if was_open:
                tally.turn_ended(db, game_id, turn, KEPT)
        case RoundEnded():
            _round_ended(db, game_id, event, now)
            figures.round_ended(db, game_id)
        case GameEnded():
            was_open = _unended(db, "games", game_id)
            db.execute("UPDATE games SET ended_at = ?, ended_synced = ?, winners = ?,"
                       " abandoned = ? WHERE id = ?",
                       (now, int(synced()), json.dumps(event.winner_names()),
                        int(event.abandoned), game_id))
            if was_open and not event.abandoned:
                tally.game_ended(db, game_id, KEPT)
            return None
        case SettingChanged():
            if event.value is None:
                clear_settings(db)
            else:
                save_setting(db, event.key, event.value, now)
        case AuditsReset():
            reset_counters(db)
        case PlayerRemoved():
            try:
                forget.forget_player(db, event.player, now)   # in the step's transaction
            except forget.RemoveRefused:   # (the journal does not get the name either)
                log.warning("player_removed not carried out: no such player in the roster,"
                            " or they sit in the game under way")
        case Fault():
            db.execute("INSERT INTO fault_log (device, detail, at, at_synced) VALUES (?, ?, ?, ?)",
                       (event.device, event.detail, now, int(synced())))
        case Recovered():
            db.execute("UPDATE fault_log SET recovered_at = ? WHERE device = ?"
                       " AND recovered_at IS NULL", (now, event.device))
        case FlapReopened() | Resumed() | Hint() | Chances() | ServiceEntered() \
                | ServiceExited() | SeatClaimed() | SeatLeft():
            pass  # NOT_STORED: the store leaves them out before it gets here
        case _:
            assert_never(event)  # a new event type: decide what the store keeps
    return game_id


def _unended(db: sqlite3.Connection, table: str, row_id: int | None) -> bool:
    """Whether the game or turn ``row_id`` exists and has not ended yet (its end then
    counts in the audits' figures once, however often its event is written)."""
    row = db.execute(f"SELECT ended_at FROM {table} WHERE id = ?", (row_id,)).fetchone()
    return row is not None and row[0] is None


def turn_id(db: sqlite3.Connection, game_id: int | None, round_number: int,
            seat: int) -> int | None:
    row = db.execute("SELECT id FROM turns WHERE game_id = ? AND round = ? AND seat = ?",
                     (game_id, round_number, seat)).fetchone()
    return int(row[0]) if row else None


def _game_started(db: sqlite3.Connection, event: GameStarted, now: float,
                  synced: bool) -> int | None:
    # a new game abandons any unfinished one
    db.execute("UPDATE games SET ended_at = ?, ended_synced = ?, abandoned = 1"
               " WHERE ended_at IS NULL", (now, int(synced)))
    rules_json = json.dumps(dict(event.rules))
    cur = db.execute("INSERT INTO games (started_at, started_synced, rules, dice_mode)"
                     " VALUES (?, ?, ?, ?)", (now, int(synced), rules_json, event.dice))
    game_id = cur.lastrowid
    db.executemany("INSERT INTO players (game_id, seat, name, player_id) VALUES (?, ?, ?, ?)",
                   [(game_id, seat, name, roster.seen(db, name, now))
                    for seat, name in enumerate(event.players)])
    figures.game_started(db, game_id, rules_json)
    return game_id


def _throw_committed(db: sqlite3.Connection, game_id: int | None, event: ThrowCommitted,
                     now: float) -> None:
    turn = turn_id(db, game_id, event.round, event.seat)
    closed = json.dumps(list(event.closed))
    updated = db.execute(
        "UPDATE throws SET closed = ?, committed_at = ? WHERE turn_id = ? AND number = ?",
        (closed, now, turn, event.throw)).rowcount
    if not updated:
        db.execute("INSERT INTO throws (turn_id, number, dice, closed, rolled_at, committed_at)"
                   " VALUES (?, ?, ?, ?, ?, ?)",
                   (turn, event.throw, _dice_json(event.dice), closed, now, now))


def _round_ended(db: sqlite3.Connection, game_id: int | None, event: RoundEnded,
                 now: float) -> None:
    db.execute("INSERT INTO rounds (game_id, number, ended_at, result) VALUES (?, ?, ?, ?)",
               (game_id, event.round, now, json.dumps(event.as_json())))
    for seat, final in enumerate(event.final):
        if final is not None:
            db.execute("UPDATE turns SET final_score = ? WHERE game_id = ? AND round = ?"
                       " AND seat = ?", (final, game_id, event.round, seat))


def read_saved_game(db: sqlite3.Connection, game_id: int) -> SavedGame:
    """The game ``game_id`` as the controller needs it to carry on (raises
    ValueError, TypeError or KeyError on a record it cannot read)."""
    rules_json, = db.execute("SELECT rules FROM games WHERE id = ?", (game_id,)).fetchone()
    players = [name for name, in db.execute(
        "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
    ended_rounds = {n for n, in db.execute(
        "SELECT number FROM rounds WHERE game_id = ?", (game_id,))}
    by_round: dict[int, dict[int, int]] = {}
    current: tuple[int, int] | None = None  # (turn id, seat)
    for turn, rnd, seat, open_json, ended in db.execute(
            "SELECT id, round, seat, open_tiles, ended_at FROM turns WHERE game_id = ?"
            " ORDER BY round, id", (game_id,)):
        if ended is None:
            current = (turn, seat)
        else:
            by_round.setdefault(rnd, {})[seat] = mask_of(json.loads(open_json))
    rounds = tuple(tuple(by_round.get(r, {}).get(seat) for seat in range(len(players)))
                   for r in sorted(ended_rounds))
    open_round = max(ended_rounds, default=0) + 1
    played = tuple(sorted(by_round.get(open_round, {}).items()))
    saved_turn = _saved_turn(db, *current) if current is not None else None
    return SavedGame(rules=json.loads(rules_json), players=tuple(players), rounds=rounds,
                     played=played, turn=saved_turn)


def _saved_turn(db: sqlite3.Connection, turn: int, seat: int) -> SavedTurn:
    """The turn under way: its committed closures and the dice of a throw begun."""
    closed, dice, started = [], None, False
    for dice_json, closed_json in db.execute(
            "SELECT dice, closed FROM throws WHERE turn_id = ? ORDER BY number", (turn,)):
        if closed_json is not None:
            closed.append(mask_of(json.loads(closed_json)))
        else:
            dice = tuple(json.loads(dice_json)) if dice_json else None
            started = True
    return SavedTurn(player=seat, closed=tuple(closed), dice=dice, throw_started=started)
