"""What a person standing at the simulated box can know, and nothing more.

The simulated person (the script's presses and flaps, the test players)
decides from three things the box gives out, never from the controller's
state: the JSON events it printed (the journal, ``sim --script``'s output),
the screen the daemon last sent to the display (the :mod:`~shutbox_hw.game.display.screens`
value, before it became pixels) and the LED frame the lights were last sent.
Where a person reads the lights, they read the frame: "blinking" is what the
box asked of the LED, not the level of its pin at one instant. What the box
printed before this process watched it (a new process on an old database,
after a power cut) the person reads from the box's record of those events,
as ``history`` does: :func:`record`, :func:`turn_on_record`.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.leds import LedFrame
from ..game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    MenuScreen,
    NoticeScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    Screen,
    ShutScreen,
    SwitchTestScreen,
    TurnEndScreen,
)

RECORD = ("SELECT (SELECT count(*) FROM games), (SELECT count(ended_at) FROM games),"
          " (SELECT count(*) FROM rounds), (SELECT count(*) FROM turns),"
          " (SELECT count(ended_at) FROM turns), (SELECT count(*) FROM throws),"
          " (SELECT count(committed_at) FROM throws)")
NOT_GAME = ("fault", "recovered", "resumed")
"""Events about the box rather than the game."""


@dataclass(frozen=True)
class TurnSeen:
    """The turn under way, as its events told it."""
    player: str
    seat: int              # the player's place in ``game_started``'s list
    round: int
    throws: int            # throws committed so far in this turn
    dice: tuple[int, ...] | None   # the faces of the throw under way (None: none known)
    thrown: bool           # a throw is under way (rolled, not yet committed)
    committed: tuple[int, ...]     # flaps shut by this turn's committed throws


class Observed:
    """The events, the screen and the lights of one simulated box, kept over
    power cuts (the events are those printed; a cut loses none that were).
    Only the events since the last game started are kept: everything below
    reads no further back, and a box that plays for a week must not grow."""

    def __init__(self, db: Path | None = None) -> None:
        self.db = db     # the box's record: what it printed before this process saw it
        self.events: list[dict[str, Any]] = []
        self.screen: Screen | None = None
        self.leds: LedFrame | None = None

    def event(self, data: dict[str, Any]) -> None:
        if data["event"] == "game_started":
            self.events = []   # what is read back is all since the last game started
        self.events.append(data)

    def shown(self, screen: Screen) -> None:
        self.screen = screen

    def lit(self, frame: LedFrame) -> None:
        self.leds = frame

    # ------------------------------------------------------------------ the screen

    @property
    def phase(self) -> str:
        """Where the box is, by what its screen shows: ``idle``, ``play``,
        ``confirm``, ``over``, ``service`` (or ``notice``, ``off``)."""
        match self.screen:
            case AttractScreen():
                return "idle"
            case ConfirmScreen():
                return "confirm"
            case ResultScreen():
                return "over"
            case PlayScreen() | TurnEndScreen() | ShutScreen() | ScoreboardScreen():
                return "play"
            case MenuScreen() | SwitchTestScreen():
                return "service"
            case NoticeScreen():
                return "notice"
        return "off"

    @property
    def player_count(self) -> int | None:
        """The players chosen for the next game (the idle screen names them)."""
        return len(self.screen.players) if isinstance(self.screen, AttractScreen) else None

    def shows(self) -> list[Any]:
        """What the box shows that a press could change, as plain JSON values
        (the world file keeps it): the phase, then the screen's game fields
        and the flaps' lights."""
        screen = self.screen
        flaps = list(self.leds.flaps) if self.leds is not None else []
        if isinstance(screen, PlayScreen):
            return [self.phase, screen.player, screen.round, _plain(screen.dice),
                    list(screen.open_tiles), screen.prompt, flaps]
        if isinstance(screen, (TurnEndScreen, ShutScreen)):
            return [self.phase, type(screen).__name__, screen.player, flaps]
        if isinstance(screen, ScoreboardScreen):
            return [self.phase, type(screen).__name__, screen.round, flaps]
        return [self.phase]

    # ------------------------------------------------------------------ the lights

    def blinking(self) -> list[int]:
        """The flaps whose LED blinks: to lift (if shut) or to shut again."""
        if self.leds is None:
            return []
        return [t for t, state in enumerate(self.leds.flaps, start=1) if state == "blink"]

    # ------------------------------------------------------------------ the events

    def game_events(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] not in NOT_GAME]

    def since(self, name: str) -> list[dict[str, Any]]:
        """The game events after the last ``name`` event (all if there is none)."""
        events = self.game_events()
        last = max((i for i, e in enumerate(events) if e["event"] == name), default=-1)
        return events[last + 1:]

    def game_ended(self) -> bool:
        """The last game the box started has ended (its result may still be coming)."""
        return any(e["event"] == "game_ended" for e in self.since("game_started"))

    def rounds_ended(self) -> int:
        """Rounds ended in the game under way (or the last one). For a game that
        began before they were watched (a new process on an old database), the
        box's record counts those ended before too (it may lag what was printed
        while the disk refuses writes: the larger of the two)."""
        seen = sum(1 for e in self.since("game_started") if e["event"] == "round_ended")
        if self.db is None or any(e["event"] == "game_started" for e in self.events):
            return seen
        return max(seen, rounds_on_record(self.db))

    def turn(self) -> TurnSeen | None:
        """The turn under way, or None between turns and outside a game. From
        the events printed; for a game that began before they were watched (a
        new process on an old database), from the box's record of them."""
        if not any(e["event"] == "game_started" for e in self.events):
            return turn_on_record(self.db) if self.db is not None else None
        game = self.since("game_started")
        starts = [i for i, e in enumerate(game) if e["event"] == "turn_started"]
        if not starts or any(e["event"] in ("turn_ended", "game_ended")
                             for e in game[starts[-1]:]):
            return None
        players = self._players()
        started = game[starts[-1]]
        throws, dice, thrown, committed = 0, None, False, []
        for e in game[starts[-1] + 1:]:
            if e["event"] == "rolled":
                dice, thrown = (tuple(e["dice"]) if e["dice"] is not None else None), True
            elif e["event"] == "throw_committed":
                throws, dice, thrown = throws + 1, None, False
                committed += e["closed"]
        player = started["player"]
        return TurnSeen(player=player, seat=players.index(player) if player in players else 0,
                        round=started["round"], throws=throws, dice=dice, thrown=thrown,
                        committed=tuple(sorted(committed)))

    def _players(self) -> list[str]:
        started = [e for e in self.events if e["event"] == "game_started"]
        return list(started[-1]["players"]) if started else []


