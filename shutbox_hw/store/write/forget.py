"""A player removed from the roster: their past games anonymised everywhere the record shows them.

:func:`forget_player` is the one way (the operator menu's "remove a player",
through the store's ``player_removed`` event, and ``shutbox-hw players
--remove NAME``). Each seat the player had becomes its seat's label (P<seat+1>,
the next free one should a label of that game be a name), with no player
behind it: ``players.name`` and ``player_id``, the winners of ``games``, the
round results of ``rounds`` (their names, lists and tables keyed by name), the
box's mirror ``shown``, the events still queued for MQTT in ``outbox``, and
the seats' names adjusted on the box (``settings`` ``names``). Then the roster
row goes, and with it every row of a table keyed by the player (``player_id
... REFERENCES roster(id) ON DELETE CASCADE``, with ``foreign_keys=ON``).

All in one transaction: its own ``BEGIN IMMEDIATE`` (waiting for the daemon's
write lock up to :data:`WAIT_S`) on a command's connection, or the step's
when the store calls it inside one. A player sitting in the unfinished game is
refused (:class:`RemoveRefused`, a plain message); nothing is then changed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...base.errors import UserError
from ...players.display import rename
from ...players.names import is_seat_label, name_key, same_player, seat_label, tidy
from ..read.shown import rewrite_mirror
from ..tables import roster
from ..tables.transaction import immediate

WAIT_S = 5.0
"""How long a command's removal waits for the box's write lock (a step holds it
for milliseconds; the box's own writes wait :data:`~.faults.BUSY_TIMEOUT_S` for
this one, and keep their events for the next try should it take longer)."""


class RemoveRefused(UserError):
    """The player cannot be removed (message: why, for the operator)."""


@dataclass(frozen=True)
class Forgotten:
    """What a removal did: the name as the roster had it, the games anonymised."""
    name: str
    games: int


def forget_player(db: sqlite3.Connection, name: str, now: float) -> Forgotten:
    """Remove ``name`` (case and accents folded) from the roster and anonymise
    their games; ``now`` is the removal's time (the unfinished game is judged
    by the record, not by it). Raises :class:`RemoveRefused` when there is no
    such player or they sit in the unfinished game."""
    with immediate(db, WAIT_S):
        return _forget(db, name)


def _forget(db: sqlite3.Connection, name: str) -> Forgotten:
    player = roster.find(db, name)
    if player is None or is_seat_label(tidy(name)):
        raise RemoveRefused(f"{tidy(name)!r} is not in the roster")
    seats = db.execute("SELECT p.game_id, p.seat, g.ended_at FROM players p"
                       " JOIN games g ON g.id = p.game_id WHERE p.player_id = ?"
                       " ORDER BY p.game_id", (player.id,)).fetchall()
    if any(ended is None for _, _, ended in seats):
        raise RemoveRefused(f"{player.name} sits in the game under way: remove them once"
                            " it has ended")
    # the name as typed game by game ("anna", "ANNA"): what the outbox's rows hold
    typed = {player.name, *(n for n, in db.execute(
        "SELECT DISTINCT name FROM players WHERE player_id = ?", (player.id,)))}
    labels: dict[int, str] = {}
    for game_id, seat, _ in seats:
        labels[game_id] = label = _free_label(db, game_id, seat)
        db.execute("UPDATE players SET name = ?, player_id = NULL WHERE game_id = ? AND seat = ?",
                   (label, game_id, seat))
        new = _renamer(player.name, label)
        row = db.execute("SELECT winners FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is not None and row[0]:
            db.execute("UPDATE games SET winners = ? WHERE id = ?",
                       (_json_renamed(row[0], new, "winners"), game_id))
        for number, result in db.execute("SELECT number, result FROM rounds WHERE game_id = ?",
                                         (game_id,)).fetchall():
            db.execute("UPDATE rounds SET result = ? WHERE game_id = ? AND number = ?",
                       (_json_renamed(result, new), game_id, number))
    _shown(db, player.name, labels)
    _outbox(db, player.name, typed, labels)
    _settings(db, player.name)
    db.execute("DELETE FROM roster WHERE id = ?", (player.id,))
    return Forgotten(name=player.name, games=len(labels))


def _free_label(db: sqlite3.Connection, game_id: int, seat: int) -> str:
    """P<seat+1>, or the next label no other seat of the game goes by."""
    taken = {n for n, in db.execute("SELECT name FROM players WHERE game_id = ? AND seat != ?",
                                    (game_id, seat))}
    n = seat
    while seat_label(n) in taken:
        n += 1
    return seat_label(n)


def _renamer(name: str, label: str) -> Callable[[str], str]:
    """``label`` for the player's name however it was typed, any other name as it is."""
    key = name_key(name)
    keys: dict[str, str] = {}

    def new(n: str) -> str:
        if n not in keys:
            keys[n] = name_key(n)
        return label if keys[n] == key else n
    return new


