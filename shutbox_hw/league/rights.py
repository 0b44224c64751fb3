"""Players own their data across the league (issue 41, item 6).

``league player export NAME``: everything the league holds on a player, as one JSON
document written as it is read (:func:`export`): their roster entry without its hash,
every game they sat in with their seat(s), the kept ratings, standings and luck under
their name, the trust marks (flags) on them and the messages kept aside that name them.

``league player delete NAME`` (:func:`forget`): the player anonymised in the league,
in one transaction: every spelling of their name (compared as the boxes compare names)
becomes a stable pseudonym, ``Forgotten <id>``, in the games' records, their seats,
the messages kept aside, the trust marks (decided ones too); the games' luck is
measured again and every kept value recomputed (``league rebuild`` still equals);
their roster entry goes (the ingests publish an empty retained message for it). A
tombstone stays in ``league_forgotten``: the player's id, pseudonym and the
*fingerprint* of their name (:func:`fingerprint`, never the name), which the ingests
publish retained on ``shutbox/league/forget/<id>`` so that every box, one offline for
a week too, removes the player with its own removal when the message reaches it
(network/league_forget.py). A game that arrives later naming them (a box that had not
heard yet) is anonymised as it is written (:func:`anonymise_record`).

``league player privacy NAME --public|--initials|--hidden`` (:func:`set_privacy`):
what the standings (command and pages) and the pages' players show of them
(:func:`shown_rows`); the others keep their ranks. A player not public has no page
of their own (it is found by their name); on others' pages their seat shows their
initials, or their seat's label when hidden (:func:`others_shown`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..players.display import initials, rename
from ..players.names import name_key, seat_label, tidy
from .players import PlayerError, roster_topic

FORGET = "shutbox/league/forget"
FORGET_LOCK = 4043
"""The advisory lock between a deletion (exclusive) and the ingests' writes (shared,
:func:`forgotten_prints`): a write under way when a deletion starts is committed before
the deletion reads the games, and one that starts after it reads the new tombstone, so
no game brings the name back in between."""
PRIVACY = ("public", "initials", "hidden")


def forget_topic(player: int) -> str:
    return f"{FORGET}/{player}"


def fingerprint(name: str) -> str:
    """What a tombstone carries instead of the name: a SHA-256 of the name as the boxes
    compare names. A box finds the player by it among the names it holds; the league
    keeps no name. (A common name can be confirmed from it by trying: it hides the
    name from a reader of the table, not from one who already guesses it.)"""
    return hashlib.sha256(b"shutbox-forget\0" + name_key(name).encode("utf-8")).hexdigest()


def pseudonym(player: int) -> str:
    return f"Forgotten {player}"


@dataclass(frozen=True)
class Forgotten:
    player: int
    pseudonym: str
    games: int


def _player(conn: Any, name: str, lock: bool = False) -> tuple[int, str, str]:
    row = conn.execute("SELECT id, name, privacy FROM league_players WHERE key = %s"
                       + (" FOR UPDATE" if lock else ""), (name_key(tidy(name)),)).fetchone()
    if row is None:
        raise PlayerError(f"the league has no player called {tidy(name)[:40]}")
    return int(row[0]), str(row[1]), str(row[2])


def _spellings(conn: Any, key: str) -> list[str]:
    """Every spelling of the seats' names that is the player's (case, accents)."""
    return [n for n, in conn.execute("SELECT DISTINCT name FROM seats") if name_key(n) == key]


def _renamer(key: str, new_name: str) -> Callable[[str], str]:
    def new(n: str) -> str:
        return new_name if name_key(n) == key else n
    return new


def anonymise_record(record: Any, forgotten: dict[str, str]) -> Any:
    """``record`` (a game's JSON) with every name whose fingerprint is in ``forgotten``
    (fingerprint -> pseudonym) made that pseudonym."""
    if not forgotten:
        return record
    prints: dict[str, str | None] = {}

    def new(n: str) -> str:
        if n not in prints:
            prints[n] = forgotten.get(fingerprint(n))
        return prints[n] or n
    return rename(record, new)


def forgotten_prints(conn: Any) -> dict[str, str]:
    """The league's tombstones: fingerprint -> pseudonym (inside the caller's
    transaction, which then holds :data:`FORGET_LOCK` shared until it ends)."""
    conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (FORGET_LOCK,))
    return {str(f): str(p) for f, p in conn.execute(
        "SELECT fingerprint, pseudonym FROM league_forgotten")}


def forget(conn: Any, name: str) -> Forgotten:
    """Anonymise the league player called ``name`` everywhere in the league and leave
    their tombstone (one transaction); PlayerError for no such player."""
    from .ratings import refresh
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (FORGET_LOCK,))
        player, spelled, _ = _player(conn, name, lock=True)
        key = name_key(spelled)
        alias = pseudonym(player)
        spellings = _spellings(conn, key)
        new = _renamer(key, alias)
        games = conn.execute(
            "SELECT DISTINCT g.box, g.epoch, g.game, g.record, g.ratings FROM games g"
            " JOIN seats s USING (box, epoch, game) WHERE s.name = ANY(%s)",
            (spellings,)).fetchall()
        for box, epoch, game, record, ratings in games:
            conn.execute("UPDATE games SET record = %s::jsonb, ratings = %s::jsonb"
                         " WHERE box = %s AND epoch = %s AND game = %s",
                         (json.dumps(rename(record, new)), json.dumps(rename(ratings, new)),
                          box, epoch, game))
            conn.execute("DELETE FROM kept_luck WHERE box = %s AND epoch = %s AND game = %s",
                         (box, epoch, game))     # measured again under the pseudonym
        conn.execute("UPDATE seats SET name = %s WHERE name = ANY(%s)", (alias, spellings))
        _set_aside(conn, spelled, spellings, new, alias)
        _flags(conn, key, spelled, spellings, alias)
        conn.execute("DELETE FROM league_players WHERE id = %s", (player,))
        conn.execute("INSERT INTO league_forgotten (player, pseudonym, fingerprint)"
                     " VALUES (%s, %s, %s) ON CONFLICT (player) DO NOTHING",
                     (player, alias, fingerprint(spelled)))
        refresh(conn)
    return Forgotten(player, alias, len(games))


def _set_aside(conn: Any, spelled: str, spellings: list[str],
               new: Callable[[str], str], alias: str) -> None:
    """The messages kept aside: a readable one renamed as a game is; any other (not
    JSON, or the name where a game holds none) has every spelling replaced as text."""
    words = sorted({spelled, *spellings}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    for row_id, payload in conn.execute("SELECT id, payload FROM set_aside").fetchall():
        text = str(payload)
        try:
            changed = json.dumps(rename(json.loads(text), new))
        except ValueError:
            changed = text
        changed = pattern.sub(alias, changed)
        if changed != text:
            conn.execute("UPDATE set_aside SET payload = %s WHERE id = %s", (changed, row_id))


def _flags(conn: Any, key: str, spelled: str, spellings: list[str], alias: str) -> None:
    """The trust marks (league/trust.py) of the player, decided ones too: their name,
    the flag's key (a season's dice flag is keyed by the name) and its reason."""
    words = sorted({spelled, key, *spellings}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    for flag_id, flag_key, player, reason in conn.execute(
            "SELECT id, key, player, reason FROM flags").fetchall():
        mine = player is not None and name_key(str(player)) == key
        if not (mine or pattern.search(str(reason)) or pattern.search(str(flag_key))):
            continue
        new_key = flag_key
        if mine and str(flag_key).endswith(" " + key):
            new_key = str(flag_key)[:-len(key)] + name_key(alias)
        conn.execute("UPDATE flags SET key = %s, player = %s, reason = %s WHERE id = %s",
                     (pattern.sub(alias, str(new_key)) if new_key == flag_key else new_key,
                      alias if mine else player, pattern.sub(alias, str(reason)), flag_id))


def set_privacy(conn: Any, name: str, privacy: str) -> tuple[int, str]:
    """How the league's tables show the player called ``name``; (id, name)."""
    if privacy not in PRIVACY:
        raise PlayerError(f"privacy is one of {', '.join(PRIVACY)}")
    with conn.transaction():
        player, spelled, _ = _player(conn, name, lock=True)
        conn.execute("UPDATE league_players SET privacy = %s WHERE id = %s", (privacy, player))
    return player, spelled


