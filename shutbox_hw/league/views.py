"""What the league's pages read (issue 41, item 5): the seasons, the venues, the
players and each player's games across every box. Every function only reads (the
pages' connections are read-only as well: commands/serve/league_web.py).

A league player is a seat's name as the roster compares names (:func:`name_key`: case
and accents folded), shown under the spelling their games use most, as in the
standings; seats nobody named (P1, P2, ...) are nobody's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..players.display import initials
from ..players.names import is_seat_label, name_key, tidy
from .rights import others_shown, privacies
from .seats import players_of
from .standings import BEST, SEASON_COLUMNS, Season, season_of, win_points

# a player's games, one row each (the CSV's columns, the JSON's keys, in this order)
GAME_FIELDS = ("ended_at", "box", "venue", "epoch", "game", "state", "rules", "dice",
               "seat", "name", "players", "winners", "won", "points", "turns", "turn_score",
               "boxes_shut", "rated", "best", "luck", "excluded")
BATCH = 200               # games read from the database at a time


def iso(seconds: Any) -> str | None:
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return None
    return dt.datetime.fromtimestamp(float(seconds), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def seasons(conn: Any) -> list[Season]:
    """Every season, the latest started first."""
    return [season_of(row) for row in conn.execute(
        f"SELECT {SEASON_COLUMNS} FROM seasons ORDER BY starts DESC, name")]


def venues(conn: Any) -> list[dict[str, Any]]:
    """Every venue (a box without one is a venue of its own): its boxes, its finished
    games and the last one's end."""
    rows = conn.execute(
        "SELECT coalesce(b.venue, b.box), array_agg(DISTINCT b.box ORDER BY b.box),"
        " count(g.game) FILTER (WHERE g.state = 'finished'), max(g.ended_at)"
        " FROM boxes b LEFT JOIN games g ON g.box = b.box"
        " GROUP BY coalesce(b.venue, b.box) ORDER BY 1").fetchall()
    return [{"venue": venue, "boxes": list(boxes), "games": int(games), "last": iso(last)}
            for venue, boxes, games, last in rows]


@dataclass
class _Player:
    spellings: dict[str, int] = field(default_factory=dict)
    games: int = 0
    venues: set[str] = field(default_factory=set)
    boxes: set[str] = field(default_factory=set)
    last: float | None = None

    @property
    def shown(self) -> str:
        return min(self.spellings, key=lambda name: (-self.spellings[name], name))


def players(conn: Any) -> list[dict[str, Any]]:
    """Every league player: ``player`` (as shown), ``games`` (finished, every box),
    ``venues``, ``boxes`` and ``last`` (the last game's end), by name."""
    found: dict[str, _Player] = {}
    for name, box, venue, games, last in conn.execute(
            "SELECT s.name, g.box, coalesce(b.venue, g.box), count(*), max(g.ended_at)"
            " FROM seats s JOIN games g ON g.box = s.box AND g.epoch = s.epoch"
            " AND g.game = s.game JOIN boxes b ON b.box = g.box"
            " WHERE g.state = 'finished' GROUP BY s.name, g.box, coalesce(b.venue, g.box)"):
        shown = tidy(str(name))
        key = name_key(shown)
        if not key or is_seat_label(shown):
            continue
        p = found.setdefault(key, _Player())
        p.spellings[shown] = p.spellings.get(shown, 0) + int(games)
        p.games += int(games)
        p.venues.add(venue)
        p.boxes.add(box)
        if last is not None and (p.last is None or last > p.last):
            p.last = float(last)
    private = privacies(conn)      # league/rights.py: hidden left out, initials shown
    rows = [{"player": initials(p.shown) if private.get(key) == "initials" else p.shown,
             "key": key, "games": p.games, "venues": sorted(p.venues),
             "boxes": sorted(p.boxes), "last": iso(p.last)} for key, p in found.items()
            if private.get(key) != "hidden"]
    return sorted(rows, key=lambda r: (r["player"].casefold(), r["player"]))


