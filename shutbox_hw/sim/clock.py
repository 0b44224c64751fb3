"""The simulator's virtual time: the box's loop run on the simulated world's clock.

:class:`VirtualTime` lets time pass (:meth:`~VirtualTime.advance`), calling the
step it is given at every millisecond where something is due, as the box's loop
would (:func:`~shutbox_hw.hal.contracts.poll.run_loop`). With ``realtime``
(``sim --realtime``) it waits for the wall clock to reach virtual time, a wait a
phone's claim cuts short (:meth:`~VirtualTime.wake`). It knows neither the daemon
nor the person: the runner (:mod:`.runner`) hands it the daemon's step.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..hal.contracts.poll import run_loop
from ..hal.simulated.world import SimWorld


class VirtualTime:
    """The world's clock moved on by the simulator: ``step`` is one poll of the
    daemon, ``settle`` lets the display finish what it was sending once time has
    stopped, and ``wakeable`` says whether anything (the claims socket) may call
    :meth:`wake` (without it a realtime wait simply sleeps)."""

    def __init__(self, world: SimWorld, step: Callable[[], None], settle: Callable[[], None],
                 *, realtime: bool = False,
                 wakeable: Callable[[], bool] = lambda: False) -> None:
        self.world = world
        self.realtime = realtime
        self._step_once = step
        self._settle = settle
        self._wakeable = wakeable
        self._epoch: tuple[float, int] | None = None   # (monotonic s, virtual ms) paired
        self._woken = threading.Event()   # a phone's claim (or the web) came: step now

    def now_ms(self) -> int:
        return self.world.now_ms()

    def advance(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass, stopping wherever something is due."""
        target = self.world.now_ms() + max(0, ms)
        run_loop(self.world, self._step, self.world.timers, self._wait, until_ms=target)
        self._settle()

    def wake(self) -> None:
        """Another thread (the claims socket's) has something for the loop: with
        ``realtime`` the wait for the next deadline is cut short. Never blocks."""
        self._woken.set()

    def _step(self, now: int) -> None:
        self._step_once()
        while (action := self.world.next_action_ms()) is not None and action <= now:
            # an edge due at this very millisecond: run it and poll again
            # now (the box's loop would see its interrupt at once)
            self.world.advance_to(now)
            self._step_once()

    def _wait(self, stop_ms: int | None) -> None:
        assert stop_ms is not None   # advance always gives run_loop an end
        # a step may have moved time on itself (the person putting things right
        # after a power cut): never go back
        stop_ms = max(stop_ms, self.world.now_ms())
        self.world.advance_to(self._pace(stop_ms))

    def _pace(self, stop_ms: int) -> int:
        """``--realtime``: wait until the wall clock reaches virtual time ``stop_ms``, or
        until :meth:`wake` (a phone's claim): the virtual time the wait reached."""
        if not self.realtime:
            return stop_ms
        if self._epoch is None:
            self._epoch = (time.monotonic(), self.world.now_ms())
        wall, virtual = self._epoch
        delay = wall + (stop_ms - virtual) / 1000 - time.monotonic()
        if delay <= 0:
            return stop_ms
        if not self._wakeable():   # nothing can wake it
            time.sleep(delay)
            return stop_ms
        if not self._woken.wait(delay):
            return stop_ms
        self._woken.clear()
        reached = virtual + int((time.monotonic() - wall) * 1000)
        return max(self.world.now_ms(), min(stop_ms, reached))
