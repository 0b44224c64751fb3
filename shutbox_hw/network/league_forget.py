"""A player deleted at the league, removed on the box (issue 41, item 6).

The league publishes a tombstone per deleted player, retained, on
``shutbox/league/forget/<id>`` (league/rights.py); the pub's bridge brings it in
beside the roster, and the box subscribes to ``shutbox/league/forget/+``
(network/session.py). A box offline for a week gets it when it connects again: the
pub's broker keeps it retained. The tombstone names the player by the fingerprint of
their name (a SHA-256 of the name as the roster compares names), never the name: the
box finds the name among the ones it holds (its roster of players, the league's
roster it kept) and removes the player with its own removal
(:func:`shutbox_hw.store.write.forget.forget_player`, what ``shutbox-hw players
--remove`` does: the record, the outbox, the kept figures), deletes their league
roster entry, verified claims and rows of the TV's league table
(store/tables/league_table.py), and notes the tombstone in ``league_forgotten`` in
the same transaction, so that it is applied once: a restarted box, which receives it
again, does nothing (a newcomer who later plays under that name at this box is
not removed). A player sitting in the game under way is removed when a later
try after the game (the session tries again every few seconds); nothing is
noted meanwhile.

A tombstone is at most 4 KB like every packet the box takes, and validated: v 1, the
topic's player id, a fingerprint of 64 hex digits, a pseudonym that is a name as the
league's names are.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from dataclasses import dataclass

from ..players.names import name_key, name_problem
from ..store.tables.league_table import forget as forget_in_table
from ..store.tables.transaction import immediate
from ..store.write.forget import WAIT_S, RemoveRefused, forget_player

log = logging.getLogger("shutbox_hw.mqtt")

FORGET = "shutbox/league/forget"
FORGET_FILTER = f"{FORGET}/+"
MAX_TOMBSTONE = 4096


def forget_player_id(topic: str) -> int | None:
    """The league player id a tombstone's topic names (None: not one)."""
    head, _, last = topic.rpartition("/")
    if head != FORGET or not last.isdigit() or last.startswith("0") or len(last) > 9:
        return None
    return int(last)


def fingerprint(name: str) -> str:
    """As the league makes it (league/rights.py)."""
    return hashlib.sha256(b"shutbox-forget\0" + name_key(name).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Tombstone:
    player: int
    fingerprint: str
    pseudonym: str


class TombstoneError(ValueError):
    """Not a tombstone the box takes (message: why, one line)."""


def parse(payload: bytes, player: int) -> Tombstone:
    if len(payload) > MAX_TOMBSTONE:
        raise TombstoneError(f"longer than {MAX_TOMBSTONE} bytes")
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        raise TombstoneError("not JSON") from None
    if not isinstance(data, dict) or data.get("v") != 1:
        raise TombstoneError("not a tombstone of version 1")
    if data.get("player") != player:
        raise TombstoneError(f"it names player {str(data.get('player'))[:12]}, its topic {player}")
    print_ = data.get("fingerprint")
    if not (isinstance(print_, str) and len(print_) == 64
            and all(c in "0123456789abcdef" for c in print_)):
        raise TombstoneError("its fingerprint is not 64 hex digits")
    alias = data.get("pseudonym")
    problem = name_problem(alias)
    if problem is not None:
        raise TombstoneError(f"its pseudonym is not a name: {problem}")
    assert isinstance(alias, str)
    return Tombstone(player, print_, alias)


def _names(db: sqlite3.Connection) -> list[str]:
    names = [n for n, in db.execute("SELECT name FROM roster")]
    try:
        names += [n for n, in db.execute("SELECT name FROM league_roster")]
    except sqlite3.OperationalError:       # a record before schema 9
        pass
    return names


def applied(db: sqlite3.Connection, player: int) -> bool:
    """Whether the box applied the tombstone of league player ``player`` (league ids
    are never used again: a roster entry for them is then an old retained copy, which a
    pub's broker cut off from the league when they were deleted may still hold, and is
    not kept: network/session.py)."""
    try:
        return db.execute("SELECT 1 FROM league_forgotten WHERE player = ?",
                          (player,)).fetchone() is not None
    except sqlite3.OperationalError:       # a record before schema 10, read as it is: no table
        return False


def take(db: sqlite3.Connection, topic: str, payload: bytes, now: float) -> str | None:
    """A tombstone applied (or already applied, or naming nobody this box holds: noted
    either way): None; else why not (one line) and nothing changed."""
    player = forget_player_id(topic)
    if player is None:
        return f"{topic} is not a tombstone's topic"
    if not payload:
        return None              # cleared on the broker: nothing to do
    try:
        stone = parse(payload, player)
    except TombstoneError as error:
        return f"the league's tombstone on {topic} was refused: {error}"
    if applied(db, player):
        return None
    try:
        games = _apply(db, stone, now)
    except RemoveRefused as error:
        return (f"the league deleted player {player}, not removed yet: {error}"
                " (tried again shortly)")
    log.info("league: player %d deleted at the league, removed here (%d game(s))",
             player, games)
    return None


def _apply(db: sqlite3.Connection, stone: Tombstone, now: float) -> int:
    player = stone.player
    with immediate(db, WAIT_S):   # league_forgotten: part of the schema (10)
        matches = sorted({n for n in _names(db) if fingerprint(n) == stone.fingerprint})
        games = 0
        for name in matches:
            try:
                games += forget_player(db, name, now).games
            except RemoveRefused as error:
                if "not in the roster" not in str(error):
                    raise       # sits in the game under way: nothing changed, tried again
        try:
            keys = [k for k, in db.execute("SELECT DISTINCT key FROM league_claims")]
            for key in keys:
                if fingerprint(key) == stone.fingerprint:
                    db.execute("DELETE FROM league_claims WHERE key = ?", (key,))
            db.execute("DELETE FROM league_roster WHERE player = ?", (player,))
            forget_in_table(db, lambda name: fingerprint(name) == stone.fingerprint)
        except sqlite3.OperationalError:    # a record before schema 9
            pass
        db.execute("INSERT INTO league_forgotten (player, fingerprint, games, applied_at)"
                   " VALUES (?, ?, ?, ?)", (player, stone.fingerprint, games, now))
    return games
