"""A phone at the box asks to join the league (issue 41, item 1): the daemon's part.

The web makes the secret and its scrypt hash (:func:`make_request`: the secret is
shown once on the phone and never leaves the web's memory) and sends the daemon
``{"league_join": {"request", "name", "kdf", "n", "r", "p", "salt", "hash"}}`` over
the claims socket. On the peer's thread (never the loop) :class:`LeagueJoins`
checks the name as the league will (players/names.py: a name the boxes take, not a
seat's label), refuses one the roster already holds or another phone asked for
and is still waiting, and queues the request in the record's outbox for
``shutbox/<box>/league/join`` (the publisher sends it whenever the broker is
there: a pub offline keeps it). What became of it is read from the record, by the
web, without asking the daemon (:func:`join_state`): still in the outbox
(waiting to be sent), in the roster with the hash this request made (joined) or
another one (the name was taken first), or neither yet (sent, the league's answer
to come).

The request's id is the first 16 hex digits of the SHA-256 of its salt and hash:
the roster's entry says by itself whether it is this request's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..players.league_secret import (
    FORMAT,
    Entry,
    EntryError,
    make_entry,
    new_code,
    parse_entry,
)
from ..players.names import is_seat_label, name_key, name_problem, tidy
from ..store.tables.league import league_entry
from ..store.tables.transaction import immediate

log = logging.getLogger("shutbox_hw")

TOPIC = "league_join"          # the outbox's topic (network/publisher.py: topics)
BUSY_TIMEOUT_S = 5.0
WAITING_MAX = 20               # requests waiting in the outbox at once (a pub offline)

OFF = "joining the league is not offered on this box"
NOT_UNDERSTOOD = "not understood: the league request"
TAKEN = "the league has a player called {name} already: choose another name"
ASKED = "someone at this box has asked for the name {name} already: choose another name"
TOO_MANY = "too many requests to join are waiting to be sent: try again later"
SEAT_LABEL = "{name} is a seat's label: choose a name"
BUSY = "the box is busy: try again in a moment"


@dataclass(frozen=True)
class Made:
    """A request made in the web: what goes to the daemon, and the secret for the phone."""
    request: dict[str, Any]
    code: str


def request_id(salt: bytes, digest: bytes) -> str:
    return hashlib.sha256(salt + digest).hexdigest()[:16]


def make_request(name: str) -> Made:
    """A fresh secret for ``name`` (tidied) and the request carrying its hash."""
    code = new_code()
    entry = make_entry(1, tidy(name), code)
    data = entry.as_json()
    del data["v"], data["player"]
    return Made({"request": request_id(entry.salt, entry.hash), **data}, code)


def _parsed(message: Any) -> tuple[str, Entry] | None:
    """(request id, the entry it carries) of a request as the web sent it (None: not one)."""
    if not isinstance(message, dict):
        return None
    try:
        entry = parse_entry(json.dumps({**message, "v": FORMAT, "player": 1}), 1)
    except (EntryError, TypeError, ValueError):
        return None
    request = message.get("request")
    if request != request_id(entry.salt, entry.hash):
        return None
    return str(request), entry


def _waiting(db: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = db.execute("SELECT event FROM outbox WHERE topic = ?", (TOPIC,)).fetchall()
    out = []
    for text, in rows:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


class LeagueJoins:
    """The daemon's handler of ``league_join`` messages, on the claims socket's peer
    threads; ``offered``: the box has a broker (``[network] mqtt``)."""

    def __init__(self, db_path: str | Path, offered: bool,
                 clock: Callable[[], float] = time.time) -> None:
        self.db_path, self.offered, self._clock = str(db_path), offered, clock

    def __call__(self, message: Any) -> dict[str, Any]:
        if not self.offered:
            return {"ok": False, "reason": OFF}
        problem = name_problem(message.get("name")) if isinstance(message, dict) else None
        if problem is not None:        # said in words, as a claim's name is
            return {"ok": False, "reason": problem}
        parsed = _parsed(message)
        if parsed is None:
            return {"ok": False, "reason": NOT_UNDERSTOOD}
        request, entry = parsed
        if is_seat_label(entry.name):
            return {"ok": False, "reason": SEAT_LABEL.format(name=entry.name)}
        try:
            db = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as error:
            log.warning("league join: the record cannot be opened (%s)", error)
            return {"ok": False, "reason": BUSY}
        try:
            return self._queue(db, request, entry)
        except sqlite3.Error as error:
            log.warning("league join: the request could not be queued (%s)", error)
            return {"ok": False, "reason": BUSY}
        finally:
            db.close()

    def _queue(self, db: sqlite3.Connection, request: str, entry: Entry) -> dict[str, Any]:
        with immediate(db):
            known = league_entry(db, entry.name)
            if known is not None:
                return {"ok": False, "reason": TAKEN.format(name=known.name)}
            waiting = _waiting(db)
            if any(isinstance(w.get("name"), str) and name_key(w["name"]) == entry.key
                   for w in waiting):
                return {"ok": False, "reason": ASKED.format(name=entry.name)}
            if len(waiting) >= WAITING_MAX:
                return {"ok": False, "reason": TOO_MANY}
            data = entry.as_json()
            del data["v"], data["player"]
            db.execute("INSERT INTO outbox (at, event, topic) VALUES (?, ?, ?)",
                       (self._clock(), json.dumps({"request": request, **data},
                                                  separators=(",", ":")), TOPIC))
        log.info("league join: %s asked to join the league from a phone (request %s)",
                 entry.name, request)
        return {"ok": True, "request": request, "name": entry.name}


@dataclass(frozen=True)
class JoinState:
    state: str          # "waiting" (in the outbox), "sent", "joined" or "taken"
    name: str           # as the roster spells it once there


def join_state(db: sqlite3.Connection, request: str, name: str) -> JoinState:
    """What became of the request ``request`` for ``name``, from the record alone."""
    for data in _waiting(db):
        if data.get("request") == request:
            return JoinState("waiting", tidy(name))
    entry = league_entry(db, name)
    if entry is None:
        return JoinState("sent", tidy(name))
    mine = request_id(entry.salt, entry.hash) == request
    return JoinState("joined" if mine else "taken", entry.name)
