"""A claim of a league player's name verified with their secret (issue 41, item 1).

:class:`Vetting` is what the claims socket asks before a claim goes to the referee
(:mod:`.server`, on the peer's thread: the scrypt hash never holds up the box's
loop): a league player's name needs their secret, verified against the roster the
record holds (kept there from the league's retained messages by
network/league_roster.py, so it works when the pub's internet is down, and after a
restart then); a wrong or missing secret is refused in words; a name not in the
roster is a guest's, as before, unless a secret came with it. Five wrong secrets
for one name within a minute refuse that name for a minute (a table of phones
guessing gets nowhere; a code has 2**50 values anyway). A verified name is noted
for the game being set up (store/tables/league.py): its message to the league says
so, and the league checks it again.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ..game.model.join import WRONG
from ..players.league_secret import Entry, verify
from ..players.names import name_key
from ..store.tables.league import league_entry, note_verified

log = logging.getLogger("shutbox_hw")

BUSY_TIMEOUT_S = 5.0
WRONG_MAX = 5             # wrong secrets for one name ...
WRONG_WINDOW_S = 60.0     # ... within this long refuse the name for as long
MAX_SECRET = 64

NEEDS_SECRET = ("{name} is a league player's name: type their secret (the code on their "
                "card) as well, or choose another name")
WRONG_SECRET = "that is not {name}'s secret: check the code on the card"
TOO_MANY = "too many wrong secrets for {name}: wait a minute and try again"
WRONG_CODE = WRONG     # the referee's words for a code not the current one
BUSY = "the box is busy: try again in a moment"     # as claims/server.py says it
UNREADABLE = "the box cannot read the league's roster now: try again in a moment"
NOT_IN_LEAGUE = ("{name} is not in the league's roster on this box: leave the secret out "
                 "to play as a guest")


class Vetting:
    """A claim's name and secret checked against the roster in the record at ``db_path``
    (called on the claims socket's peer threads): (None, the name to seat) lets the
    claim go on to the referee, else (the refusal for the phone, the name). A league
    name verified is noted for the game being set up (its message says so).

    It runs before the referee checks the join code, against the code the loop last
    told the socket (claims/desk.py): a claim without it never has its secret looked
    at, so only a phone at the table can spend a name's five wrong secrets."""

    def __init__(self, db_path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.db_path = str(db_path)
        self._clock = clock
        self._lock = threading.Lock()
        self._wrong: dict[str, deque[float]] = {}

    def __call__(self, name: str, secret: str, code_ok: bool = True) -> tuple[str | None, str]:
        """(None, the name to seat) or (the refusal, ``name``). ``code_ok``: the claim
        bears the box's current join code; without it a league player's name is refused
        as the referee refuses the code, before any secret is looked at (nobody without
        the code spends a name's wrong secrets), and a guest's goes on to the referee,
        which refuses the code in its own words."""
        refusal, entry = self._vet(name, secret.strip(), code_ok)
        return refusal, name if entry is None or refusal is not None else entry.name

    def _vet(self, name: str, secret: str, code_ok: bool) -> tuple[str | None, Entry | None]:
        try:
            db = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as error:
            log.warning("league roster: the record cannot be read (%s)", error)
            return UNREADABLE, None
        try:
            try:
                entry = league_entry(db, name)
            except sqlite3.OperationalError:      # a record not migrated yet (the box starting)
                entry = None
            if entry is None:
                return (NOT_IN_LEAGUE.format(name=name) if secret and code_ok else None), None
            if not code_ok:
                return WRONG_CODE, entry
            if not secret:
                return NEEDS_SECRET.format(name=entry.name), entry
            key, now = name_key(name), self._clock()
            if self._refused(key, now):
                return TOO_MANY.format(name=entry.name), entry
            if len(secret) > MAX_SECRET or not verify(entry, secret):
                self._count_wrong(key, now)
                return WRONG_SECRET.format(name=entry.name), entry
            try:
                note_verified(db, entry, now)
            except sqlite3.Error as error:
                log.warning("league roster: a verified claim could not be noted (%s)", error)
                return BUSY, entry
            return None, entry
        finally:
            db.close()

    def _refused(self, key: str, now: float) -> bool:
        with self._lock:
            times = self._wrong.get(key)
            while times and times[0] <= now - WRONG_WINDOW_S:
                times.popleft()
            return times is not None and len(times) >= WRONG_MAX

    def _count_wrong(self, key: str, now: float) -> None:
        with self._lock:
            if len(self._wrong) > 1000:        # bounded: the oldest names forgotten
                self._wrong.pop(next(iter(self._wrong)))
            self._wrong.setdefault(key, deque()).append(now)
