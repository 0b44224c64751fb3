"""The league's roster on the box (issue 41, item 1).

The box subscribes to ``shutbox/league/roster/+`` on its pub's broker
(network/session.py): one retained message per league player, which the pub's
bridge brings in from the league's broker (docs/network/league.md). Each is kept
in the record (:func:`take`, store/tables/league.py), replacing the one before;
an empty one removes the player. Nothing swells the box: each message is one
player (about 200 bytes, under the 4 KB the box takes in one packet), and an
entry whose scrypt parameters ask for more than a box computes is refused
(:func:`shutbox_hw.players.league_secret.parse_entry`).

Why one message per player and not the roster in one: the box takes no packet
over 4 KB from its broker, and it refuses a longer one as its length is read
(network/session.py, before a byte of the body); a roster of a thousand players
is a quarter of a megabyte. Raising the bound for one topic cannot be done there
(the topic is in the body), and chunks of one message would need reassembling and
a version to tell a torn roster from a whole one; a retained message per player
needs neither, changes alone, and is removed alone (an empty retained message).
A claim of a league name is verified against what is kept here by
:class:`shutbox_hw.claims.league.Vetting` (on the claims socket's peer thread).
"""

from __future__ import annotations

import logging
import sqlite3

from ..players.league_secret import EntryError, parse_entry
from ..store.tables.league import forget_entry, keep_entry

log = logging.getLogger("shutbox_hw.mqtt")

ROSTER = "shutbox/league/roster"
ROSTER_FILTER = f"{ROSTER}/+"


def roster_player(topic: str) -> int | None:
    """The league player id a roster topic names (None: not a roster topic)."""
    head, _, last = topic.rpartition("/")
    if head != ROSTER or not last.isdigit() or last.startswith("0") or len(last) > 9:
        return None
    return int(last)


def take(db: sqlite3.Connection, topic: str, payload: bytes, now: float) -> str | None:
    """A roster message kept in the record (None), or why it was not (one line)."""
    player = roster_player(topic)
    if player is None:
        return f"{topic} is not a roster topic"
    if not payload:
        forget_entry(db, player)
        return None
    try:
        entry = parse_entry(payload, player)
    except EntryError as error:
        return f"the league's roster entry on {topic} was refused: {error}"
    keep_entry(db, entry, payload.decode("utf-8"), now)
    return None
