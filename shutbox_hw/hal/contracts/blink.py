"""When a blinking light is lit: one phase for every LED on every backend.

Blinking is worked out from the caller's ``now_ms`` (not by gpiozero's
background blink thread), so it follows a virtual clock exactly and all
blinking LEDs, on Pi pins or on an expander, flash together.
"""

from __future__ import annotations

from collections.abc import Hashable

from ...base.leds import LedFrame, LedState


def blink_level(state: LedState, now_ms: int, blink_ms: int) -> bool:
    """Whether an LED is lit at ``now_ms``. Blinking LEDs share one phase,
    counted from time 0, so they flash together and tests can predict them."""
    if state == "blink":
        return (now_ms // blink_ms) % 2 == 0
    return state == "on"


def frame_levels(frame: LedFrame, now_ms: int, blink_ms: int) -> dict[Hashable, bool]:
    """Every light's level at ``now_ms``: keys are tile numbers, "green", "red"."""
    levels: dict[Hashable, bool] = {tile: blink_level(s, now_ms, blink_ms)
                                    for tile, s in enumerate(frame.flaps, start=1)}
    levels["green"] = blink_level(frame.green, now_ms, blink_ms)
    levels["red"] = blink_level(frame.red, now_ms, blink_ms)
    return levels


def next_blink_ms(frame: LedFrame | None, now_ms: int, blink_ms: int) -> int | None:
    """The next phase change if anything blinks."""
    if frame is None or "blink" not in (*frame.flaps, frame.green, frame.red):
        return None
    return (now_ms // blink_ms + 1) * blink_ms
