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
from typing import Any

from ...base.errors import UserError
from ...rules import settle_pot
from ...words.record import game_state, rules_named
from ..tables.ratings import game_ratings
from ..tables.schema import VERSION


class DamagedGame(UserError):
    """A stored game whose record cannot be read back (bad JSON, missing rows)."""


def _synced_columns(version: int) -> str:
    return "started_synced, ended_synced" if version >= 2 else "NULL, NULL"


def _times(started: float, ended: float | None, started_synced: int | None,
           ended_synced: int | None) -> dict[str, Any]:
    """The game's times, each hidden when the clock was not synchronised as it was taken."""
    def flag(value: int | None) -> bool | None:
        return None if value is None else bool(value)
    return {"started_at": None if started_synced == 0 else started,
            "ended_at": None if ended_synced == 0 else ended,
            "clock_synced": {"started": flag(started_synced),
                             "ended": flag(ended_synced) if ended is not None else None}}


def recent_games(db: sqlite3.Connection, limit: int = 20,
                 version: int = VERSION, before: int | None = None) -> list[dict[str, Any]]:
    """Newest recorded first: players, winners, totals and boxes shut per game
    (only games whose id is below ``before`` when it is given: the next page).

    A game whose stored rules or winners cannot be decoded is listed with
    ``"damaged": true`` rather than hiding every other game.
    """
    games = []
    for (game_id, started, ended, rules, winners, abandoned, started_synced,
         ended_synced) in db.execute(
            "SELECT id, started_at, ended_at, rules, winners, abandoned, "
            f"{_synced_columns(version)} FROM games WHERE id < ? ORDER BY id DESC LIMIT ?",
            (2**63 - 1 if before is None else before, limit)):
        players = [n for n, in db.execute(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
        totals = {p: 0 for p in players}
        shut = {p: 0 for p in players}
        for name, final, _raw, was_shut in db.execute(
                "SELECT p.name, t.final_score, t.score, t.shut FROM turns t JOIN players p"
                " ON p.game_id = t.game_id AND p.seat = t.seat WHERE t.game_id = ?"
                " AND t.ended_at IS NOT NULL", (game_id,)):
            totals[name] += final if final is not None else 0
            shut[name] += was_shut or 0
        rounds, = db.execute("SELECT COUNT(*) FROM rounds WHERE game_id = ?",
                             (game_id,)).fetchone()
        damaged = False
        balances = None
        title = "unknown rules"
        try:
            table = json.loads(rules)
            preset = table.get("preset")
            title = rules_named(table)
            winner_list = _winners(winners, abandoned)
            if table.get("match") == "pool":
                balances = _balances(db, game_id, players,
                                     settled=ended is not None and not abandoned)
        except (ValueError, TypeError, AttributeError):
            preset, winner_list, damaged = None, [], True
        game = {
            "id": game_id, **_times(started, ended, started_synced, ended_synced),
            "preset": preset, "title": title, "players": players, "winners": winner_list,
            "finished": ended is not None and not abandoned, "abandoned": bool(abandoned),
            "rounds": rounds, "totals": totals, "boxes_shut": shut, "damaged": damaged,
            **({"balances": balances} if balances is not None else {})}
        games.append({**game, "state": game_state(game)})
    return games


def _winners(stored: str | None, abandoned: int) -> list[str]:
    """Who won: nobody in a game stopped before its end (older versions stored
    every leader of an abandoned game as its winner)."""
    return [] if abandoned or not stored else list(json.loads(stored))


def _last_round(db: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    row = db.execute("SELECT result FROM rounds WHERE game_id = ? ORDER BY number DESC LIMIT 1",
                     (game_id,)).fetchone()
    result = json.loads(row[0]) if row else {}
    return result if isinstance(result, dict) else {}


def _balances(db: sqlite3.Connection, game_id: int, players: list[str], *,
              settled: bool = False) -> dict[str, int]:
    """A pool's balances after its last finished round (what the players play for;
    the score totals mean nothing there); ``settled`` (the players stopped it):
    with the coins an uneven split left in the pot paid out as the box did
    (:func:`shutbox_hw.rules.settle_pot`)."""
    last = _last_round(db, game_id)
    balances = last.get("balances") or {}
    values = [int(balances.get(p, 0)) for p in players]
    if settled:
        winners = [players.index(n) for n in last.get("winners") or () if n in players]
        values = list(settle_pot(values, int(last.get("pot") or 0), winners))
    return dict(zip(players, values, strict=True))


def pool_now(db: sqlite3.Connection, game_id: int, players: list[str],
             rules: dict[str, Any]) -> dict[str, Any]:
    """A pool being played, as the box shows it: each player's balance after the
    last finished round, and the pot of the round being played (every player's
    stake, paid as the round starts, on top of what an uneven split left: the
    OLED's "pot"). The TV, ``/live.json`` and Home Assistant's state take them here."""
    last = _last_round(db, game_id)
    stake = int(rules.get("stake") or 1)
    return {"balances": _balances(db, game_id, players),
            "pot": int(last.get("pot") or 0) + stake * len(players)}


def scorecard(db: sqlite3.Connection, game_id: int,
              version: int = VERSION) -> dict[str, Any] | None:
    """Seed 001's scorecard: per round and player, raw, final and running total.

    Raises :class:`DamagedGame` when the stored game cannot be decoded.
    """
    row = db.execute("SELECT rules, winners, started_at, ended_at, abandoned, "
                     f"{_synced_columns(version)} FROM games WHERE id = ?",
                     (game_id,)).fetchone()
    if row is None:
        return None
    try:
        return _scorecard(db, game_id, *row, version=version)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise DamagedGame(f"game {game_id} is damaged: its record cannot be read back "
                          f"({type(error).__name__})") from None


def _scorecard(db: sqlite3.Connection, game_id: int, rules: str, winners: str | None,
               started: float, ended: float | None, abandoned: int,
               started_synced: int | None, ended_synced: int | None, *,
               version: int = VERSION) -> dict[str, Any]:
    players = [n for n, in db.execute(
        "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
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
    throws = []
    for rnd, name, number, dice, closed in db.execute(
            "SELECT t.round, p.name, th.number, th.dice, th.closed FROM throws th"
            " JOIN turns t ON t.id = th.turn_id JOIN players p ON p.game_id = t.game_id"
            " AND p.seat = t.seat WHERE t.game_id = ? ORDER BY t.round, t.id, th.number",
            (game_id,)):
        throws.append({"round": rnd, "player": name, "throw": number,
                       "dice": json.loads(dice) if dice else None,
                       "closed": json.loads(closed) if closed else None})
    rejected, = db.execute(
        "SELECT COUNT(*) FROM rejected_flaps r JOIN turns t ON t.id = r.turn_id"
        " WHERE t.game_id = ?", (game_id,)).fetchone()
    unfinished = _unfinished_round(db, game_id, players, {r["round"] for r in rounds})
    rules_table = json.loads(rules)
    if not isinstance(rules_table, dict):
        raise TypeError("rules")
    rated = game_ratings(db, game_id, throws) if version >= 7 else {"accuracy": {}}
    pool = rules_table.get("match") == "pool"
    settled = pool and ended is not None and not abandoned
    standing = ({"balances": _balances(db, game_id, players, settled=settled)}
                if pool else {})      # a pool's balances now (settled: the pot paid out)
    return {**standing, "id": game_id, "rules": rules_table, "players": players,
            "winners": _winners(winners, abandoned),
            **_times(started, ended, started_synced, ended_synced),
            "abandoned": bool(abandoned), "finished": ended is not None and not abandoned,
            "title": rules_named(rules_table), "rounds": rounds, "unfinished_round": unfinished,
            "throws": throws, "rejected_flaps": rejected, **rated}


def _unfinished_round(db: sqlite3.Connection, game_id: int, players: list[str],
                      ended: set[int]) -> dict[str, Any] | None:
    """The round under way (or the one a stop cut short): the scores of its turns
    played so far, None for a player yet to play; None when every round ended."""
    scores: dict[int, dict[str, int | None]] = {}
    for rnd, name, score in db.execute(
            "SELECT t.round, p.name, t.score FROM turns t JOIN players p ON"
            " p.game_id = t.game_id AND p.seat = t.seat WHERE t.game_id = ?"
            " AND t.ended_at IS NOT NULL ORDER BY t.id", (game_id,)):
        if rnd not in ended:
            scores.setdefault(rnd, {p: None for p in players})[name] = score
    if not scores:
        return None
    number = max(scores)
    return {"round": number, "scores": scores[number]}


def scorecard_cells(card: dict[str, Any]) -> list[list[str]]:
    """The scorecard as rows of text cells: the head, the sub-head, one row per round
    (raw/final/total per player, and balance and pot in a pool; who shut the box
    last). ``history --game`` aligns them; the web page puts them in a table."""
    players = card["players"]
    pool = any("balances" in rnd for rnd in card["rounds"])
    head = ["round", *players, *(["pot"] if pool else []), "shut"]
    sub = ["", *(["raw/fin/tot" + ("/bal" if pool else "")] * len(players)),
           *([""] if pool else []), ""]
    rows = [head, sub]
    for rnd in card["rounds"]:
        cells = [str(rnd["round"])]
        for p in players:
            e = rnd["players"][p]
            parts = ["-" if e["raw"] is None else e["raw"],
                     "-" if e["final"] is None else e["final"], e["total"]]
            if pool:
                bal = rnd.get("balances", {}).get(p)
                parts.append("-" if bal is None else bal)
            cells.append("/".join(str(x) for x in parts))
        if pool:
            cells.append(str(rnd.get("pot", "-")))
        cells.append(", ".join(rnd["shut"]))
        rows.append(cells)
    return rows
