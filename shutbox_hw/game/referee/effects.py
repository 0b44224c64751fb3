"""What the referee asks of the world: the game events to store and the dice to throw.

The controller (:mod:`shutbox_hw.game.machine.effects`) adds the screen and the
lights the display shows for the state they leave; the daemon carries out one
step's effects in the order stated by :class:`shutbox_hw.daemon.work.Step`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.events import AnyGameEvent


@dataclass(frozen=True)
class Emit:
    """A game event (the contract of ``sim --script`` output and the journal),
    also what the store records."""
    event: AnyGameEvent


@dataclass(frozen=True)
class RollDice:
    """Throw ``count`` dice (software: secrets.SystemRandom; module: ask it).
    The faces come back as a :class:`~shutbox_hw.base.events.DiceRolled` event."""
    count: int


Effect = (Emit | RollDice)
"""The referee's effects."""
