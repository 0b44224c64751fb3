"""The polling loop, written once: step at the current time, wait for the next deadline.

Every port is polled with the current time and registers when it next needs
a poll in the box's :class:`~shutbox_hw.base.scheduler.Scheduler`. The daemon on
the box, the simulated world and the self-test all run this same loop over
a scheduler; they differ only in what a step does and in how time passes
(sleeping, or jumping a virtual clock).

On the real box the loop sleeps in :meth:`Waker.wait_until` until the
earliest deadline, and whatever happens on another thread in between wakes
it with :meth:`Waker.wake`: gpiozero's edge callbacks (:class:`~.gpio.PiPins`),
the expander's INT line (:class:`~.expander.ExpanderPins`), the display's
sender thread when the panel is lost or back, a signal handler. An adapter
that learns something on its own thread records it first and then calls
``wake()``; the loop's next step picks it up. A box that is idle therefore
wakes only for its own timers (the periodic re-reads, blinking, the display's
idle timers, the watchdog), not on a fixed tick.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ...base.scheduler import Scheduler
from .clock import Clock

Wake = Callable[[], None]
"""What an adapter calls, from any thread, after recording something for the loop."""


def no_wake() -> None:
    """The ``wake`` of an adapter nobody waits for (the simulator, tests): nothing."""


class Waker:
    """Wakes the loop sleeping in :meth:`wait_until`; the one way in from other threads.

    ``wake()`` may be called from any thread and from a signal handler: it
    never blocks (it releases a lock held while no wake-up is pending, rather
    than taking a lock as ``threading.Event.set`` does, which a signal handler
    interrupting ``Event.wait`` on the same thread could deadlock on). Wake-ups
    that come while the loop is busy are not lost: the next ``wait_until``
    returns at once. Deadlines are whole milliseconds of
    :class:`~.clock.MonotonicClock`; the sleep itself is on ``time.monotonic_ns``,
    so a deadline is met to the microsecond, not rounded up to the next
    millisecond.
    """

    def __init__(self, clock_ns: Callable[[], int] = time.monotonic_ns) -> None:
        self._clock_ns = clock_ns
        self._idle = threading.Lock()
        self._idle.acquire()            # held: no wake-up pending

    def wake(self) -> None:
        """Make the loop step now (or as soon as it next waits)."""
        try:
            self._idle.release()
        except RuntimeError:
            pass                         # one is pending already

    def wait_until(self, deadline_ms: int | None) -> bool:
        """Sleep until ``deadline_ms`` (None: until woken) or a :meth:`wake`;
        True when woken. A pending wake-up is consumed."""
        if deadline_ms is None:
            return self._idle.acquire()
        timeout = (deadline_ms * 1_000_000 - self._clock_ns()) / 1e9
        if timeout <= 0:
            return self._idle.acquire(blocking=False)
        return self._idle.acquire(timeout=min(timeout, threading.TIMEOUT_MAX))


class Pollable(Protocol):
    """A port the loop polls; it registers its own deadlines."""

    def poll(self, now_ms: int) -> Any: ...


def poll_all(ports: Iterable[Pollable], now_ms: int) -> list[Any]:
    """Poll every port once at ``now_ms``; what they report, in port order."""
    events: list[Any] = []
    for port in ports:
        events.extend(port.poll(now_ms) or ())
    return events


def run_loop(clock: Clock, step: Callable[[int], object], timers: Scheduler,
             wait: Callable[[int | None], object],
             until_ms: int | None = None, done: Callable[[], bool] = lambda: False) -> None:
    """Call ``step(now)``; stop once ``done()`` or ``until_ms`` is reached; else
    ``wait`` towards the earliest deadline in ``timers`` still ahead of ``now``
    (or ``until_ms``; None when there is neither), and again. ``wait`` may
    return early, and may be asked for a time the step has already passed
    (a deadline registered while the step waited for I/O): it then returns
    at once."""
    while True:
        now = clock.now_ms()
        step(now)
        if done() or (until_ms is not None and now >= until_ms):
            return
        ahead = timers.next_ms(after_ms=now)
        if until_ms is not None:
            ahead = until_ms if ahead is None else min(ahead, until_ms)
        wait(ahead)
