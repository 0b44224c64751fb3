"""An unfinished game as the store hands it back after a restart.

Only what the rules need to carry on exactly: the pending flaps of a throw
in progress are deliberately absent (they were never committed, so the box
asks for them to be lifted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...rules import Dice, Mask


@dataclass(frozen=True)
class SavedTurn:
    """The turn in progress: its committed throws and the current throw."""
    player: int
    closed: tuple[Mask, ...] = ()         # each committed throw's closure, in order
    dice: Dice | None = None              # known dice of the throw not yet committed
    throw_started: bool = False           # manual dice: ROLL marked a throw


@dataclass(frozen=True)
class SavedGame:
    rules: dict[str, Any]                 # RuleSet.as_dict()
    players: tuple[str, ...]
    rounds: tuple[tuple[Mask | None, ...], ...] = ()  # finished rounds: open tiles per player
    played: tuple[tuple[int, Mask], ...] = ()        # this round's finished turns
    turn: SavedTurn | None = None                    # started and not finished
