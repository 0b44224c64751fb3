"""A whole ended game as one message for the league (issue 40, item 3).

When a game ends (finished, abandoned, or closed as abandoned by the next game
or by a record that cannot be resumed) the store queues :func:`game_record` in
the outbox with the topic ``game`` (:func:`queue_games`), in the transaction
that ends it; the publisher sends it on ``shutbox/<box>/game`` (QoS 1) with
``box``, ``epoch``, ``seq`` and ``at`` in front. A resend request
(``shutbox/<box>/resend``) queues the named games again from the record, which
keeps every game (:func:`queue_resend`).

The record (keys in this order)::

    {"game": 12, "rules": {...}, "dice": "software",
     "started_at": ..., "ended_at": ..., "clock_synced": {"started": true, "ended": true},
     "state": "finished" | "abandoned",
     "seats": [{"seat": 0, "name": "Anna", "league": {"player": 7, "verified": true}},
               {"seat": 1, "name": "Bob"}, ...],
     "rounds": [{"number": 1, "ended_at": ..., "result": {...}}, ...],
     "turns": [{"round": 1, "seat": 0, "started_at": ..., "ended_at": ..., "open": [...],
                "score": 9, "final_score": 9, "shut": false,
                "throws": [{"number": 1, "dice": [3, 4], "closed": [7],
                            "rolled_at": ..., "committed_at": ...}, ...],
                "rejected": [{"flap": 5, "reason": "...", "at": ...}]}, ...],
     "result": {"winners": ["Anna"], "abandoned": false},
     "ratings": [{"round": 1, "seat": 0, "throw": 1, "kind": "closure",
                  "chosen": [7], "best": [7], "loss": 0.0}, ...]}

A seat's ``league`` is there when the box verified that league player's secret for
this game (store/tables/league.py): the league keeps aside a game with a league
player's name on a seat without it.

``ratings`` are the move ratings the record holds when the message is made: the
rater rates turns shortly after they end (:mod:`shutbox_hw.skill.rater`), so a
game's last turns may be unrated in the first message and rated in a resent
one. Everything else is fixed once the game has ended: the league compares two
messages of one game without their ratings (:func:`content`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from ...players.names import name_key
from ...rules import tiles_of
from .league import verified

TOPIC = "game"            # the outbox's topic column for a game message
RESEND_MAX = 200          # game ids one resend request may ask for (the rest ignored)


def add_topic(db: sqlite3.Connection) -> None:
    """Schema 8's step: the outbox's ``topic`` column (NULL: an event; :data:`TOPIC`: a
    game), added once (a layout that has it already is left as it is)."""
    columns = {c for _, c, *_ in db.execute("PRAGMA table_info(outbox)")}
    if "topic" not in columns:
        db.execute("ALTER TABLE outbox ADD COLUMN topic TEXT")


def _flag(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def _list(text: str | None) -> list[Any] | None:
    return None if text is None else list(json.loads(text))


def game_record(db: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    """The ended game ``game_id`` as the league keeps it (None: no such game, or
    not ended yet)."""
    row = db.execute("SELECT rules, dice_mode, started_at, ended_at, started_synced,"
                     " ended_synced, winners, abandoned FROM games WHERE id = ?",
                     (game_id,)).fetchone()
    if row is None or row[3] is None:
        return None
    rules, dice, started, ended, started_synced, ended_synced, winners, abandoned = row
    seats: list[dict[str, Any]] = [{"seat": int(seat), "name": name} for seat, name in db.execute(
        "SELECT seat, name FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
    league = verified(db, game_id)
    if league:
        for seat in seats:
            player = league.get(name_key(seat["name"]))
            if player is not None:
                seat["league"] = {"player": player, "verified": True}
    rounds = [{"number": int(n), "ended_at": at, "result": json.loads(result)}
              for n, at, result in db.execute(
                  "SELECT number, ended_at, result FROM rounds WHERE game_id = ?"
                  " ORDER BY number", (game_id,))]
    turns: list[dict[str, Any]] = []
    by_turn: dict[int, dict[str, Any]] = {}
    for tid, rnd, seat, t_start, t_end, open_tiles, score, final, shut in db.execute(
            "SELECT id, round, seat, started_at, ended_at, open_tiles, score, final_score,"
            " shut FROM turns WHERE game_id = ? ORDER BY id", (game_id,)):
        turn = {"round": int(rnd), "seat": int(seat), "started_at": t_start,
                "ended_at": t_end, "open": _list(open_tiles), "score": score,
                "final_score": final, "shut": _flag(shut), "throws": [], "rejected": []}
        turns.append(turn)
        by_turn[int(tid)] = turn
    for tid, number, dice_json, closed, rolled, committed in db.execute(
            "SELECT th.turn_id, th.number, th.dice, th.closed, th.rolled_at, th.committed_at"
            " FROM throws th JOIN turns t ON t.id = th.turn_id WHERE t.game_id = ?"
            " ORDER BY th.turn_id, th.number", (game_id,)):
        by_turn[int(tid)]["throws"].append(
            {"number": int(number), "dice": _list(dice_json), "closed": _list(closed),
             "rolled_at": rolled, "committed_at": committed})
    for tid, flap, reason, at in db.execute(
            "SELECT r.turn_id, r.flap, r.reason, r.at FROM rejected_flaps r"
            " JOIN turns t ON t.id = r.turn_id WHERE t.game_id = ? ORDER BY r.id",
            (game_id,)):
        by_turn[int(tid)]["rejected"].append({"flap": int(flap), "reason": reason, "at": at})
    return {"game": game_id, "rules": json.loads(rules), "dice": dice,
            "started_at": started, "ended_at": ended,
            "clock_synced": {"started": _flag(started_synced), "ended": _flag(ended_synced)},
            "state": "abandoned" if abandoned else "finished", "seats": seats,
            "rounds": rounds, "turns": turns,
            "result": {"winners": [] if abandoned or not winners else json.loads(winners),
                       "abandoned": bool(abandoned)},
            "ratings": _ratings(db, game_id)}


def _ratings(db: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """The game's rated moves (empty for a record before schema 7)."""
    try:
        rows = db.execute(
            "SELECT t.round, t.seat, th.number, m.kind, m.chosen, m.best, m.loss"
            " FROM turns t JOIN throws th ON th.turn_id = t.id"
            " JOIN move_ratings m ON m.throw_id = th.id WHERE t.game_id = ?"
            " ORDER BY t.id, th.number, m.kind", (game_id,)).fetchall()
    except sqlite3.OperationalError:
        return []

    def shown(kind: str, value: int) -> Any:
        return tiles_of(value) if kind == "closure" else int(value)
    return [{"round": int(rnd), "seat": int(seat), "throw": int(number), "kind": kind,
             "chosen": shown(kind, chosen), "best": shown(kind, best), "loss": float(loss)}
            for rnd, seat, number, kind, chosen, best, loss in rows]


