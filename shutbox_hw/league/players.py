"""The league's players (issue 41, item 1): a name and a secret only they hold.

``shutbox-hw league players add --dsn DSN NAME`` makes a player: a card code
(:mod:`shutbox_hw.players.league_secret`) printed once, and kept only as a salted
scrypt hash in ``league_players``. The roster the boxes verify claims against is
that table without the secrets: one retained message per player on
``shutbox/league/roster/<id>`` (:func:`roster_topic`), published by every ingest
on the league's broker when it connects and whenever the table changes
(:class:`RosterPublisher`); the pubs' bridges carry the topic in to the pubs'
brokers, whose boxes subscribe to it (:mod:`shutbox_hw.network.league_roster`).

One message per player, not one for the roster: a box takes no packet over 4 KB
from its broker (network/session.py), a player's entry is about 200 bytes, and a
league of a thousand players would be a quarter of a megabyte in one message. A
player's message changes alone (a new code), and a player removed from the league
is an empty retained message on their topic (the box forgets them).

At ingest (:func:`unverified_seats`): a game with a seat named as a league player
whose claim the box did not verify (the seat's ``league`` in the game's message)
is kept aside, reason ``unverified league name``, and reported.

Joining from a box's join page (:func:`take_join`): a phone at a box asks to join
with a name; the box makes the secret (a card code, shown once on the phone, kept
nowhere) and its salted scrypt hash, and queues the request in its outbox for
``shutbox/<box>/league/join`` (:func:`join_topic`):
``{"request": "<16 hex>", "name": "Anna", "kdf": "scrypt", "n", "r", "p", "salt",
"hash"}`` inside the box's envelope (box, epoch, seq, at). The pub's bridge carries
it to the league's broker, where the ingests share its subscription
(:func:`join_filter`) and :func:`join_player` makes the player with that hash.

The answer is the roster (retained, ``shutbox/league/roster/<id>``: every box learns
the player): the box that asked sees the name come back with the hash it made
(joined), or with another hash (the name was taken by someone else first: refused,
with that reason). A request that comes twice (the outbox may send a message again
after a power cut) finds its own hash and changes nothing. A request the league
cannot take (a name the boxes refuse, a hash that is not one) is logged and
dropped: the box checks both before it queues anything, so only a box of another
version or a forger sends one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..players.league_secret import FORMAT, Entry, EntryError, make_entry, new_code, parse_entry
from ..players.names import is_seat_label, name_key, name_problem, tidy

log = logging.getLogger("shutbox_hw.league")

ROSTER = "shutbox/league/roster"
UNVERIFIED = "unverified league name"


def roster_topic(player: int) -> str:
    return f"{ROSTER}/{player}"


class PlayerError(ValueError):
    """A player that cannot be added (message: why, one line)."""


@dataclass(frozen=True)
class Added:
    player: int
    name: str
    code: str           # the secret: printed once, kept nowhere


def checked_name(name: str) -> str:
    """``name`` as the league keeps it (tidied); PlayerError for one the boxes refuse."""
    problem = name_problem(name)
    if problem is not None:
        raise PlayerError(f"NAME: {problem}")
    clean = tidy(name)
    if is_seat_label(clean):
        raise PlayerError(f"NAME: {clean} is a seat's label, not a player's name")
    return clean


def add_player(conn: Any, name: str) -> Added:
    """A new league player called ``name`` with a fresh code (inside its own
    transaction); PlayerError for a name the boxes would refuse or one taken."""
    clean = checked_name(name)
    key = name_key(clean)
    code = new_code()
    with conn.transaction():
        taken = conn.execute("SELECT name FROM league_players WHERE key = %s",
                             (key,)).fetchone()
        if taken is not None:
            raise PlayerError(f"the league has a player called {taken[0]} already "
                              f"(names are compared without case or accents)")
        player, = conn.execute(
            "INSERT INTO league_players (name, key, salt, hash, n, r, p)"
            " VALUES (%s, %s, '', '', 0, 0, 0) RETURNING id", (clean, key)).fetchone()
        entry = make_entry(int(player), clean, code)
        conn.execute("UPDATE league_players SET salt = %s, hash = %s, n = %s, r = %s, p = %s"
                     " WHERE id = %s", (entry.salt, entry.hash, entry.n, entry.r, entry.p,
                                        player))
    return Added(int(player), clean, code)


def renew_code(conn: Any, name: str) -> Added:
    """A new code for the league player called ``name`` (a lost card): the old one
    stops working at each box as the new entry reaches it; PlayerError for no such
    player."""
    code = new_code()
    with conn.transaction():
        row = conn.execute("SELECT id, name FROM league_players WHERE key = %s FOR UPDATE",
                           (name_key(tidy(name)),)).fetchone()
        if row is None:
            raise PlayerError(f"the league has no player called {tidy(name)[:40]}")
        player, spelled = int(row[0]), str(row[1])
        entry = make_entry(player, spelled, code)
        conn.execute("UPDATE league_players SET salt = %s, hash = %s, n = %s, r = %s, p = %s,"
                     " changed_at = clock_timestamp() WHERE id = %s",
                     (entry.salt, entry.hash, entry.n, entry.r, entry.p, player))
    return Added(player, spelled, code)


def roster(conn: Any) -> list[Entry]:
    """Every league player as the boxes know them (no secrets), by id."""
    return [Entry(int(i), name, bytes(salt), bytes(digest), n, r, p)
            for i, name, salt, digest, n, r, p in conn.execute(
                "SELECT id, name, salt, hash, n, r, p FROM league_players ORDER BY id")]


def roster_mark(conn: Any) -> tuple[Any, ...]:
    """What changes whenever the roster does (its players and their last change)."""
    return tuple(conn.execute("SELECT count(*), max(changed_at), max(id)"
                              " FROM league_players").fetchone())


def league_keys(conn: Any, names: Iterable[str]) -> dict[str, int]:
    """The league players among ``names``: name key -> their id."""
    keys = sorted({name_key(n) for n in names} - {""})
    if not keys:
        return {}
    return {key: int(i) for key, i in conn.execute(
        "SELECT key, id FROM league_players WHERE key = ANY(%s)", (keys,))}


def unverified_seats(record: dict[str, Any], players: dict[str, int]) -> list[str]:
    """The seats of a game's ``record`` named as a league player (``players``: key ->
    id) that the box did not verify: their names (empty: the game may count)."""
    wrong = []
    for seat in record.get("seats") or []:
        name = seat.get("name") if isinstance(seat, dict) else None
        if not isinstance(name, str):
            continue
        player = players.get(name_key(name))
        if player is None:
            continue            # a casual player
        league = seat.get("league")
        if not (isinstance(league, dict) and league.get("verified") is True
                and league.get("player") == player):
            wrong.append(name)
    return wrong


class RosterPublisher:
    """The roster on the league's broker, retained: every player's entry when the
    ingest connects (:meth:`connected`), and again when ``league_players`` changes
    (:meth:`tick`, from the ingest's loop); a player no longer there, an empty
    retained message."""

    def __init__(self) -> None:
        self._mark: tuple[Any, ...] | None = None
        self._published: set[int] = set()
        self._client: Any = None

    def connected(self, client: Any) -> None:
        self._client, self._mark = client, None     # published again on the next tick

    def tick(self, conn: Any) -> int:
        """Publish the roster if it changed since the last time (or the connection is
        new); how many messages went out."""
        if self._client is None:
            return 0
        mark = roster_mark(conn)
        if mark == self._mark:
            return 0
        entries = roster(conn)
        sent = 0
        for entry in entries:
            self._client.publish(roster_topic(entry.player), json.dumps(entry.as_json()),
                                 qos=1, retain=True)
            sent += 1
        for gone in self._published - {e.player for e in entries}:
            self._client.publish(roster_topic(gone), b"", qos=1, retain=True)
            sent += 1
        self._published = {e.player for e in entries}
        self._mark = mark
        if sent:
            log.info("league ingest: published the roster (%d player(s))", len(entries))
        return sent


# ---------------------------------------------------------------- joining from a box

JOIN_KIND = "league/join"
REQUEST_CHARS = 16


def join_topic(box: str) -> str:
    return f"shutbox/{box}/{JOIN_KIND}"


def join_filter(group: str) -> str:
    """The ingests' shared subscription to every box's join requests."""
    return f"$share/{group}/shutbox/+/{JOIN_KIND}"


def join_box(topic: str) -> str | None:
    """The box a join topic belongs to (None: not one)."""
    parts = topic.split("/")
    if len(parts) == 4 and parts[0] == "shutbox" and parts[1] and "/".join(parts[2:]) \
            == JOIN_KIND:
        return parts[1]
    return None


@dataclass(frozen=True)
class JoinRequest:
    box: str
    request: str
    name: str
    salt: bytes
    hash: bytes
    n: int
    r: int
    p: int


class JoinError(ValueError):
    """A join request the league cannot take (message: why, one line)."""


def parse_join(topic: str, payload: bytes | str) -> JoinRequest:
    """The request a join message carries; JoinError says what is wrong."""
    box = join_box(topic)
    if box is None:
        raise JoinError(f"{topic} is not a join topic")
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise JoinError("not JSON") from None
    if not isinstance(data, dict):
        raise JoinError("not a JSON object")
    request = data.get("request")
    if not (isinstance(request, str) and len(request) == REQUEST_CHARS
            and all(c in "0123456789abcdef" for c in request)):
        raise JoinError(f"its request id is not {REQUEST_CHARS} hexadecimal digits")
    if data.get("box") not in (None, box):
        raise JoinError("its box is not its topic's")
    try:    # the roster entry's own checks: the name, the scrypt parameters, the sizes
        entry = parse_entry(json.dumps({**data, "v": FORMAT, "player": 1}), 1)
    except EntryError as error:
        raise JoinError(str(error)) from None
    try:
        name = checked_name(entry.name)
    except PlayerError as error:
        raise JoinError(str(error)) from None
    return JoinRequest(box, request, name, entry.salt, entry.hash, entry.n, entry.r, entry.p)


@dataclass(frozen=True)
class Joined:
    kind: str          # "joined", "again" (this request, seen before) or "taken"
    player: int
    name: str          # as the league spells it (for "taken": the player's who has it)


def join_player(conn: Any, req: JoinRequest) -> Joined:
    """The player ``req`` asks for, made with its hash (inside its own transaction),
    unless the name is taken: by this request before ("again": nothing changes) or by
    another player ("taken")."""
    key = name_key(req.name)
    with conn.transaction():
        # two ingests with two requests for one name: the second waits for the first's
        # commit, inserts nothing, and then reads the first's row
        made = conn.execute(
            "INSERT INTO league_players (name, key, salt, hash, n, r, p)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO NOTHING RETURNING id",
            (req.name, key, req.salt, req.hash, req.n, req.r, req.p)).fetchone()
        if made is not None:
            return Joined("joined", int(made[0]), req.name)
        row = conn.execute("SELECT id, name, hash FROM league_players WHERE key = %s",
                           (key,)).fetchone()
    same = bytes(row[2]) == req.hash
    return Joined("again" if same else "taken", int(row[0]), str(row[1]))


def take_join(conn: Any, topic: str, payload: bytes) -> str:
    """One join message handled: what became of it, one line for the journal (never
    the hash)."""
    try:
        req = parse_join(topic, payload)
    except JoinError as error:
        return f"a join request on {topic} was dropped: {error}"
    done = join_player(conn, req)
    if done.kind == "taken":
        return (f"box {req.box} asked for {req.name} to join (request {req.request}): "
                f"refused, the league has a player called {done.name} already")
    return (f"box {req.box}: {done.name} joined the league (id {done.player}, request "
            f"{req.request})" + (", asked again" if done.kind == "again" else ""))