def spellings(conn: Any, name: str) -> tuple[str, list[str]]:
    """The player called ``name`` (any spelling): their key and every spelling their
    seats use (none: not a league player)."""
    key = name_key(name)
    if not key or is_seat_label(tidy(name)):
        return key, []
    names = [str(n) for n, in conn.execute("SELECT DISTINCT name FROM seats")]
    return key, sorted(n for n in names if name_key(n) == key and not is_seat_label(tidy(n)))


def _numbers(seat: int, record: dict[str, Any], ratings: list[Any]) -> dict[str, Any]:
    """The seat's turns, average turn score, boxes shut, rated moves and best ones."""
    turns = [t for t in record.get("turns") or [] if isinstance(t, dict)
             and t.get("seat") == seat]
    scores = [t["score"] for t in turns if isinstance(t.get("score"), (int, float))]
    losses = [r["loss"] for r in ratings if isinstance(r, dict) and r.get("seat") == seat
              and isinstance(r.get("loss"), (int, float))]
    return {"turns": len(scores),
            "turn_score": round(sum(scores) / len(scores), 2) if scores else None,
            "boxes_shut": sum(1 for t in turns if t.get("shut") is True),
            "rated": len(losses), "best": sum(1 for loss in losses if loss <= BEST)}


def game_row(key: str, box: str, venue: str, epoch: str, record: dict[str, Any],
             ratings: list[Any], luck: float | None, excluded: bool) -> dict[str, Any] | None:
    """One game of the player ``key`` as a row of :data:`GAME_FIELDS` (None: they did
    not sit at it as a league player)."""
    mine = next((seat for seat, k in players_of(record).items() if k == key), None)
    if mine is None:
        return None
    names = {int(s["seat"]): str(s.get("name")) for s in record.get("seats") or []}
    winners = [str(w) for w in (record.get("result") or {}).get("winners") or []]
    state = record.get("state")
    won_by = {name_key(w) for w in winners}
    won = state == "finished" and key in won_by
    rules = record.get("rules")
    return {"ended_at": iso(record.get("ended_at")), "box": box, "venue": venue,
            "epoch": epoch, "game": int(record.get("game") or 0), "state": state,
            "rules": rules.get("preset") if isinstance(rules, dict) else None,
            "dice": record.get("dice"), "seat": mine, "name": names.get(mine),
            "players": [names[s] for s in sorted(names)], "winners": winners, "won": won,
            "points": win_points(len(won_by)) if won else 0,
            **_numbers(mine, record, ratings),
            "luck": None if luck is None else round(float(luck), 2), "excluded": excluded}


def player_games(conn: Any, key: str, names: list[str], limit: int | None = None
                 ) -> Iterator[list[dict[str, Any]]]:
    """The player's games at every box, the latest ended first, :data:`BATCH` at a time
    (read from a server-side cursor: a long history is never held whole)."""
    sql = ("SELECT g.box, coalesce(b.venue, g.box), g.epoch, g.record, g.ratings,"
           " (SELECT k.luck FROM kept_luck k WHERE k.box = g.box AND k.epoch = g.epoch"
           "  AND k.game = g.game AND k.player = %s),"
           " EXISTS (SELECT 1 FROM flag_games fg JOIN flags f ON f.id = fg.flag"
           "  WHERE f.decision = 'excluded' AND fg.box = g.box AND fg.epoch = g.epoch"
           "  AND fg.game = g.game)"
           " FROM games g JOIN boxes b ON b.box = g.box WHERE EXISTS (SELECT 1 FROM seats s"
           " WHERE s.box = g.box AND s.epoch = g.epoch AND s.game = g.game"
           " AND s.name = ANY(%s))"
           " ORDER BY g.ended_at DESC NULLS LAST, g.box, g.epoch, g.game DESC"
           + (" LIMIT %s" if limit is not None else ""))
    params: tuple[Any, ...] = (key, names) + ((limit,) if limit is not None else ())
    batch: list[dict[str, Any]] = []
    private = privacies(conn)
    with conn.cursor() as cur:
        for box, venue, epoch, record, ratings, luck, excluded in cur.stream(sql, params):
            row = game_row(key, box, venue, epoch, record, ratings, luck, bool(excluded))
            if row is not None:
                batch.append(others_shown(row, private))
            if len(batch) >= BATCH:
                yield batch
                batch = []
    if batch:
        yield batch
