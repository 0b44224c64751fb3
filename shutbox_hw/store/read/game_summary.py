"""One projection of a game: what every surface says about a game, made in one place.

``history`` (its list and its ``--json``), the web's history and tonight, a
game's scorecard (the command and the page), the TV's last result, ``/live.json``
and Home Assistant's state all take a game's players, seats, totals or a pool's
balances, winners and state from :class:`GameSummary`, and every one is made by
:func:`summaries` from the rows: one read of the games, one join of each game's
seats with their turns (the only place a game's players are joined with their
turns for these figures), one count of the rounds, and for a pool the last
round's balances. So the TV, the pages and Home Assistant cannot drift apart.

A seat's ``total`` is the sum of its turns' final scores (the score after any
doubling, written when the round ends): what the match adds up, and what the
last round's result carries as ``totals``; a round under way (or cut short by a
stop) counts in no total until it ends, as the scorecard says.

Games are read by id (the order they were recorded), never by the clock: the
Pi has no RTC. A time recorded while the clock was known not to be synchronised
is ``None`` (``clock_synced`` says which times are trusted; ``None``: recorded
before the box noted it, schema 1).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ...rules import settle_pot
from ...words.record import game_state, rules_named
from ..tables.capability import Capability, offers
from ..tables.finished import is_finished
from ..tables.schema import VERSION

NEWEST = 2**63 - 1     # above every game's id: "before" the newest


class Seat(NamedTuple):
    """One seat of a game, in the order the players sat (a named tuple: a page
    makes many, and a tuple is made in a fraction of a frozen dataclass's time)."""
    number: int         # the seat (0: the first)
    name: str
    total: int          # the final scores of its turns in the rounds that ended
    boxes_shut: int     # its turns that shut the box
    turns: int          # its turns ended with a score
    score_sum: int      # their scores (before any doubling)
    balance: int | None = None   # a pool's: after the last finished round (settled: paid out)


@dataclass(frozen=True)
class GameSummary:
    """A game as every surface tells it (see the module's words)."""
    id: int
    rules_json: str
    rules: dict[str, Any] | None      # None: the stored rules cannot be read back
    title: str                        # the rule set's title ("unknown rules": unreadable)
    seats: tuple[Seat, ...]
    winners: tuple[str, ...]          # nobody in a game stopped before its end
    finished: bool
    abandoned: bool
    rounds: int                       # rounds that ended
    started_at: float
    ended_at: float | None
    started_synced: int | None
    ended_synced: int | None
    pot_left: int | None = None       # a pool's: what the last round left in the pot
    damage: str | None = None         # what could not be read back (an error's name)

    @property
    def damaged(self) -> bool:
        return self.damage is not None

    @property
    def players(self) -> list[str]:
        return [s.name for s in self.seats]

    def seat(self, number: int) -> Seat:
        """The seat ``number`` (0: the first)."""
        return next(s for s in self.seats if s.number == number)

    @property
    def pool(self) -> bool:
        return self.rules is not None and self.rules.get("match") == "pool"

    @property
    def totals(self) -> dict[str, int]:
        return {s.name: s.total for s in self.seats}

    @property
    def balances(self) -> dict[str, int] | None:
        """A pool's balances (None in any other match)."""
        return {s.name: int(s.balance or 0) for s in self.seats} if self.pool else None

    def times(self) -> dict[str, Any]:
        """The game's times, each hidden when the clock was not synchronised as it was taken."""
        def flag(value: int | None) -> bool | None:
            return None if value is None else bool(value)
        return {"started_at": None if self.started_synced == 0 else self.started_at,
                "ended_at": None if self.ended_synced == 0 else self.ended_at,
                "clock_synced": {"started": flag(self.started_synced),
                                 "ended": flag(self.ended_synced)
                                 if self.ended_at is not None else None}}

    @property
    def state(self) -> str:
        """The word for its state ("finished", "stopped", "playing"), as the pages say it."""
        return game_state({"finished": self.finished, "abandoned": self.abandoned})

    def as_json(self) -> dict[str, Any]:
        """The game as ``history --json`` lists it (and the pages, and the TV's last result)."""
        game: dict[str, Any] = {
            "id": self.id, **self.times(),
            "preset": None if self.damaged or self.rules is None else self.rules.get("preset"),
            "title": self.title, "players": self.players, "winners": list(self.winners),
            "finished": self.finished, "abandoned": self.abandoned, "rounds": self.rounds,
            "totals": self.totals, "boxes_shut": {s.name: s.boxes_shut for s in self.seats},
            "damaged": self.damaged}
        if self.pool and not self.damaged:
            game["balances"] = self.balances
        return {**game, "state": game_state(game)}


def _columns(version: int) -> str:
    """A game's row as :func:`_game` takes it (its rounds that ended counted beside it)."""
    synced = ("started_synced, ended_synced" if offers(version, Capability.CLOCK_SYNC)
              else "NULL, NULL")
    return ("SELECT id, started_at, ended_at, rules, winners, abandoned, "
            f"{synced}, (SELECT COUNT(*) FROM rounds r WHERE r.game_id = games.id)"
            " FROM games")


def summaries(db: sqlite3.Connection, limit: int = 20, before: int | None = None,
              version: int = VERSION) -> list[GameSummary]:
    """The newest ``limit`` games, newest recorded first (only those whose id is
    below ``before`` when it is given: the next page)."""
    return _made(db, db.execute(
        f"{_columns(version)} WHERE id < ? ORDER BY id DESC LIMIT ?",
        (NEWEST if before is None else before, limit)).fetchall())


def summary(db: sqlite3.Connection, game_id: int,
            version: int = VERSION) -> GameSummary | None:
    """One game (None: no such game)."""
    return next(iter(_made(db, db.execute(
        f"{_columns(version)} WHERE id = ?", (game_id,)).fetchall())), None)


def summaries_of(db: sqlite3.Connection, ids: list[int],
                 version: int = VERSION) -> dict[int, GameSummary]:
    """The games ``ids`` by id (a player's games: their page and their downloads)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {game.id: game for game in _made(db, db.execute(
        f"{_columns(version)} WHERE id IN ({marks})", ids).fetchall())}


def _made(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[GameSummary]:
    """The projection of the games ``rows``: the one function that makes it."""
    if not rows:
        return []
    ids = [int(r[0]) for r in rows]
    marks = ",".join("?" * len(ids))
    seats: dict[int, list[tuple[int, str, int, int, int, int]]] = {i: [] for i in ids}
    # each seat with its turns that ended: the one seat join of the projection
    for row in db.execute(
            "SELECT p.game_id, p.seat, p.name, COALESCE(SUM(t.final_score), 0),"
            " COALESCE(SUM(t.shut), 0), COUNT(t.score), COALESCE(SUM(t.score), 0)"
            " FROM players p LEFT JOIN turns t"
            " ON t.game_id = p.game_id AND t.seat = p.seat AND t.ended_at IS NOT NULL"
            f" WHERE p.game_id IN ({marks}) GROUP BY p.game_id, p.seat"
            " ORDER BY p.game_id, p.seat", ids):
        seats[row[0]].append(row[1:])
    return [_game(db, row, seats[int(row[0])]) for row in rows]


def _game(db: sqlite3.Connection, row: tuple[Any, ...],
          seated: list[tuple[int, str, int, int, int, int]]) -> GameSummary:
    (game_id, started, ended, rules_json, winners_json, abandoned, s_synced, e_synced,
     rounds) = row
    finished = is_finished(ended, abandoned)
    rules: dict[str, Any] | None = None
    title = "unknown rules"
    winners: tuple[str, ...] = ()
    balances: dict[str, int] = {}
    pot_left: int | None = None
    damage = None
    try:
        table = json.loads(rules_json)
        if not isinstance(table, dict):
            raise TypeError("rules")
        rules = table
        title = _title(str(rules_json))
        winners = tuple(_winners(winners_json, abandoned))
        if table.get("match") == "pool":
            last = last_round(db, int(game_id))
            balances = _balances(last, [seat[1] for seat in seated], settled=finished)
            pot_left = int(last.get("pot") or 0)
    except (ValueError, TypeError, AttributeError) as error:
        winners, damage = (), type(error).__name__
    return GameSummary(
        id=int(game_id), rules_json=str(rules_json), rules=rules, title=title,
        seats=tuple(Seat(*seat, balances.get(seat[1])) for seat in seated),
        winners=winners, finished=finished, abandoned=bool(abandoned), rounds=int(rounds),
        started_at=started, ended_at=ended, started_synced=s_synced, ended_synced=e_synced,
        pot_left=pot_left, damage=damage)


@lru_cache(maxsize=64)
def _title(rules_json: str) -> str:
    """The rule set's title in the record's words (English): a page names a few
    rule sets again and again."""
    return rules_named(json.loads(rules_json))


def _winners(stored: str | None, abandoned: int) -> list[str]:
    """Who won: nobody in a game stopped before its end (older versions stored
    every leader of an abandoned game as its winner)."""
    return [] if abandoned or not stored else list(json.loads(stored))


def last_round(db: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The last round's result as the record wrote it ({} before one)."""
    row = db.execute("SELECT result FROM rounds WHERE game_id = ? ORDER BY number DESC LIMIT 1",
                     (game_id,)).fetchone()
    result = json.loads(row[0]) if row else {}
    return result if isinstance(result, dict) else {}


def _balances(last: dict[str, Any], players: list[str], *,
              settled: bool = False) -> dict[str, int]:
    """A pool's balances after its last finished round ``last`` (what the players
    play for; the score totals mean nothing there); ``settled`` (the game is over):
    with the coins an uneven split left in the pot paid out as the box did
    (:func:`shutbox_hw.rules.settle_pot`)."""
    balances = last.get("balances") or {}
    values = [int(balances.get(p, 0)) for p in players]
    if settled:
        winners = [players.index(n) for n in last.get("winners") or () if n in players]
        values = list(settle_pot(values, int(last.get("pot") or 0), winners))
    return dict(zip(players, values, strict=True))


def pool_now(game: GameSummary) -> dict[str, Any]:
    """A pool being played, as the box shows it: each player's balance after the
    last finished round, and the pot of the round being played (every player's
    stake, paid as the round starts, on top of what an uneven split left: the
    OLED's "pot"). The TV, ``/live.json`` and Home Assistant's state take them here."""
    stake = int((game.rules or {}).get("stake") or 1)
    return {"balances": game.balances or {},
            "pot": (game.pot_left or 0) + stake * len(game.seats)}
