"""One game message into the league's database, keyed by (box, epoch, game id).

:func:`write` runs inside the caller's transaction (a savepoint of its own, so
one bad message never undoes the others of a batch) and says what it did:

- ``stored``: a new game, with its seats, and no longer missing;
- ``duplicate``: the same game again (the box's resend, a broker's redelivery):
  dropped; if it carries more move ratings than the stored one (the box's rater
  finished the game's last turns in between) those are kept (``ratings``);
- ``differs``: the same key with a different game: the first stays, the new one
  is kept aside (table ``set_aside``) and reported;
- ``other box``: a message whose ``box`` is not its topic's: refused, kept
  aside and reported (a box writes only its own topics; a bridge that lets one
  through is misconfigured);
- ``unreadable``: not JSON, or not a game message (truncated, damaged): kept
  aside and reported;
- ``unverified``: a seat named as a league player whose secret the box did not
  verify (issue 41, item 1: :func:`.players.unverified_seats`): kept aside, reason
  ``unverified league name``, and reported; the gap round does not ask for it again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store.tables.game_record import content

try:   # the league extra brings it; without it, json alone (the same answers, slower)
    import orjson as _orjson
except ImportError:  # pragma: no cover
    _orjson = None  # type: ignore[assignment]
from .players import UNVERIFIED, league_keys, unverified_seats
from .rights import anonymise_record, fingerprint, forgotten_prints

STATES = ("finished", "abandoned")
# the keys content() leaves out (the envelope and the ratings): the batch drops them
# in SQL from the message's own text, as content() does in Python (test_league_record)
LEFT_OUT = ("ratings", "box", "epoch", "seq", "at")
PAYLOAD_KEPT = 1_000_000   # characters of a set-aside payload kept (a huge one is cut)


@dataclass(frozen=True)
class Outcome:
    kind: str                  # stored, duplicate, ratings, differs, other box, unreadable
    box: str | None
    epoch: str | None = None
    game: int | None = None
    detail: str = ""

    @property
    def reported(self) -> bool:
        """Whether the organiser must hear of it (kept aside)."""
        return self.kind in ("differs", "other box", "unreadable", "unverified")

    def line(self) -> str:
        where = f"box {self.box}" + (f" epoch {self.epoch}" if self.epoch else "") + (
            f" game {self.game}" if self.game is not None else "")
        return f"{where}: {self.kind}" + (f" ({self.detail})" if self.detail else "")


def topic_box(topic: str, kind: str = "game") -> str | None:
    """The box a topic ``shutbox/<box>/<kind>`` belongs to (None: not such a topic)."""
    parts = topic.split("/")
    if len(parts) == 3 and parts[0] == "shutbox" and parts[2] == kind and parts[1]:
        return parts[1]
    return None


def _problem(record: Any) -> str | None:
    """Why ``record`` is not a game message (None: it is one)."""
    if not isinstance(record, dict):
        return "not a JSON object"
    for key, kind in (("box", str), ("epoch", str), ("game", int), ("state", str),
                      ("seats", list), ("rounds", list), ("turns", list), ("result", dict)):
        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool):
            return f"no {key}" if key not in record else f"{key} is not a {kind.__name__}"
    if not 0 < record["game"] < 2**31:
        return "game id out of range"
    if record["state"] not in STATES:
        return f"state {record['state']!r} is not finished or abandoned"
    if not record["epoch"] or len(record["epoch"]) > 64 or not record["box"]:
        return "an empty or overlong box or epoch"
    for seat in record["seats"]:
        if not (isinstance(seat, dict) and isinstance(seat.get("seat"), int)
                and isinstance(seat.get("name"), str)):
            return "a seat without its number and name"
    return None


def _set_aside(conn: Any, topic: str, box: str | None, epoch: str | None, game: int | None,
               reason: str, payload: str) -> None:
    conn.execute("INSERT INTO set_aside (topic, box, epoch, game, reason, payload)"
                 " VALUES (%s, %s, %s, %s, %s, %s)",
                 (topic, box, epoch, game, reason, payload[:PAYLOAD_KEPT]))


def _seen(conn: Any, box: str, epoch: str, latest: int | None = None) -> None:
    """The box and its epoch seen now (``latest``: a game id it has ended)."""
    conn.execute("INSERT INTO boxes (box) VALUES (%s) ON CONFLICT (box) DO UPDATE"
                 " SET last_seen = now()", (box,))
    conn.execute("INSERT INTO epochs (box, epoch, latest, latest_at) VALUES (%s, %s, %s,"
                 " CASE WHEN %s::integer IS NULL THEN NULL ELSE now() END)"
                 " ON CONFLICT (box, epoch) DO UPDATE SET last_seen = now(),"
                 " latest = GREATEST(epochs.latest, excluded.latest),"
                 " latest_at = CASE WHEN excluded.latest > coalesce(epochs.latest, 0)"
                 " THEN now() ELSE epochs.latest_at END", (box, epoch, latest, latest))


def write(conn: Any, topic: str, payload: bytes) -> Outcome:
    """Write one message of ``shutbox/<box>/game`` (inside the caller's transaction)."""
    with conn.transaction():
        return _write(conn, topic, payload)


def _write(conn: Any, topic: str, payload: bytes) -> Outcome:
    box = topic_box(topic)
    text = payload.decode("utf-8", errors="replace").replace("\x00", "\ufffd")
    try:
        record = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as error:
        _set_aside(conn, topic, box, None, None, "unreadable", text)
        return Outcome("unreadable", box, detail=f"not JSON: {error}")
    problem = _problem(record)
    if problem is not None:
        get = record.get if isinstance(record, dict) else (lambda _key: None)
        epoch = get("epoch") if isinstance(get("epoch"), str) else None
        game = _game_id(get("game"))
        _set_aside(conn, topic, box, epoch, game, "unreadable", text)
        return Outcome("unreadable", box, epoch, game, problem)
    epoch, game = record["epoch"], record["game"]
    if box is None or record["box"] != box:
        _set_aside(conn, topic, box, epoch, game, "other box", text)
        return Outcome("other box", box, epoch, game,
                       f"the message says box {record['box']!r}, its topic is {topic}")
    _seen(conn, box, epoch, game)
    prints = _prints(conn, _names(record))
    if prints and any(fingerprint(n) in prints for n in _names(record)):
        record = anonymise_record(record, prints)      # a player deleted at the league
        text = json.dumps(record)
    wrong = unverified_seats(record, league_keys(conn, _names(record)))
    if wrong:
        _keep_unverified(conn, [(topic, box, epoch, game, UNVERIFIED, text[:PAYLOAD_KEPT])])
        return _unverified_outcome(box, epoch, game, wrong)
    kept = content(record)
    ratings = record.get("ratings") if isinstance(record.get("ratings"), list) else []
    row = conn.execute(
        "INSERT INTO games (box, epoch, game, state, started_at, ended_at, seq, record,"
        " ratings) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (box, epoch, game) DO NOTHING RETURNING game",
        (box, epoch, game, record["state"], _number(record.get("started_at")),
         _number(record.get("ended_at")), _int(record.get("seq")), json.dumps(kept),
         json.dumps(ratings))).fetchone()
    if row is not None:
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO seats (box, epoch, game, seat, name)"
                            " VALUES (%s, %s, %s, %s, %s)",
                            [(box, epoch, game, s["seat"], s["name"]) for s in record["seats"]])
        conn.execute("DELETE FROM missing WHERE box = %s AND epoch = %s AND game = %s",
                     (box, epoch, game))
        return Outcome("stored", box, epoch, game)
    first, first_ratings = conn.execute(
        "SELECT record, ratings FROM games WHERE box = %s AND epoch = %s AND game = %s",
        (box, epoch, game)).fetchone()
    if first != json.loads(json.dumps(kept)):
        _set_aside(conn, topic, box, epoch, game, "differs", text)
        return Outcome("differs", box, epoch, game,
                       "a different game under a key already held: the first kept")
    if len(ratings) > len(first_ratings):
        conn.execute("UPDATE games SET ratings = %s WHERE box = %s AND epoch = %s"
                     " AND game = %s", (json.dumps(ratings), box, epoch, game))
        return Outcome("ratings", box, epoch, game)
    return Outcome("duplicate", box, epoch, game)


