"""A device's connection state, its transitions told once, and its one re-read schedule.

Like xknx's connection state, each device on a bus (the input expander, the
dice module, the display) has a :class:`Link`: ``STARTING`` until it first
answers or fails, then ``CONNECTED``, or ``ABSENT`` (it has not answered
since the box started) or ``LOST`` (it answered, then stopped).
:class:`DeviceLink` holds that state for one device and says whether a
change is news: the first failure, and the first answer after failures, each
once, never a repeat. It logs each such transition in one journal line
(``"<name>: <reason> (trying again every N s; <meanwhile>)"``, then
``"<name>: answering again"``), and keeps the device's one schedule: while
connected it is due again every ``check_ms`` (a periodic re-read or a check
that its set-up survived), otherwise every ``retry_ms`` (look for it again).
Given a :class:`~shutbox_hw.base.scheduler.Timer`, that schedule is registered
there as it changes (the dice module's is the whole of its deadline).
"""

from __future__ import annotations

import logging
from enum import Enum

from ...base.scheduler import Timer

log = logging.getLogger("shutbox_hw")


class Link(Enum):
    STARTING = "starting"      # not tried yet
    CONNECTED = "connected"
    ABSENT = "absent"          # has not answered since the box started
    LOST = "lost"              # answered, then stopped


class DeviceLink:
    """One device's :class:`Link`, why it is not connected, and when it is next due."""

    def __init__(self, name: str, *, retry_ms: int, check_ms: int | None = None,
                 meanwhile: str = "the game goes on", timer: Timer | None = None) -> None:
        self.timer = timer
        self.name = name
        self.retry_ms = retry_ms
        self.check_ms = check_ms
        self.meanwhile = meanwhile   # what the box does without it, for the journal
        self.state = Link.STARTING
        self.reason = ""             # why it is not connected: the first failure's words
        self.next_ms = 0     # due at once: the first try

    @property
    def next_ms(self) -> int | None:
        """When the check or retry is next due (None: not by itself)."""
        return self._when

    @next_ms.setter
    def next_ms(self, when: int | None) -> None:
        self._when = when
        if self.timer is not None:
            self.timer.at(when)

    @property
    def connected(self) -> bool:
        return self.state is Link.CONNECTED

    @property
    def down_now(self) -> bool:
        """Tried and not answering (``ABSENT`` or ``LOST``)."""
        return self.state in (Link.ABSENT, Link.LOST)

    def wait(self, now_ms: int) -> None:
        """Start the next wait from ``now_ms``: a check while connected, else a retry."""
        every = self.check_ms if self.connected else self.retry_ms
        self.next_ms = None if every is None else now_ms + every

    def clear(self) -> None:
        """Nothing due until the owner calls :meth:`wait` (or up/down with a time)."""
        self.next_ms = None

    def due(self, now_ms: int) -> bool:
        """Whether the device's check or retry is due at ``now_ms``."""
        return self.next_ms is not None and now_ms >= self.next_ms

    def up(self, now_ms: int | None, check_ms: int | None = None) -> bool:
        """It answered: next due after ``check_ms`` (default: the link's own; None:
        not by itself) from ``now_ms`` (None: not yet known, the owner starts the
        wait). True when that is news (it was absent or lost)."""
        news = self.down_now
        if news:
            log.info("%s: answering again", self.name)
        elif self.state is Link.STARTING:
            log.info("%s: connected", self.name)
        self.state, self.reason = Link.CONNECTED, ""
        every = self.check_ms if check_ms is None else check_ms
        self.next_ms = None if every is None or now_ms is None else now_ms + every
        return news

    def down(self, reason: str, now_ms: int | None) -> bool:
        """It did not answer: look for it again after ``retry_ms`` from ``now_ms``
        (None: the owner starts the wait). True when that is news (it was
        connected, or never tried); the reason kept is the first."""
        self.next_ms = None if now_ms is None else now_ms + self.retry_ms
        if self.down_now:
            return False
        self.state = Link.LOST if self.state is Link.CONNECTED else Link.ABSENT
        self.reason = reason
        log.warning("%s: %s (trying again every %d s; %s)", self.name, reason,
                    max(1, self.retry_ms // 1000), self.meanwhile)
        return True
