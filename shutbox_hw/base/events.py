"""What happens to the box, as plain values with a timestamp.

The hardware adapters produce these (after debouncing), the simulator's
script produces them, and the game controller consumes them. Time is always
passed in (``at_ms``, milliseconds on whatever clock the daemon runs: the
real monotonic clock on the box, a virtual one in the simulator and tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ButtonName = Literal["roll", "next"]


@dataclass(frozen=True)
class FlapChanged:
    """A flap's switch settled: ``shut`` True when the flap was shut."""
    tile: int
    shut: bool
    at_ms: int


@dataclass(frozen=True)
class ButtonPressed:
    """A press of ROLL or NEXT; ``long`` once it was held for the hold time."""
    button: ButtonName
    long: bool
    at_ms: int


@dataclass(frozen=True)
class ButtonLevel:
    """A button's switch settled down (``down`` True) or up. The game acts on
    :class:`ButtonPressed` only; the operator's switch test shows this live."""
    button: ButtonName
    down: bool
    at_ms: int


@dataclass(frozen=True)
class DiceRolled:
    """The faces of a throw: ``source`` "software" (ROLL, rolled by the Pi) or
    "module" (the dice module, asked by ROLL or thrown on the module itself)."""
    faces: tuple[int, ...]
    at_ms: int
    source: Literal["software", "module"] = "software"


@dataclass(frozen=True)
class Tick:
    """Time passed; lets the controller run its timers (settle, idle)."""
    at_ms: int


@dataclass(frozen=True)
class InputFault:
    """An input that cannot be trusted: a chattering switch, a lost device.

    ``source`` names it for a person ("flap 7", "ROLL", "MCP23017 0x20");
    ``ok`` True reports that it recovered.
    """
    source: str
    message: str
    at_ms: int
    ok: bool = False


@dataclass(frozen=True)
class ServiceRequested:
    """The operator asked for the service menu: ROLL and NEXT held together for
    5 s, or the service button inside the box pressed."""
    at_ms: int


@dataclass(frozen=True)
class Tonight:
    """Tonight's figures for the idle screen (games in the last 12 hours)."""
    games: int
    boxes_shut: int
    best: tuple[str, int] | None = None   # the lowest turn score: (name, score)
    clock: str = "set"    # the clock they were counted by (store/read/tonight.py: "set",
    #                       "not set", "unknown")


@dataclass(frozen=True)
class HighScores:
    """One high-score table for the idle screen (store/read/highscores.py): ``period``
    "tonight", "week" or "all_time"; ``kind`` "best_turn", "boxes_shut", "wins" or
    "accuracy"; ``entries`` (name, figure), the best first."""
    period: str
    kind: str
    entries: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Figures:
    """What the record says, read by the daemon for the controller (which reads
    nothing itself): at start, after a game ends and after the audits change."""
    tonight: Tonight
    audits: tuple[str, ...]       # the audit lines, as ``shutbox-hw audit`` prints them
    at_ms: int
    high_scores: tuple[HighScores, ...] = ()   # every table (empty ones too)


@dataclass(frozen=True)
class Roster:
    """The players the record knows, most recently seen first (read by the daemon
    at start and after each game, for the setup screen's roster)."""
    names: tuple[str, ...]
    at_ms: int


@dataclass(frozen=True)
class SeatClaim:
    """Somebody asks for a seat in the game being set up: ``source`` "phone" (the
    join page, with the ``code`` it was opened with, and ``phone``: the address
    the web heard it from, one seat each a game) or "box"."""
    name: str
    source: Literal["box", "phone"]
    at_ms: int
    code: str | None = None
    phone: str | None = None


@dataclass(frozen=True)
class TurnRated:
    """The rater has rated a turn of the game under way (posted by the daemon from
    skill/rater.py): its best moves of all moves, for the turn-end screen."""
    seat: int
    round: int
    best: int
    moves: int
    at_ms: int


@dataclass(frozen=True)
class JoinCode:
    """The code a phone joins the game being set up with (the daemon makes one
    with ``secrets`` whenever the box is set up: at start, after a game, when
    the last one expired at ``until_ms``). ``url``: the join page's address for
    the QR code, None while the web pages are not running (no QR)."""
    code: str
    until_ms: int
    at_ms: int
    url: str | None = None


Event = (FlapChanged | ButtonPressed | ButtonLevel | DiceRolled | Tick | InputFault |
         ServiceRequested | Figures | Roster | SeatClaim | TurnRated | JoinCode)

ButtonEvent = (ButtonPressed | ButtonLevel | InputFault | ServiceRequested)
"""What the buttons (and the service button) report."""
