"""What the controller asks of the world: the only way the game acts.

The referee's effects (:mod:`shutbox_hw.game.referee.effects`: game events to
store, dice to throw) and the display's (a screen, the lights). The daemon
carries out one step's effects in the order stated by
:class:`shutbox_hw.daemon.work.Step`: the lights, then the events stored durably
(then logged), then the screen, so a commit is on disk before the box shows it;
the dice last.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.leds import LedFrame
from ..display.screens import Screen
from ..referee.effects import Emit, RollDice


@dataclass(frozen=True)
class Show:
    screen: Screen


@dataclass(frozen=True)
class Lights:
    leds: LedFrame


Effect = (Emit | Show | Lights | RollDice)

__all__ = ["Effect", "Emit", "Lights", "RollDice", "Show"]
