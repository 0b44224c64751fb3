"""What the OLED should show, as plain data.

The controller decides *what* to show by returning one of these values; the
renderer (:mod:`shutbox_hw.render`) decides *how* it looks on 128x64 pixels.
Keeping them apart keeps the controller free of Pillow and lets tests check
the content of a screen without comparing pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...base.events import HighScores, Tonight
from ...base.i18n import tr


@dataclass(frozen=True)
class AttractScreen:
    """Idle: the rule set and how to start."""
    title: str                    # e.g. "Klappenspiel"
    rules_line: str               # e.g. "9 tiles, any-sum, elimination 45"
    players: tuple[str, ...]      # the players NEXT has chosen
    # one line a button: NEXT one player more (held: the roster), ROLL starts (held:
    # one player fewer)
    prompt: str = field(default_factory=lambda: tr("NEXT: +1  hold: names\nROLL: start  hold: -1"))
    tonight: Tonight | None = None  # set: tonight's figures instead of the rule set
    #                                (the idle screen alternates between the two)
    high_score: HighScores | None = None   # set: a high-score table (game/display/attract.py)
    message: str | None = None    # why a press could not act, flashing over the prompt
    join: str | None = None       # the join page's address: its QR code on the left,
    #                                the page's text on the right (game/model/join.py)


@dataclass(frozen=True)
class PlayScreen:
    """A turn in progress.

    ``dice`` is None before the throw is known (``prompt`` then says what to
    do: "ROLL to throw", "throw the dice"); ``message`` is a problem to fix
    ("8 doesn't fit 3+4", "open flaps 3, 7") shown prominently instead of the
    normal footer; ``hint`` is the optimal closure when hints are on;
    ``shut_chance``/``move_chance`` are probabilities 0..1 from the solver.
    """
    player: str
    round: int
    tiles: int                    # board size, to draw every tile slot
    open_tiles: tuple[int, ...]
    total: int                    # the player's match total before this turn
    dice: tuple[int, ...] | None = None
    prompt: str = ""
    message: str | None = None
    hint: tuple[int, ...] | None = None
    shut_chance: float | None = None
    move_chance: float | None = None
    hints_pending: bool = False   # hints on, the solver's tables not made yet
    pot: int | None = None        # pool only: what the round's winner takes
    balance: int | None = None    # pool only: the player's winnings so far (total means nothing)
    throw_dice: int = 2           # dice the next throw uses: one `?` box each before it is known


@dataclass(frozen=True)
class TurnEndScreen:
    """The turn is over: its score and what stayed open."""
    player: str
    score: int
    open_tiles: tuple[int, ...]
    shut: bool                    # "SHUT THE BOX!"
    note: str = ""                # consequence: "wins at once", "others doubled", ...
    prompt: str = field(default_factory=lambda: tr("lift all flaps"))
    accuracy: tuple[int, int] | None = None   # [game] show_accuracy: (best, moves), once rated


@dataclass(frozen=True)
class ScoreRow:
    name: str
    raw: int | None               # None: did not play this round
    final: int | None             # after doubling
    total: int
    out: bool = False
    shut: bool = False
    balance: int | None = None    # pool only


@dataclass(frozen=True)
class ScoreboardScreen:
    """After a round: seed 001's scorecard as a screen."""
    round: int
    rows: tuple[ScoreRow, ...]
    note: str = ""                # "P2 wins the round", "pot 3"
    prompt: str = field(default_factory=lambda: tr("NEXT: continue"))


@dataclass(frozen=True)
class ResultScreen:
    """The match is over."""
    winners: tuple[str, ...]
    rows: tuple[ScoreRow, ...]
    prompt: str = field(default_factory=lambda: tr("ROLL: new game"))


@dataclass(frozen=True)
class ConfirmScreen:
    """A question answered with the buttons, e.g. "New game?"."""
    question: str
    prompt: str = field(default_factory=lambda: tr("ROLL: yes  NEXT: no"))


@dataclass(frozen=True)
class ShutScreen:
    """A player shut the box: its own moment, before the turn's score."""
    player: str
    note: str = ""                # the consequence: "wins at once!", "others score double"


@dataclass(frozen=True)
class NoticeScreen:
    """A problem with the box itself (a faulty switch, a lost device)."""
    title: str
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class MenuScreen:
    """A page of the operator menu: a title and lines, one of them highlighted.

    ``selected`` None: a list to read (the audits), scrolled so that line
    ``first`` is at the top. ``values`` (when given) has one entry per line,
    drawn at the right ("always", "2500"); "" for a line without one.
    ``headings``: the lines that head a group (small, between two rules).
    """
    title: str
    lines: tuple[str, ...]
    selected: int | None = 0
    values: tuple[str, ...] = ()
    first: int = 0
    prompt: str = field(default_factory=lambda: tr("NEXT: move  ROLL: choose"))
    headings: tuple[int, ...] = ()    # lines drawn as headings of what follows


@dataclass(frozen=True)
class SwitchTestScreen:
    """The operator's switch test: every flap and button live, with its count."""
    tiles: int
    down: tuple[int, ...]         # flaps whose switch is closed now
    counts: tuple[int, ...]       # closures of flap t at index t-1 since the test began
    roll: int                     # ROLL presses counted
    next: int                     # NEXT presses counted
    prompt: str = field(default_factory=lambda: tr("hold NEXT: back"))
    held: tuple[str, ...] = ()    # "ROLL", "NEXT": the buttons down now


Screen = (AttractScreen | PlayScreen | TurnEndScreen | ScoreboardScreen | ResultScreen |
          ConfirmScreen | ShutScreen | NoticeScreen | MenuScreen | SwitchTestScreen)
