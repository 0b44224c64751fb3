"""What the controller asks of the world: the only way it acts.

The daemon applies them in this order: :class:`Emit` (stored durably, then
logged) before :class:`Lights` and :class:`Show`, so a commit is on disk
before the box shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..leds import LedFrame
from .events import AnyGameEvent
from .screens import Screen


@dataclass(frozen=True)
class Emit:
    """A game event (the contract of ``sim --script`` output and the journal),
    also what the store records."""
    event: AnyGameEvent


@dataclass(frozen=True)
class Show:
    screen: Screen


@dataclass(frozen=True)
class Lights:
    leds: LedFrame


@dataclass(frozen=True)
class RollDice:
    """Throw ``count`` dice (software: secrets.SystemRandom; module: ask it).
    The faces come back as a :class:`~shutbox_hw.events.DiceRolled` event."""
    count: int


Effect = Union[Emit, Show, Lights, RollDice]
