"""The box's lights, whatever carries them: one Indicators port over lamp sinks.

Pi pins (:class:`~.gpio.PiLamps`) and expanders
(:class:`~.expander.ExpanderLamps`) are both *lamp sinks*: told every
light's level, each writes what changed on its own pins and may need a
call later (a retry after a bus error, a check for a brownout: the sink
registers that in the box's scheduler).
:class:`Lights` works out the levels from the frame and the time, once, so
all LEDs blink in one phase (see :mod:`.blink`) on any mix of pins.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Protocol

from ...base.leds import LedFrame
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.blink import frame_levels, next_blink_ms

Lamp = Hashable
"""A light: a tile number for a flap LED, "green" or "red"."""


class LampSink(Protocol):
    def write(self, levels: Mapping[Lamp, bool], now_ms: int) -> None:
        """Bring the sink's lights to ``levels`` (a light not named is off)."""

    def close(self) -> None:
        """Leave the lights off (best effort)."""


class Lights(Closable):
    """The :class:`~.ports.Indicators` port over one or more lamp sinks."""

    def __init__(self, sinks: Sequence[LampSink], *, blink_ms: int = 400,
                 timers: Scheduler | None = None) -> None:
        if blink_ms <= 0:
            raise ValueError("blink_ms must be positive")
        self.sinks = list(sinks)
        self.blink_ms = blink_ms
        self._frame: LedFrame | None = None
        self.timer = (Scheduler() if timers is None else timers).timer("blink")

    def show(self, frame: LedFrame, now_ms: int) -> None:
        self._frame = frame
        self.poll(now_ms)

    def poll(self, now_ms: int) -> None:
        self._check_open()
        levels = ({} if self._frame is None else
                  frame_levels(self._frame, now_ms, self.blink_ms))
        for sink in self.sinks:
            sink.write(levels, now_ms)
        self.timer.at(next_blink_ms(self._frame, now_ms, self.blink_ms))

    def _close(self) -> None:
        for sink in self.sinks:
            sink.close()
        self.timer.cancel()
