"""What the controller asks of the world: the only way it acts.

The daemon carries out one step's effects in the order stated by
:class:`shutbox_hw.daemon.work.Step`: the lights, then the events stored durably (then
logged), then the screen, so a commit is on disk before the box shows it; the
dice last.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.leds import LedFrame
from ..display.screens import Screen
from ..model.events import AnyGameEvent


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
    The faces come back as a :class:`~shutbox_hw.base.events.DiceRolled` event."""
    count: int


Effect = (Emit | Show | Lights | RollDice)
