"""What the box shows right now, read back from its database: the TV page and the state topic.

The web process and the MQTT publisher both read this from the record the
daemon writes (never from the daemon itself, which waits for nobody): who is
playing, whose turn it is, the dice, the open flaps, the round's scores, the
totals or balances and the pot, the last result between games, tonight's
figures and, between games, the high scores (:mod:`..store.highscores`). One
function, so the TV and Home Assistant never disagree.

The turn as the box shows it (whose turn, the dice or none, each flap open,
shut, pending or refused with its reason) comes from the picture the daemon
mirrors into the record (:mod:`..store.shown`, made by
:func:`shutbox_hw.game.display.shown.shown`, the OLED's own source); the rule set's
title and the games' states from :mod:`shutbox_hw.words.record`, tonight from
:mod:`shutbox_hw.store.read.tonight`, as ``history`` and the pages take them.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..base.i18n import N_, language, tr
from ..game.model.flaps import open_tiles
from ..store.read import game_summary
from ..store.read.audit import tonight
from ..store.read.highscores import as_json, high_scores
from ..store.read.shown import mirror_bytes, read_shown
from ..store.read.tonight import started_since_sql, tonight_since, week_since
from ..store.tables.capability import Capability, offers, stamped
from ..words.record import rules_named, rules_parts, rules_title


def live(db: sqlite3.Connection, now: float) -> dict[str, Any]:
    """The live summary as plain JSON data (one read transaction: a consistent picture),
    computed afresh; a reader that asks again and again keeps a :class:`Kept`."""
    db.execute("BEGIN")
    try:
        return _summary(db, now)
    finally:
        db.execute("COMMIT")


class Kept:
    """:func:`live` for one reader, computed once per change of what it is computed from.

    The summary is a function of the record, the language it is said in and,
    through tonight's and the week's windows, of the clock. It is kept with
    the record's change counters (the other connections' commits: ``PRAGMA
    data_version``; this connection's own writes: ``total_changes``, which
    counts every row it inserts, updates or deletes, the shown picture's
    included), the screen's mirror (a file in RAM beside the record, which the
    counters do not see), the schema version, the language and the instants between
    which no game enters or leaves either window. A read with all of these
    the same returns a copy of the kept summary; any difference computes it
    afresh. The counters are read before the summary and the windows, so a
    commit in between can only make what is kept newer than its key (computed
    again on the next read), never older; with no commit in between, the
    summary and its windows come from the same record.

    ``stamp`` is the caller's own sign of a change where the counters cannot
    see one (the web's reader of a read-only copy opened immutable).
    """

    def __init__(self, fresh: Callable[[sqlite3.Connection, float], dict[str, Any]] = live
                 ) -> None:
        self._fresh = fresh
        self._db: sqlite3.Connection | None = None
        self._key: tuple[Any, ...] | None = None
        self._windows: tuple[tuple[Callable[[float], float], float, float], ...] = ()
        self._summary: dict[str, Any] = {}
        self.reads = 0       # (the benchmark's figures)
        self.computed = 0

    def __call__(self, db: sqlite3.Connection, now: float, stamp: Any = None) -> dict[str, Any]:
        self.reads += 1
        key = (db.execute("PRAGMA data_version").fetchone()[0], db.total_changes,
               stamped(db), language(), stamp,
               mirror_bytes(db))     # the screen's picture lives outside the record
        if db is self._db and key == self._key and all(
                below < since(now) <= first for since, below, first in self._windows):
            kept: dict[str, Any] = _copy(self._summary)
            return kept
        self._db = self._key = None
        summary = self._fresh(db, now)
        windows = tuple((since, *_window(db, since(now))) for since in WINDOWS)
        self.computed += 1
        self._db, self._key, self._windows, self._summary = db, key, windows, summary
        fresh: dict[str, Any] = _copy(summary)
        return fresh


WINDOWS: tuple[Callable[[float], float], ...] = (tonight_since, week_since)
"""Every way the summary depends on the clock: the first start time of tonight's
games (tonight's figures, tonight's high scores) and of the week's."""


def _window(db: sqlite3.Connection, since: float) -> tuple[float, float]:
    """The newest start before ``since`` and the oldest at or after it: the same
    games are in the window while ``below < since <= first``."""
    below, = db.execute("SELECT MAX(started_at) FROM games WHERE started_at < ?",
                        (since,)).fetchone()
    first, = db.execute(f"SELECT MIN(started_at) FROM games WHERE {started_since_sql()}"
                        " AND typeof(started_at) IN ('integer', 'real')",   # (text: always in)
                        (since,)).fetchone()
    return (-math.inf if below is None else float(below),
            math.inf if first is None else float(first))


def _copy(value: Any) -> Any:
    """A copy of plain JSON data (the readers add their own keys to the summary)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    return value


def _summary(db: sqlite3.Connection, now: float) -> dict[str, Any]:
    """The summary, read inside the caller's transaction."""
    row = db.execute("SELECT id, rules, ended_at, abandoned FROM games ORDER BY id DESC"
                     " LIMIT 1").fetchone()
    figures = tonight(db, now)
    version = stamped(db)
    picture = read_shown(db, version)
    summary: dict[str, Any] = {
        "playing": False, "game": None, "player": None,   # always there (null: idle)
        "title": str(picture.get("title")) if picture else "Shut the Box",
        "tonight": {"games": figures.games, "boxes_shut": figures.boxes_shut,
                    "best": None if figures.best is None else
                    {"player": figures.best[0], "score": figures.best[1]},
                    "clock": figures.clock, "note": _note(figures.clock)},
        "last_result": _last_result(db, row), "last_score": _last_score(db),
        # the box's fault between games, in the OLED's words (a turn's own: _game's)
        "problem": picture.get("problem") if picture else None}
    if row is not None and row[2] is None:
        game_id = int(row[0])
        if picture is None or picture.get("game") != game_id or \
                picture.get("phase") not in ("play", "confirm"):
            picture = None    # the box has not drawn this game yet: the record alone
        summary.update(_game(db, game_id, row[1], picture))
    elif offers(version, Capability.PLAYERS):     # between games: the high scores on the TV
        summary["high_scores"] = as_json(high_scores(db, now))
    return summary


def join_shown(db: sqlite3.Connection) -> dict[str, str] | None:
    """The join page's address and code the box shows while it is set up (the TV
    page's QR code; the MQTT state leaves it out)."""
    version = stamped(db)
    picture = read_shown(db, version)
    found = picture.get("join") if picture and picture.get("phase") == "idle" else None
    if not isinstance(found, dict):
        return None
    url, code = found.get("url"), found.get("code")
    return {"url": url, "code": code} if isinstance(url, str) and isinstance(code, str) else None


def _last_score(db: sqlite3.Connection) -> int | None:
    """The score of the newest turn that ended."""
    row = db.execute("SELECT score FROM turns WHERE ended_at IS NOT NULL ORDER BY id DESC"
                     " LIMIT 1").fetchone()
    return None if row is None else int(row[0])


def _last_result(db: sqlite3.Connection, newest: tuple[Any, ...] | None
                 ) -> dict[str, Any] | None:
    """The newest ended game as ``history`` lists it (only the newest can be
    unfinished), with its state and its rule set's title in the pages' words.

    ``newest`` is the newest game's row (id, rules, ended_at, abandoned): while
    it is under way only the one before it is listed (not both, at every step).
    """
    if newest is None:
        return None
    under_way = newest[2] is None and not newest[3]
    games = game_summary.summaries(db, 1, before=int(newest[0]) if under_way else None)
    ended = next((g for g in games if g.finished or g.abandoned), None)
    if ended is None:
        return None
    last = ended.as_json()      # as history lists it, with its title's words as data
    last["title_parts"] = _copy(_titles(ended.rules_json, language())["title_parts"])
    return last


def _turn_shown(picture: dict[str, Any]) -> dict[str, Any]:
    """The turn as the box draws it now (its mirror in the record)."""
    flaps = list(picture.get("flaps") or [])
    return {"player": picture.get("player"), "turn_over": bool(picture.get("turn_over")),
            "round": picture.get("round"), "dice": picture.get("dice"), "flaps": flaps,
            "open": list(open_tiles(tuple(flaps))),     # drawn open, as the OLED draws them
            "reasons": picture.get("reasons") or {}, "problem": picture.get("problem")}


@lru_cache(maxsize=16)
def _titles(rules_json: str, _language: str) -> dict[str, Any]:
    """The rule set's two titles and the first's words as data (``title_parts``, the
    TV says them in its own language; a game's rules are the same at every step:
    named once per game and language, not at each read; the caller copies)."""
    rules, _tiles = _parsed(rules_json)
    return {"title": rules_named(rules), "rules_title": rules_title(rules),
            "title_parts": rules_parts(rules)}


def _parsed(rules_json: str) -> tuple[dict[str, Any], int]:
    """A game's rules and its count of flaps ({} and 9 when its row is damaged)."""
    try:
        rules = json.loads(rules_json)
        return rules, int(rules.get("tiles", 9))
    except (ValueError, TypeError, AttributeError):
        return {}, 9


def _throws(db: sqlite3.Connection, turn_id: int) -> tuple[list[int] | None, set[int]]:
    """A turn's throws: the dice until they are taken (the box's "? ?"), the flaps shut."""
    dice: list[int] | None = None
    closed: set[int] = set()
    for dice_json, closed_json in db.execute(
            "SELECT dice, closed FROM throws WHERE turn_id = ? ORDER BY number", (turn_id,)):
        try:   # a damaged throw row is left out (the rest of the picture stands)
            thrown = json.loads(dice_json) if dice_json else None
            taken = [int(t) for t in (json.loads(closed_json) if closed_json else ())]
        except (ValueError, TypeError):
            continue
        dice = thrown if closed_json is None else None   # taken: cleared, as the box does
        closed.update(taken)
    return dice, closed


def _open_tiles(turn: tuple[Any, ...] | None, tiles: int, closed: set[int]) -> list[int]:
    """The flaps open: an ended turn's as it recorded them, else all but those shut."""
    open_tiles: list[int] | None = None
    if turn and turn[3] is not None and turn[4]:
        try:
            open_tiles = [int(t) for t in json.loads(turn[4])]
        except (ValueError, TypeError):
            open_tiles = None
    if open_tiles is None:
        open_tiles = [t for t in range(1, tiles + 1) if t not in closed]
    return open_tiles


def _turn_recorded(db: sqlite3.Connection, game_id: int, tiles: int,
                   names: list[str]) -> dict[str, Any]:
    """A game the box has not drawn (a record read while the box is stopped, or in
    the instant between a game's first rows and its first picture): the record's
    last turn, whose player, the dice until they are taken and the flaps open (an
    ended turn's as it recorded them, else all but those shut); no flap is pending
    or refused, as only the box knows that."""
    turn = db.execute("SELECT id, round, seat, ended_at, open_tiles, score FROM turns"
                      " WHERE game_id = ? ORDER BY id DESC LIMIT 1", (game_id,)).fetchone()
    dice, closed = _throws(db, turn[0]) if turn else (None, set())
    open_tiles = _open_tiles(turn, tiles, closed)
    return {"player": names[turn[2]] if turn and turn[2] < len(names) else None,
            "turn_over": bool(turn and turn[3] is not None),
            "round": turn[1] if turn else 1, "dice": dice,
            "flaps": ["open" if t in open_tiles else "shut" for t in range(1, tiles + 1)],
            "open": open_tiles, "reasons": {}, "problem": None}


def _game(db: sqlite3.Connection, game_id: int, rules_json: str,
          picture: dict[str, Any] | None) -> dict[str, Any]:
    """The game under way: its seats, totals or balances from the one projection
    (:mod:`..store.read.game_summary`); its turn from the box's picture where the box
    has drawn one, else from the record (:func:`_turn_recorded`)."""
    game = game_summary.summary(db, game_id)     # the one projection: seats, totals
    rules, tiles = _parsed(rules_json)
    names = [] if game is None else game.players
    turn = _turn_shown(picture) if picture is not None else \
        _turn_recorded(db, game_id, tiles, names)
    scores = {seat: (final if final is not None else score) for seat, score, final in db.execute(
        "SELECT seat, score, final_score FROM turns WHERE game_id = ? AND round = ?"
        " AND ended_at IS NOT NULL", (game_id, turn["round"]))}
    balances: dict[str, int] | None = None
    pot: int | None = None
    if game is not None and game.pool:   # as the record's pages and the OLED have them
        standing = game_summary.pool_now(game)
        balances, pot = standing["balances"], standing["pot"]
    seats = () if game is None else game.seats
    return {
        "playing": True, "game": game_id, "preset": rules.get("preset"),
        **_copy(_titles(rules_json, language())), "tiles": tiles,
        "flaps": turn["flaps"], "reasons": turn["reasons"], "problem": turn["problem"],
        "match": rules.get("match"), "round": turn["round"], "player": turn["player"],
        "turn_over": turn["turn_over"], "dice": turn["dice"], "open": turn["open"], "pot": pot,
        "players": [{"name": seat.name, "round_score": scores.get(number), "total": seat.total,
                     "balance": None if balances is None else balances.get(seat.name, 0)}
                    for number, seat in enumerate(seats)]}


TV_CLOCK_NOTES = {
    "set": "",
    "not set": N_("Clock not set: times not shown"),
    "unknown": N_("Some times may be wrong: the clock was not known"),
}
"""The TV's short line for each clock state (the pages' whole sentence is
:data:`shutbox_hw.words.record.CLOCK_NOTES`): read from across the room, it
must leave the high scores their room."""


def _note(clock: str) -> str:
    """What the TV says after tonight's figures for their clock state (none when set)."""
    note = TV_CLOCK_NOTES[clock]
    return tr(note) if note else ""