@dataclass(frozen=True)
class _Game:
    """A game message that passed every check: what the batch writes."""
    index: int
    topic: str
    payload: bytes     # as it came (its text, kept aside if it is: :attr:`text`)
    box: str
    epoch: str
    game: int
    record: dict[str, Any]
    json: str          # the message as JSON text (PostgreSQL parses it, drops LEFT_OUT)
    ratings: list[Any]

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.box, self.epoch, self.game)

    @property
    def text(self) -> str:
        return _text(self.payload)


def _fast_game(payload: bytes) -> Any:
    """The message read as :func:`json.loads` reads it, sooner, when it is a game message
    (None: read it with json.loads). orjson reads a game's 5 KB in under a third of
    json's time, and gives json's answer for every text both read, but an integer past
    64 bits (a float to orjson): a record orjson reads is used only when it passes
    :func:`_problem`, which checks every number the batch takes from it as an integer
    (its game, seats); what orjson refuses (NaN, a BOM, UTF-16, a lone surrogate) and
    every bad message go to json.loads, which reads or refuses them as before, with
    its own message. The record's text itself is parsed by PostgreSQL (not from here),
    and :func:`_forgotten` reads a game it rewrites with json.loads."""
    if _orjson is None:
        return None
    try:
        record = _orjson.loads(payload)
    except ValueError:
        return None
    return record if _problem(record) is None else None