def privacies(conn: Any) -> dict[str, str]:
    """The players who are not shown in full: name key -> initials or hidden."""
    return {str(k): str(p) for k, p in conn.execute(
        "SELECT key, privacy FROM league_players WHERE privacy <> 'public'")}


def shown_rows(rows: list[dict[str, Any]], private: dict[str, str],
               field: str = "player") -> list[dict[str, Any]]:
    """Standings rows as the public sees them: a hidden player's row left out (the
    others keep their ranks), one shown by initials with them instead of the name."""
    out = []
    for row in rows:
        choice = private.get(name_key(str(row[field])))
        if choice == "hidden":
            continue
        out.append({**row, field: initials(str(row[field]))} if choice == "initials" else row)
    return out


def others_shown(row: dict[str, Any], private: dict[str, str]) -> dict[str, Any]:
    """A game's row on a player's page (league/views.py) with the other players as the
    public may see them: one by initials as their initials, a hidden one as their
    seat's label (as a casual seat shows)."""
    if not private:
        return row

    def shown(seat: int, name: str) -> str:
        choice = private.get(name_key(name))
        return (seat_label(seat) if choice == "hidden"
                else initials(name) if choice == "initials" else name)
    players = [shown(seat, n) for seat, n in enumerate(row["players"])]
    by_name = dict(zip(row["players"], players, strict=True))
    return {**row, "players": players,
            "winners": [by_name.get(w, shown(0, w)) for w in row["winners"]]}


