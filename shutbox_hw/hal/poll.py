"""The polling loop, written once: step at the current time, wait for the next deadline.

Every port is polled with the current time and says when it next needs a
poll (``next_deadline_ms``). The daemon on the box, the simulated world and
the self-test all run this same loop; they differ only in what a step does
and in how time passes (sleeping, or jumping a virtual clock).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from .clock import Clock


class Pollable(Protocol):
    def poll(self, now_ms: int) -> Any: ...

    def next_deadline_ms(self) -> int | None: ...


def earliest(times: Iterable[int | None]) -> int | None:
    """The first of ``times`` that is set, or None."""
    return min((t for t in times if t is not None), default=None)


def poll_all(ports: Iterable[Pollable], now_ms: int) -> list[Any]:
    """Poll every port once at ``now_ms``; what they report, in port order."""
    events: list[Any] = []
    for port in ports:
        events.extend(port.poll(now_ms) or ())
    return events


def run_loop(clock: Clock, step: Callable[[int], object],
             deadlines: Callable[[], Iterable[int | None]], wait: Callable[[int | None], None],
             until_ms: int | None = None, done: Callable[[], bool] = lambda: False) -> None:
    """Call ``step(now)``; stop once ``done()`` or ``until_ms`` is reached; else
    ``wait`` towards the earliest deadline still ahead (or ``until_ms``; None
    when there is neither), and again. ``wait`` may return early."""
    while True:
        now = clock.now_ms()
        step(now)
        if done() or (until_ms is not None and now >= until_ms):
            return
        ahead = [t for t in deadlines() if t is not None and t > now]
        if until_ms is not None:
            ahead.append(until_ms)
        wait(min(ahead, default=None))