def _classify(index: int, topic: str,
              payload: bytes) -> tuple[_Game | None, Outcome | None, tuple[Any, ...] | None]:
    """A message as a game to write, or its outcome and the set-aside row."""
    box = topic_box(topic)
    record = _fast_game(payload)
    if record is not None and box is not None and record["box"] == box:
        try:
            as_json = payload.decode("utf-8-sig")
        except UnicodeDecodeError:     # not reached: orjson reads UTF-8 only
            as_json = json.dumps(record)
        ratings = record.get("ratings") if isinstance(record.get("ratings"), list) else []
        return _Game(index, topic, payload, box, record["epoch"], record["game"], record,
                     as_json, ratings), None, None
    text = _text(payload)
    try:
        record = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as error:
        return None, Outcome("unreadable", box, detail=f"not JSON: {error}"), (
            topic, box, None, None, "unreadable", text[:PAYLOAD_KEPT])
    problem = _problem(record)
    if problem is not None:
        get = record.get if isinstance(record, dict) else (lambda _key: None)
        epoch = get("epoch") if isinstance(get("epoch"), str) else None
        game = _game_id(get("game"))
        return None, Outcome("unreadable", box, epoch, game, problem), (
            topic, box, epoch, game, "unreadable", text[:PAYLOAD_KEPT])
    epoch, game = record["epoch"], record["game"]
    if box is None or record["box"] != box:
        return None, Outcome("other box", box, epoch, game,
                             f"the message says box {record['box']!r}, its topic is {topic}"), (
            topic, box, epoch, game, "other box", text[:PAYLOAD_KEPT])
    ratings = record.get("ratings") if isinstance(record.get("ratings"), list) else []
    try:
        as_json = payload.decode("utf-8-sig")
    except UnicodeDecodeError:      # JSON in UTF-16 or 32, which json.loads reads too
        as_json = json.dumps(record)
    return _Game(index, topic, payload, box, epoch, game, record, as_json, ratings), None, None


def _text(payload: bytes) -> str:
    """A message as kept aside: its text, whatever its bytes."""
    return payload.decode("utf-8", errors="replace").replace("\x00", "\ufffd")


Seen = dict[tuple[str, str], int | None]      # (box, epoch) -> its latest game (None: none)


