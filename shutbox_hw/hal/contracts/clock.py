"""Clocks for the daemon loop: the real one on the box, a virtual one in sim and tests."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """What every part of the box reads time from: whole milliseconds, never backwards."""

    def now_ms(self) -> int: ...


class MonotonicClock:
    """Milliseconds since an arbitrary start, never going backwards."""

    def now_ms(self) -> int:
        return time.monotonic_ns() // 1_000_000


class VirtualClock:
    """Time that moves only when told: a whole game runs in well under a second."""

    def __init__(self, start_ms: int = 0) -> None:
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> int:
        if ms < 0:
            raise ValueError("time does not go backwards")
        self._now += ms
        return self._now

    def set(self, ms: int) -> None:
        if ms < self._now:
            raise ValueError("time does not go backwards")
        self._now = ms
