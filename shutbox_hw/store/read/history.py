"""Reading the record back: recent games and one game's scorecard.

Games are ordered by their id (the order they were recorded), never by the
clock: the Pi has no RTC, and until NTP has synchronised it after a power cut
its clock is wherever it stopped. A time recorded while the clock was known
not to be synchronised is not shown (``None``); ``clock_synced`` says which
times are trusted (``None``: recorded before the box noted it, schema 1).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from ...base.errors import UserError
from ..tables.capability import Capability, offers
from ..tables.ratings import game_ratings
from ..tables.schema import VERSION
from .game_summary import GameSummary, summaries, summary


class DamagedGame(UserError):
    """A stored game whose record cannot be read back (bad JSON, missing rows)."""


def recent_games(db: sqlite3.Connection, limit: int = 20,
                 version: int = VERSION, before: int | None = None) -> list[dict[str, Any]]:
    """Newest recorded first: players, winners, totals and boxes shut per game
    (only games whose id is below ``before`` when it is given: the next page),
    as the one projection of a game tells them (:mod:`.game_summary`).

    A game whose stored rules or winners cannot be decoded is listed with
    ``"damaged": true`` rather than hiding every other game.
    """
    return [game.as_json() for game in summaries(db, limit, before, version)]


def scorecard(db: sqlite3.Connection, game_id: int,
              version: int = VERSION) -> dict[str, Any] | None:
    """Seed 001's scorecard: per round and player, raw, final and running total.

    Raises :class:`DamagedGame` when the stored game cannot be decoded.
    """
    game = summary(db, game_id, version)
    if game is None:
        return None
    if game.damage is not None:
        raise _damaged(game_id, game.damage)
    try:
        return _scorecard(db, game, version=version)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise _damaged(game_id, type(error).__name__) from None


def _damaged(game_id: int, what: str) -> DamagedGame:
    return DamagedGame(f"game {game_id} is damaged: its record cannot be read back ({what})")


def _scorecard(db: sqlite3.Connection, game: GameSummary, *,
               version: int = VERSION) -> dict[str, Any]:
    game_id, players = game.id, game.players
    rounds = []
    running = {p: 0 for p in players}
    for number, result_json in db.execute(
            "SELECT number, result FROM rounds WHERE game_id = ? ORDER BY number", (game_id,)):
        result = json.loads(result_json)
        entries = {}
        for name in players:
            if name in result["scores"]:
                running[name] += result["scores"][name]
                entries[name] = {"raw": result["raw"][name], "final": result["scores"][name],
                                 "total": running[name]}
            else:
                entries[name] = {"raw": None, "final": None, "total": running[name]}
        entry = {"round": number, "players": entries, "shut": result["shut"],
                 "out": result["out"]}
        if result.get("balances") is not None:  # a pool: what each player has won so far
            entry["balances"] = {p: result["balances"].get(p) for p in players}
            entry["pot"] = result.get("pot")
        rounds.append(entry)
    names = {seat.number: seat.name for seat in game.seats}   # the projection's seats
    throws = []
    for rnd, seat, number, dice, closed in db.execute(
            "SELECT t.round, t.seat, th.number, th.dice, th.closed FROM throws th"
            " JOIN turns t ON t.id = th.turn_id WHERE t.game_id = ?"
            " ORDER BY t.round, t.id, th.number", (game_id,)):
        if seat in names:       # (a turn of no seat of the game names nobody)
            throws.append({"round": rnd, "player": names[seat], "throw": number,
                           "dice": json.loads(dice) if dice else None,
                           "closed": json.loads(closed) if closed else None})
    rejected, = db.execute(
        "SELECT COUNT(*) FROM rejected_flaps r JOIN turns t ON t.id = r.turn_id"
        " WHERE t.game_id = ?", (game_id,)).fetchone()
    unfinished = _unfinished_round(db, game, {r["round"] for r in rounds})
    rated = game_ratings(db, game_id, throws) if offers(version, Capability.PLAYERS) \
        else {"accuracy": {}}
    # a pool's balances now (settled: the pot paid out)
    standing = {"balances": game.balances} if game.pool else {}
    return {**standing, "id": game_id, "rules": game.rules, "players": players,
            "winners": list(game.winners), **game.times(),
            "abandoned": game.abandoned, "finished": game.finished,
            "title": game.title, "rounds": rounds, "unfinished_round": unfinished,
            "throws": throws, "rejected_flaps": rejected, **rated}


def _unfinished_round(db: sqlite3.Connection, game: GameSummary,
                      ended: set[int]) -> dict[str, Any] | None:
    """The round under way (or the one a stop cut short): the scores of its turns
    played so far, None for a player yet to play; None when every round ended."""
    names = {seat.number: seat.name for seat in game.seats}
    scores: dict[int, dict[str, int | None]] = {}
    for rnd, seat, score in db.execute(
            "SELECT round, seat, score FROM turns WHERE game_id = ?"
            " AND ended_at IS NOT NULL ORDER BY id", (game.id,)):
        if rnd not in ended and seat in names:
            scores.setdefault(rnd, dict.fromkeys(game.players))[names[seat]] = score
    if not scores:
        return None
    number = max(scores)
    return {"round": number, "scores": scores[number]}


@dataclass(frozen=True)
class Cell:
    """One player's cell in a round of the scorecard (None: did not play)."""
    raw: int | None       # the score they made
    final: int | None     # after doubling
    total: int            # the running total
    balance: int | None   # a pool's balance after the round


@dataclass(frozen=True)
class CardRow:
    """One finished round of the scorecard."""
    round: int
    cells: tuple[Cell, ...]       # one per player, in seat order
    pot: str | None               # a pool's pot after the round (None: none recorded)
    shut: tuple[str, ...]         # who shut the box


@dataclass(frozen=True)
class CardLayout:
    """The scorecard's cells as both its readers lay them out: ``history --game``
    (``commands/record/history.py``) and the web page (``web/content/pages.py``)."""
    players: tuple[str, ...]
    pool: bool        # a pool: balances and the pot
    doubled: bool     # a score was doubled somewhere: raw and final differ
    rows: tuple[CardRow, ...]


def card_layout(card: dict[str, Any]) -> CardLayout:
    """The one layout of a :func:`scorecard`'s finished rounds."""
    players = tuple(card["players"])
    rounds = card["rounds"]
    return CardLayout(
        players=players, pool=any("balances" in rnd for rnd in rounds),
        doubled=any(e["raw"] != e["final"] for rnd in rounds for e in rnd["players"].values()),
        rows=tuple(CardRow(
            round=rnd["round"],
            cells=tuple(Cell(raw=rnd["players"][p]["raw"], final=rnd["players"][p]["final"],
                             total=rnd["players"][p]["total"],
                             balance=rnd.get("balances", {}).get(p)) for p in players),
            pot=str(rnd["pot"]) if "pot" in rnd else None, shut=tuple(rnd["shut"]))
            for rnd in rounds))