def seen_in(messages: Sequence[tuple[str, bytes]], states: Seen | None = None) -> Seen:
    """The boxes and epochs the game ``messages`` (those that can be written) and the
    boxes' ``states`` touch, each with the latest game id they report."""
    games = [g for i, (topic, payload) in enumerate(messages)
             if (g := _classify(i, topic, payload)[0]) is not None]
    return _seen_of(games, states)


def _seen_of(games: Sequence[_Game], states: Seen | None) -> Seen:
    seen: Seen = dict(states or {})
    for g in games:
        known = seen.get((g.box, g.epoch))
        seen[(g.box, g.epoch)] = g.game if known is None else max(known, g.game)
    return seen


def seen_all(conn: Any, seen: Seen) -> None:
    """The boxes and epochs seen now, with their latest games: upserted (so locked until
    the caller's transaction ends) in one order, sorted by (box, epoch), before anything
    else of the transaction. Two ingests' transactions on the same boxes then wait for
    each other at their first common box instead of locking them in opposite orders
    (PostgreSQL's "deadlock detected"). ``WITH ORDINALITY ... ORDER BY``: the rows are
    locked in the order given, whatever PostgreSQL's collation."""
    if not seen:
        return
    keys = sorted(seen)
    conn.execute("INSERT INTO boxes (box) SELECT b FROM unnest(%s::text[])"
                 " WITH ORDINALITY AS t(b, n) ORDER BY n"
                 " ON CONFLICT (box) DO UPDATE SET last_seen = now()",
                 (sorted({b for b, _ in keys}),))
    conn.execute("INSERT INTO epochs (box, epoch, latest, latest_at)"
                 " SELECT b, e, l, CASE WHEN l IS NULL THEN NULL ELSE now() END"
                 " FROM unnest(%s::text[], %s::text[], %s::int[])"
                 " WITH ORDINALITY AS t(b, e, l, n) ORDER BY n"
                 " ON CONFLICT (box, epoch) DO UPDATE SET last_seen = now(),"
                 " latest = GREATEST(epochs.latest, excluded.latest),"
                 " latest_at = CASE WHEN excluded.latest > coalesce(epochs.latest, 0)"
                 " THEN now() ELSE epochs.latest_at END",
                 ([b for b, _ in keys], [e for _, e in keys], [seen[k] for k in keys]))


def _insert_new(conn: Any, games: list[_Game]) -> list[_Game]:
    """The batch's games not held yet inserted (the first of each key), with their seats;
    each no longer missing. Returns the games stored."""
    firsts: dict[tuple[str, str, int], _Game] = {}
    for g in games:
        firsts.setdefault(g.key, g)
    new = list(firsts.values())
    # the arrays in binary (%b): no quoting of every game's JSON into an array's text
    # and back (most of the batch's time in Python and in PostgreSQL); each message
    # parsed once as jsonb (OFFSET 0: the subquery is not folded into its three uses)
    inserted = {(b, e, n) for b, e, n in conn.execute(
        "INSERT INTO games (box, epoch, game, state, started_at, ended_at, seq, record,"
        " ratings) SELECT b, e, g, s, st, en, q, j - %b::text[],"
        " CASE WHEN jsonb_typeof(j -> 'ratings') = 'array' THEN j -> 'ratings'"
        " ELSE '[]'::jsonb END FROM unnest(%b::text[], %b::text[], %b::int[],"
        " %b::text[], %b::float8[], %b::float8[], %b::int8[], %b::text[])"
        " AS t(b, e, g, s, st, en, q, p) CROSS JOIN LATERAL (SELECT p::jsonb AS j OFFSET 0) x"
        " ON CONFLICT (box, epoch, game) DO NOTHING RETURNING box, epoch, game",
        (list(LEFT_OUT), [g.box for g in new], [g.epoch for g in new],
         [g.game for g in new], [g.record["state"] for g in new],
         [_number(g.record.get("started_at")) for g in new],
         [_number(g.record.get("ended_at")) for g in new],
         [_int(g.record.get("seq")) for g in new], [g.json for g in new])).fetchall()}
    stored = [g for g in new if g.key in inserted]
    seats = [(g.box, g.epoch, g.game, s["seat"], s["name"]) for g in stored
             for s in g.record["seats"]]
    if seats:
        conn.execute("INSERT INTO seats (box, epoch, game, seat, name) SELECT * FROM"
                     " unnest(%b::text[], %b::text[], %b::int[], %b::int[], %b::text[])",
                     tuple(list(column) for column in zip(*seats, strict=True)))
    if stored:
        conn.execute("DELETE FROM missing m USING unnest(%b::text[], %b::text[],"
                     " %b::int[]) AS t(b, e, g) WHERE m.box = t.b AND m.epoch = t.e"
                     " AND m.game = t.g", ([g.box for g in stored],
                                           [g.epoch for g in stored],
                                           [g.game for g in stored]))
    return stored


