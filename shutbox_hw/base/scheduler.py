"""One timer structure for every deadline of the box: time as data.

Every part that needs the loop at a time of its own (a debounce expiry, a
hold time, the next blink, a periodic read, a retry, the watchdog's ping,
the controller's settle and pause times) registers it here under a key of
its own, with :meth:`Scheduler.at`, and takes it back with
:meth:`Scheduler.cancel`. The loop (:func:`~.hal.poll.run_loop`) sleeps until
the earliest registration ahead of it; no part works out the loop's sleep,
and asking when something is due changes nothing.

Nothing here reads a clock or sleeps: times are whole milliseconds of the
box's :class:`~.hal.clock.Clock`, handed in. So the real loop (monotonic
time) and the simulator (a virtual clock that jumps to the next deadline)
run on the same structure. Parts may register from another thread (a
gpiozero callback recording an edge): every method takes a lock.

A part usually holds a :class:`Timer`, its own key in a scheduler: the
timer *is* its deadline (``timer.when``), so the part keeps no copy to get
out of step with what the loop sees. One deadline stays a query, for a
stated reason: the game's controller is pure (no clock, no I/O, nothing
registered from inside it), so ``Controller.next_deadline_ms()`` answers
from its state and the daemon registers that answer after every step; the
view's ``*_next_ms`` functions are the parts of that answer.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable

Key = Hashable
"""What a registration is known by: a part's name, a (name, number) pair."""


class Scheduler:
    """Keyed deadlines: at most one time per key; the same time keeps the order
    the keys were registered in."""

    def __init__(self) -> None:
        self._when: dict[Key, tuple[int, int]] = {}   # key -> (time, registration order)
        self._order = itertools.count()
        self._names = itertools.count(1)
        self._taken: set[Key] = set()      # keys handed out by :meth:`timer`
        self._lock = threading.Lock()

    def at(self, key: Key, when_ms: int | None) -> None:
        """Register (or move) ``key``'s deadline to ``when_ms``; None cancels it."""
        with self._lock:
            if when_ms is None:
                self._when.pop(key, None)
            else:
                self._when[key] = (when_ms, next(self._order))

    def cancel(self, key: Key) -> None:
        """Take ``key``'s deadline back (nothing if it has none)."""
        self.at(key, None)

    def when(self, key: Key) -> int | None:
        """``key``'s deadline, or None."""
        with self._lock:
            entry = self._when.get(key)
        return None if entry is None else entry[0]

    def next_ms(self, after_ms: int | None = None) -> int | None:
        """The earliest deadline (later than ``after_ms`` when given), or None."""
        with self._lock:
            times = [t for t, _ in self._when.values() if after_ms is None or t > after_ms]
        return min(times, default=None)

    def due(self, now_ms: int) -> list[Key]:
        """The keys due by ``now_ms``, earliest first (same time: registration
        order). Nothing is removed: a part cancels or moves its own deadline
        when it has done the work."""
        with self._lock:
            items = sorted((entry, key) for key, entry in self._when.items()
                           if entry[0] <= now_ms)
        return [key for _, key in items]

    def clear(self) -> None:
        """Forget every deadline (the process that registered them is gone)."""
        with self._lock:
            self._when.clear()

    def timer(self, name: str) -> Timer:
        """A new :class:`Timer` under a key of its own, named ``name`` (numbered
        when the name is taken, so two parts of a kind never share a deadline)."""
        with self._lock:
            key: Key = name
            while key in self._taken:
                key = (name, next(self._names))
            self._taken.add(key)
        return Timer(self, key)

    def __len__(self) -> int:
        with self._lock:
            return len(self._when)

    def __repr__(self) -> str:
        with self._lock:
            items = sorted((entry, repr(key)) for key, entry in self._when.items())
        return "Scheduler(" + ", ".join(f"{key}@{entry[0]}" for entry, key in items) + ")"


class Timer:
    """One part's deadline in a :class:`Scheduler`: set it, cancel it, read it."""

    __slots__ = ("scheduler", "key")

    def __init__(self, scheduler: Scheduler, key: Key) -> None:
        self.scheduler = scheduler
        self.key = key

    @property
    def when(self) -> int | None:
        """The deadline registered, or None."""
        return self.scheduler.when(self.key)

    def at(self, when_ms: int | None) -> None:
        """Due at ``when_ms`` (None: not at all)."""
        self.scheduler.at(self.key, when_ms)

    def cancel(self) -> None:
        self.scheduler.cancel(self.key)

    def due(self, now_ms: int) -> bool:
        """Registered and due by ``now_ms``."""
        when = self.when
        return when is not None and when <= now_ms

    def __repr__(self) -> str:
        return f"Timer({self.key!r} @ {self.when})"