def export(conn: Any, name: str) -> Iterator[str]:
    """Everything the league holds on the player called ``name``, as pieces of one JSON
    object, each yielded as it is read (a player of a thousand games is never whole in
    memory), all from one snapshot (a read-only repeatable-read transaction);
    PlayerError (before anything is yielded) for no such player."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield from _export(conn, name)


def _export(conn: Any, name: str) -> Iterator[str]:
    row = conn.execute("SELECT id, name, key, privacy, n, r, p, created_at, changed_at"
                       " FROM league_players WHERE key = %s",
                       (name_key(tidy(name)),)).fetchone()
    if row is None:
        raise PlayerError(f"the league has no player called {tidy(name)[:40]}")
    player, spelled, key, privacy, n, r, p, created, changed = row
    spellings = _spellings(conn, key)
    entry = {"player": player, "name": spelled, "privacy": privacy,
             "secret": {"kdf": "scrypt", "n": n, "r": r, "p": p,
                        "kept": "a salted hash only, not shown here"},
             "joined": created.isoformat(), "changed": changed.isoformat()}
    yield '{"v": 1, "roster": ' + json.dumps(entry) + ', "games": ['
    first = True
    with conn.cursor(name="export_games") as cur:   # server-side: read in batches
        cur.execute("SELECT g.box, g.epoch, g.game, g.state, g.started_at, g.ended_at,"
                    " g.record, g.ratings, b.venue,"
                    " array_agg(s.seat ORDER BY s.seat) FROM games g"
                    " JOIN seats s USING (box, epoch, game) LEFT JOIN boxes b USING (box)"
                    " WHERE s.name = ANY(%s) GROUP BY g.box, g.epoch, g.game, b.venue"
                    " ORDER BY g.ended_at NULLS LAST, g.box, g.epoch, g.game",
                    (spellings,))
        for box, epoch, game, state, started, ended, record, ratings, venue, seats in cur:
            yield ("" if first else ", ") + json.dumps(
                {"box": box, "epoch": epoch, "game": game, "venue": venue, "state": state,
                 "started_at": started, "ended_at": ended, "seats": list(seats),
                 "record": record, "ratings": ratings})
            first = False
    yield '], "ratings": ' + json.dumps([
        {"season": s, "mu": mu, "sigma": sg, "rating": rt, "rating_games": rg, "band": band,
         "band_accuracy": ba, "accuracy_games": ag, "luck": luck, "luck_turns": lt}
        for s, mu, sg, rt, rg, band, ba, ag, luck, lt in conn.execute(
            "SELECT season, mu, sigma, rating, rating_games, band, band_accuracy,"
            " accuracy_games, luck, luck_turns FROM kept_ratings WHERE player = %s"
            " ORDER BY season", (key,))])
    yield ', "standings": ' + json.dumps([
        {"season": s, "venue": v or None, "row": data} for s, v, data in conn.execute(
            "SELECT season, venue, row FROM kept_standings WHERE player = ANY(%s)"
            " ORDER BY season, venue", ([key, *spellings],))])
    yield ', "luck": ' + json.dumps([
        {"box": b, "epoch": e, "game": g, "luck": lk, "turns": t} for b, e, g, lk, t in
        conn.execute("SELECT box, epoch, game, luck, turns FROM kept_luck WHERE player = %s"
                     " ORDER BY box, epoch, game", (key,))])
    words = sorted({spelled, *spellings}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    flags = [{"received_at": at.isoformat(), "box": b, "game": g, "reason": reason}
             for at, b, g, reason, payload in conn.execute(
                 "SELECT received_at, box, game, reason, payload FROM set_aside ORDER BY id")
             if pattern.search(str(payload))]
    marks = [{"id": i, "kind": kind, "box": b, "game": g, "season": season,
              "reason": reason, "found_at": at.isoformat(), "decision": decision}
             for i, kind, b, g, season, player, reason, at, decision in conn.execute(
                 "SELECT id, kind, box, game, season, player, reason, found_at, decision"
                 " FROM flags ORDER BY id")
             if (player is not None and name_key(str(player)) == key)
             or pattern.search(str(reason))]
    yield ', "flags": ' + json.dumps(marks) + ', "set_aside": ' + json.dumps(flags) + "}\n"


def tombstone(player: int, alias: str, print_: str) -> dict[str, Any]:
    return {"v": 1, "player": player, "fingerprint": print_, "pseudonym": alias}


class ForgetPublisher:
    """The tombstones on the league's broker, retained (beside the roster): every one
    when the ingest connects, and the new ones as players are deleted (:meth:`tick`,
    from the ingest's loop). Never removed: a box away for a week still gets them."""

    def __init__(self) -> None:
        self._mark: tuple[Any, ...] | None = None
        self._client: Any = None

    def connected(self, client: Any) -> None:
        self._client, self._mark = client, None

    def tick(self, conn: Any) -> int:
        if self._client is None:
            return 0
        mark = tuple(conn.execute("SELECT count(*), max(player) FROM league_forgotten")
                     .fetchone())
        if mark == self._mark:
            return 0
        sent = 0
        for player, alias, print_ in conn.execute(
                "SELECT player, pseudonym, fingerprint FROM league_forgotten ORDER BY player"):
            self._client.publish(forget_topic(int(player)),
                                 json.dumps(tombstone(int(player), alias, print_)),
                                 qos=1, retain=True)
            # their roster entry gone too (an ingest started after the deletion never
            # published it, so the roster's own publisher would not clear it)
            self._client.publish(roster_topic(int(player)), b"", qos=1, retain=True)
            sent += 2
        self._mark = mark
        return sent