def _settle_held(conn: Any, rest: list[_Game], outcomes: list[Outcome | None],
                 aside: list[tuple[Any, ...]]) -> None:
    """The batch's games whose key was held already: a different game set aside, more
    ratings kept, else a duplicate (each one's outcome filled in). Each is compared with
    the game held under its key as jsonb, in one query."""
    same = {i: (bool(equal), int(held)) for i, equal, held in conn.execute(
        "SELECT t.i, x.record = t.p::jsonb - %b::text[], jsonb_array_length("
        "x.ratings) FROM games x JOIN unnest(%b::int[], %b::text[], %b::text[],"
        " %b::int[], %b::text[]) AS t(i, b, e, g, p) ON x.box = t.b"
        " AND x.epoch = t.e AND x.game = t.g",
        (list(LEFT_OUT), [g.index for g in rest], [g.box for g in rest],
         [g.epoch for g in rest], [g.game for g in rest], [g.json for g in rest]))}
    ratings_held: dict[tuple[str, str, int], int] = {}
    for g in rest:
        equal, held = same[g.index]
        held = ratings_held.get(g.key, held)
        if not equal:
            outcomes[g.index] = Outcome(
                "differs", g.box, g.epoch, g.game,
                "a different game under a key already held: the first kept")
            aside.append((g.topic, g.box, g.epoch, g.game, "differs",
                          g.text[:PAYLOAD_KEPT]))
        elif len(g.ratings) > held:
            conn.execute("UPDATE games SET ratings = %s WHERE box = %s AND epoch = %s"
                         " AND game = %s", (json.dumps(g.ratings), *g.key))
            ratings_held[g.key] = len(g.ratings)
            outcomes[g.index] = Outcome("ratings", g.box, g.epoch, g.game)
        else:
            outcomes[g.index] = Outcome("duplicate", g.box, g.epoch, g.game)


def write_batch(conn: Any, messages: Sequence[tuple[str, bytes]],
                states: Seen | None = None) -> list[Outcome]:
    """Write the messages of ``shutbox/<box>/game`` as :func:`write` does one, with a
    few statements for the whole batch (inside the caller's transaction; a database
    error leaves the transaction to be rolled back: then :func:`write` one by one).
    ``states``: the boxes' states to note as well (:func:`note_state`); every box and
    epoch of the batch is upserted first, in one order (:func:`seen_all`)."""
    outcomes: list[Outcome | None] = [None] * len(messages)
    aside: list[tuple[Any, ...]] = []
    games: list[_Game] = []
    for i, (topic, payload) in enumerate(messages):
        game, outcome, row = _classify(i, topic, payload)
        if game is not None:
            games.append(game)
        else:
            outcomes[i] = outcome
            if row is not None:
                aside.append(row)
    seen_all(conn, _seen_of(games, states))
    games = _forgotten(conn, games)
    players = league_keys(conn, [n for g in games for n in _names(g.record)])
    if players:
        checked = []
        unverified = []
        for g in games:
            wrong = unverified_seats(g.record, players)
            if wrong:
                outcomes[g.index] = _unverified_outcome(g.box, g.epoch, g.game, wrong)
                unverified.append((g.topic, g.box, g.epoch, g.game, UNVERIFIED,
                                   g.text[:PAYLOAD_KEPT]))
            else:
                checked.append(g)
        games = checked
        _keep_unverified(conn, unverified)
    if games:
        for g in _insert_new(conn, games):
            outcomes[g.index] = Outcome("stored", g.box, g.epoch, g.game)
        rest = [g for g in games if outcomes[g.index] is None]
        if rest:
            _settle_held(conn, rest, outcomes, aside)
    if aside:
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO set_aside (topic, box, epoch, game, reason, payload)"
                            " VALUES (%s, %s, %s, %s, %s, %s)", aside)
    assert all(o is not None for o in outcomes)
    return [o for o in outcomes if o is not None]


