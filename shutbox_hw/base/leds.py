"""The lights as plain data: what the game asks for and the indicators show.

A bottom module (like :mod:`shutbox_hw.base.events`), so the game can describe
its LEDs without importing the hardware layer or Pillow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

LedState = Literal["off", "on", "blink"]


@dataclass(frozen=True)
class LedFrame:
    """The whole desired state of the lights: one entry per tile, and the status pair."""
    flaps: tuple[LedState, ...]
    green: LedState = "off"
    red: LedState = "off"