def _plain(value: tuple[int, ...] | None) -> list[int] | None:
    return list(value) if value is not None else None


def record(db: Path) -> list[int]:
    """How far the box's record goes (what ``history`` reads: the game events
    it printed, as they are on disk, power cuts or not): games started and
    ended, rounds ended, turns started and ended, throws made and committed.
    Empty while there is no database to read."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        return list(con.execute(RECORD).fetchone())
    except sqlite3.Error:
        return []
    finally:
        con.close()


def rounds_on_record(db: Path) -> int:
    """The rounds ended in the newest game on the box's record (0 if none)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    try:
        row = con.execute("SELECT count(*) FROM rounds WHERE game_id ="
                          " (SELECT max(id) FROM games)").fetchone()
    except sqlite3.Error:
        return 0
    finally:
        con.close()
    return int(row[0])


def turn_on_record(db: Path) -> TurnSeen | None:
    """The unfinished game's turn under way as the box's record has it (its
    printed events as they are on disk: what ``history`` reads)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        game = con.execute("SELECT id FROM games WHERE ended_at IS NULL"
                           " ORDER BY id DESC LIMIT 1").fetchone()
        turn = game and con.execute(
            "SELECT t.id, t.round, t.seat, p.name FROM turns t JOIN players p"
            " ON p.game_id = t.game_id AND p.seat = t.seat WHERE t.game_id = ?"
            " AND t.ended_at IS NULL ORDER BY t.id DESC LIMIT 1", game).fetchone()
        if not turn:
            return None
        throws = con.execute("SELECT dice, closed, committed_at FROM throws WHERE turn_id = ?"
                             " ORDER BY number", turn[:1]).fetchall()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    done = [t for t in throws if t[2] is not None]
    last = throws[-1] if throws and throws[-1][2] is None else None
    dice = json.loads(last[0]) if last is not None and last[0] is not None else None
    return TurnSeen(player=turn[3], seat=turn[2], round=turn[1], throws=len(done),
                    dice=tuple(dice) if dice is not None else None, thrown=last is not None,
                    committed=tuple(sorted(t for d in done for t in json.loads(d[1]))))