def _forgotten(conn: Any, games: list[_Game]) -> list[_Game]:
    """The games naming a player deleted at the league (a box that had not heard yet)
    with the pseudonym instead (league/rights.py)."""
    prints = _prints(conn, [n for g in games for n in _names(g.record)])
    if not prints:
        return games
    out = []
    for g in games:
        if any(fingerprint(n) in prints for n in _names(g.record)):
            # as json.loads reads it (an integer past 64 bits stays one: _fast_game)
            record = anonymise_record(json.loads(g.json), prints)
            text = json.dumps(record)
            ratings = record.get("ratings") if isinstance(record.get("ratings"), list) else []
            g = dataclasses.replace(g, record=record, json=text, payload=text.encode(),
                                    ratings=ratings)
        out.append(g)
    return out


def _prints(conn: Any, names: list[str]) -> dict[str, str]:
    """The tombstones that apply to ``names``: not those of a name a league player has
    now (one who joined again after being deleted plays under their name)."""
    prints = forgotten_prints(conn)
    if prints:
        for key in league_keys(conn, names):
            prints.pop(fingerprint(key), None)
    return prints


def _names(record: dict[str, Any]) -> list[str]:
    return [s["name"] for s in record.get("seats") or []
            if isinstance(s, dict) and isinstance(s.get("name"), str)]


def _unverified_outcome(box: str, epoch: str, game: int, names: list[str]) -> Outcome:
    return Outcome("unverified", box, epoch, game,
                   f"{', '.join(names)}: a league player's name the box did not verify")


def _keep_unverified(conn: Any, rows: list[tuple[Any, ...]]) -> None:
    """Games with an unverified league name kept aside (once each: a redelivery is not
    kept twice), and no longer missing (the gap round does not ask for them again)."""
    for row in rows:
        topic, box, epoch, game = row[:4]
        conn.execute("INSERT INTO set_aside (topic, box, epoch, game, reason, payload)"
                     " SELECT %s, %s, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM set_aside"
                     " WHERE box = %s AND epoch = %s AND game = %s AND reason = %s)",
                     (*row, box, epoch, game, UNVERIFIED))
        conn.execute("DELETE FROM missing WHERE box = %s AND epoch = %s AND game = %s",
                     (box, epoch, game))


def _game_id(value: Any) -> int | None:
    """A game id a message gives, if one the tables can hold (the set-aside row of a
    message whose id is out of range names none, and is still kept)."""
    return value if isinstance(value, int) and not isinstance(value, bool) \
        and 0 < value < 2**31 else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) \
        and 0 <= value < 2**63 else None


def parse_state(topic: str, payload: bytes) -> tuple[str, str, int | None] | None:
    """A box's retained state (``shutbox/<box>/state``): (box, epoch, its latest ended
    game or None). None for a state without an epoch (a box older than the epoch), one
    for another box, or one that cannot be read."""
    box = topic_box(topic, "state")
    try:
        state = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    if box is None or not isinstance(state, dict) or state.get("box") != box:
        return None
    epoch, latest = state.get("epoch"), state.get("latest_game")
    if not isinstance(epoch, str) or not epoch or len(epoch) > 64:
        return None
    if not (isinstance(latest, int) and not isinstance(latest, bool) and 0 < latest < 2**31):
        latest = None
    return box, epoch, latest


def note_state(conn: Any, box: str, epoch: str, latest: int | None) -> None:
    """The box and epoch seen now, with the latest game it reported (inside the
    caller's transaction)."""
    with conn.transaction():
        _seen(conn, box, epoch, latest)
