"""What the referee knows: the phase, the match, the turn and the flaps.

Plain data and the questions asked of it; the state machine
(:mod:`shutbox_hw.game.referee.referee`) changes it, the view
(:mod:`shutbox_hw.game.display.view`) draws it. The game
only: what the screen holds over time besides it (the ends queued to be seen,
why a press could not act, the words of a passing remark) is the view side's own
(:mod:`.presentation`).

The physical flaps are the truth: ``shut`` is every flap the switches report
shut. During a turn the tiles the rules account for are ``committed``
(earlier throws) and ``pending`` (accepted since the throw). Everything
else follows from those three masks:

- a shut flap in neither set was rejected and must be lifted;
- a committed flap that is not shut was lifted and must be shut again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ...base.events import HighScores, Tonight
from ...rules import Dice, Mask, MatchState, Position, RuleSet, Throw, full_board
from .config import GameConfig, seat_names
from .join import JoinDesk
from .service import ServiceMenu

Phase = Literal["idle", "play", "confirm", "over", "service"]
"""idle: choosing players; play: a match; confirm: "New game?"; over: the result;
service: the operator menu (entered from idle only)."""

DEFAULT_PLAYERS = 2


@dataclass
class Turn:
    """One player's turn: the flaps accounted for and the throw in progress."""
    player: int
    committed: Mask = 0
    pending: Mask = 0
    throw: Position | None = None  # Throw once the dice are known; AnyThrow once a
    #                                player marks a throw of dice the box cannot see
    throws: int = 0                # committed throws so far
    settle_at: int | None = None   # when a closure that could still grow is taken
    hint: Mask | None = None
    hint_shown: bool = False       # on-request hints: asked for this throw
    shut_chance: float | None = None
    move_chance: float | None = None
    next_armed: bool = False       # manual dice: NEXT asked "No move?"; again ends the turn

    @property
    def dice(self) -> Dice | None:
        """The faces of the current throw, when the box knows them."""
        return self.throw.dice if isinstance(self.throw, Throw) else None


@dataclass
class GameState:
    """Everything the referee decides from."""
    rules: RuleSet
    game: GameConfig
    hints_on: bool = False         # an advisor is plugged in
    hints_ready: bool = True       # ... and its tables are made (solved off the loop)
    phase: Phase = "idle"
    player_count: int = DEFAULT_PLAYERS
    players: tuple[str, ...] = ()
    match: MatchState | None = None
    round_played: dict[int, Mask] = field(default_factory=dict)  # seat: tiles left open
    turn: Turn | None = None
    shut: Mask = 0
    faults: dict[str, str] = field(default_factory=dict)
    now: int = 0
    asked_at: int = 0              # when the question now on the screen was asked
    service: ServiceMenu | None = None   # the operator menu, while phase is "service"
    settings: dict[str, Any] = field(default_factory=dict)  # the adjustable values in force
    tonight: Tonight | None = None       # the record's figures (from the daemon)
    audits: tuple[str, ...] = ()
    high_scores: tuple[HighScores, ...] = ()   # the record's high scores (the daemon's)
    claimed: dict[int, str] = field(default_factory=dict)  # seat: the name it was given
    #                                   while the next game is set up (game/referee/setup.py)
    roster: tuple[str, ...] = ()         # the record's players, most recent first
    picking: int | None = None           # the roster open on the setup screen: its
    #                                      highlighted line (len(roster): "back")
    join: JoinDesk = field(default_factory=JoinDesk)   # the phones' code (game/model/join.py)

    @property
    def board(self) -> Mask:
        return full_board(self.rules.tiles)

    @property
    def unseen_dice(self) -> bool:
        """Manual dice: the players throw real dice the box never sees."""
        return self.game.dice == "manual"

    def open_mask(self, turn: Turn) -> Mask:
        """The tiles open for this turn's throw (committed ones are shut for good)."""
        return self.board & ~turn.committed

    def rejected(self) -> Mask:
        """Shut flaps the rules do not account for: they must be lifted."""
        if self.phase != "play" or self.turn is None:
            return 0
        return self.shut & ~(self.turn.committed | self.turn.pending)

    def reopened(self) -> Mask:
        """Committed flaps that were lifted: they must be shut again."""
        if self.phase != "play" or self.turn is None:
            return 0
        return self.turn.committed & ~self.shut

    def problems(self) -> bool:
        return bool(self.rejected() or self.reopened())

    def next_player(self) -> int | None:
        """The next seat to play this round, if any."""
        if self.match is None:
            return None
        for p in self.match.active():
            if p not in self.round_played:
                return p
        return None

    def round_number(self) -> int:
        return self.match.round_number if self.match else 1

    def hint_visible(self, turn: Turn) -> bool:
        return self.hints_on and turn.hint is not None and (
            self.game.hints == "always" or turn.hint_shown)

    def names(self, count: int) -> tuple[str, ...]:
        """``count`` player names: each seat's claimed name, else the configured
        one, else P1.. (never a duplicate)."""
        return seat_names(self.game.player_names, count, self.claimed)