def content(record: dict[str, Any]) -> dict[str, Any]:
    """What two messages of one game must agree on: all but the ratings (which the
    rater may have completed between them) and the envelope (box, epoch, seq, at)."""
    return {k: v for k, v in record.items()
            if k not in ("ratings", "box", "epoch", "seq", "at")}


def unfinished(db: sqlite3.Connection) -> list[int]:
    """The games not ended yet (a new game abandons them)."""
    return [int(g) for g, in db.execute("SELECT id FROM games WHERE ended_at IS NULL")]


def queue_games(db: sqlite3.Connection, game_ids: Iterable[int], now: float) -> int:
    """Queue each ended game of ``game_ids`` as one message (inside the caller's
    transaction, after the events that ended them); how many."""
    rows = []
    for game_id in game_ids:
        record = game_record(db, game_id)
        if record is not None:
            rows.append((now, json.dumps(record, separators=(",", ":")), TOPIC))
    db.executemany("INSERT INTO outbox (at, event, topic) VALUES (?, ?, ?)", rows)
    return len(rows)


def resend_request(payload: bytes, epoch: str) -> list[int] | None:
    """The game ids a resend request asks for: a JSON list of ids, or an object
    ``{"epoch": E, "games": [ids]}`` (ignored, None, when E is not this record's: the
    league asks an old SD card's games of the card). None for a payload that is
    neither; at most :data:`RESEND_MAX` ids."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(data, dict):
        if data.get("epoch") not in (None, epoch):
            return None
        data = data.get("games")
    if not isinstance(data, list):
        return None
    ids = [g for g in data if isinstance(g, int) and not isinstance(g, bool) and g > 0]
    return sorted(set(ids))[:RESEND_MAX]


def queue_resend(db: sqlite3.Connection, game_ids: Sequence[int], now: float) -> int:
    """Queue the asked-for games again, in a transaction of their own; how many
    the record has (ended ones)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        count = queue_games(db, game_ids, now)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return count


def latest_ended(db: sqlite3.Connection) -> int | None:
    """The newest ended game's id (the retained state's ``latest_game``)."""
    row = db.execute("SELECT id FROM games WHERE ended_at IS NOT NULL ORDER BY id DESC"
                     " LIMIT 1").fetchone()   # backwards by id: stops at the newest ended
    return None if row is None else int(row[0])
