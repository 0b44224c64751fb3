"""What the publisher tells the box about itself: a ``fault`` of the part ``mqtt``
once, a ``recovered`` once it works again.

The publisher's thread says :meth:`Health.bad` / :meth:`Health.good`; the
box's loop takes the changes with :meth:`Health.take` (through the store's
outbox hook, :class:`~shutbox_hw.network.hookup.Outbox`) and feeds them to
the controller as :class:`~shutbox_hw.base.events.InputFault` of source
``mqtt``: they are shown, counted in the audits and queued like any fault.
"""

from __future__ import annotations

import threading

from ..base.events import InputFault

PART = "mqtt"
BACK = "sending again"


class Health:
    """The publisher's state as the box should show it (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.fault: str | None = None          # what the box was told (None: all well)
        self._changes: list[tuple[str, bool]] = []

    def bad(self, problem: str) -> None:
        """Something stops the events reaching the broker: said once until it is good."""
        with self._lock:
            if self.fault is None:
                self.fault = problem
                self._changes.append((problem, False))

    def good(self) -> None:
        with self._lock:
            if self.fault is not None:
                self.fault = None
                self._changes.append((BACK, True))

    def take(self, now_ms: int) -> list[InputFault]:
        """The changes since the last look, as the box's inputs at ``now_ms``."""
        with self._lock:
            changes, self._changes = self._changes, []
        return [InputFault(PART, text, now_ms, ok=ok) for text, ok in changes]