def _json_renamed(text: str, new: Callable[[str], str], under: str | None = None) -> str:
    """``text`` (JSON) with the player's names renamed (:func:`rename`; ``under``:
    the key the whole value stands for, "winners" for a list of names); a row
    that is not JSON is left as it is (``history`` shows it as damaged)."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if under is not None:
        return json.dumps(rename({under: data}, new)[under])
    return json.dumps(rename(data, new))


def _shown(db: sqlite3.Connection, name: str, labels: dict[int, str]) -> None:
    """The box's mirror (what the TV shows now), in RAM beside the record, and the
    row a record from before the mirror moved may still hold: its game's label for
    the name."""
    def label_for(game: Any) -> str:
        return labels.get(game) or next(iter(labels.values()), seat_label(0))

    def change(mirror: dict[str, Any]) -> dict[str, Any]:
        renamed = rename(mirror.get("data"), _renamer(name, label_for(mirror.get("game"))))
        return {**mirror, "data": renamed}

    rewrite_mirror(db, change)
    if not _has_table(db, "shown"):
        return
    row = db.execute("SELECT game_id, data FROM shown WHERE id = 1").fetchone()
    if row is None:
        return
    db.execute("UPDATE shown SET data = ? WHERE id = 1",
               (_json_renamed(row[1], _renamer(name, label_for(row[0]))),))


def _outbox(db: sqlite3.Connection, name: str, typed: set[str],
            labels: dict[int, str]) -> None:
    """The events still queued for MQTT: each with the label of the seat the
    player had in its game (the event's own list of players says which, else the
    game being played or set up when it was queued). Only the rows holding the
    name as one of the games ``typed`` it (as JSON text) are read."""
    if not _has_table(db, "outbox"):
        return
    key = name_key(name)
    fallback = next(iter(labels.values()), seat_label(0))
    quoted = [json.dumps(n) for n in typed]
    for seq, at, event in db.execute("SELECT seq, at, event FROM outbox ORDER BY seq"
                                     ).fetchall():
        if not any(q in event for q in quoted):
            continue
        try:
            data = json.loads(event)
        except ValueError:
            continue
        label = _seat_in(data, key) or _label_at(db, at, labels) or fallback
        changed = json.dumps(rename(data, _renamer(name, label)), separators=(",", ":"))
        if changed != event:
            db.execute("UPDATE outbox SET event = ? WHERE seq = ?", (changed, seq))


def _seat_in(data: Any, key: str) -> str | None:
    """The label of the player's seat by the event's own ``players`` list."""
    players = data.get("players") if isinstance(data, dict) else None
    if isinstance(players, list):
        for seat, n in enumerate(players):
            if isinstance(n, str) and name_key(n) == key:
                return seat_label(seat)
    return None


def _label_at(db: sqlite3.Connection, at: float, labels: dict[int, str]) -> str | None:
    """The label the player had in the game under way at ``at`` (else the next one:
    a seat claimed while it was set up)."""
    row = db.execute("SELECT id FROM games WHERE started_at <= ? ORDER BY started_at DESC"
                     " LIMIT 1", (at,)).fetchone()
    if row is not None and row[0] in labels:
        return labels[row[0]]
    row = db.execute("SELECT id FROM games WHERE started_at > ? ORDER BY started_at LIMIT 1",
                     (at,)).fetchone()
    return labels.get(row[0]) if row is not None else None


def _settings(db: sqlite3.Connection, name: str) -> None:
    """The seats' names adjusted on the box: the player's seat goes back to its label."""
    if not _has_table(db, "settings"):
        return
    row = db.execute("SELECT value FROM settings WHERE key = 'names'").fetchone()
    if row is None:
        return
    try:
        names = json.loads(row[0])
    except ValueError:
        return
    if isinstance(names, list) and any(isinstance(n, str) and same_player(n, name)
                                       for n in names):
        kept = [seat_label(i) if isinstance(n, str) and same_player(n, name) else n
                for i, n in enumerate(names)]
        db.execute("UPDATE settings SET value = ? WHERE key = 'names'", (json.dumps(kept),))


def _has_table(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                      (table,)).fetchone() is not None
