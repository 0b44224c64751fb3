"""Plugging the outbox and its publisher into the daemon's store (``run`` and ``sim``).

With ``[network] mqtt`` the store queues every event (:mod:`shutbox_hw.store.tables.outbox`)
whether or not paho-mqtt is installed: a box without the ``mqtt`` extra keeps
its events until it has it, and plays the same meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.events import InputFault
from ..config.config_file import Config
from ..store.tables.outbox import Limits

if TYPE_CHECKING:
    from ..store.disk.backup import BackupWorker
    from .publisher import Publisher


class Outbox:
    """The store's ``outbox`` hook: called after each commit that queued events
    (the publisher's wake), it carries the limits the store trims the queue to
    (:func:`~shutbox_hw.store.tables.outbox.limits_of`) and the publisher's own faults
    the daemon takes on each step (:meth:`faults`)."""

    def __init__(self, limits: Limits, publisher: Publisher | None = None) -> None:
        self.limits = limits
        self.publisher = publisher

    def __call__(self) -> None:
        if self.publisher is not None:
            self.publisher.wake()

    def faults(self, now_ms: int) -> list[InputFault]:
        return [] if self.publisher is None else self.publisher.reports(now_ms)

    def follow_backups(self, worker: BackupWorker) -> None:
        """The ``[backup]`` worker's copies in the MQTT state (Home Assistant's sensor)."""
        if self.publisher is not None:
            self.publisher.follow_backups(worker)


@contextmanager
def publishing(config: Config, db_path: str | Path, warn: Callable[[str], None],
               drain_s: float = 0.0,
               wake_box: Callable[[], None] | None = None) -> Iterator[Outbox | None]:
    """The store's ``outbox`` hook (None: no ``[network] mqtt``), a publisher running
    meanwhile; on the way out up to ``drain_s`` seconds to send what is queued.
    ``wake_box`` wakes the box's loop when the publisher has a fault to show."""
    network = config.network
    if network.mqtt is None:
        yield None
        return
    limits = Limits(network.outbox_max, network.outbox_max_days * 86400.0)
    from .publisher import MqttMissing, Publisher
    try:
        publisher = Publisher(db_path, network, wake_box=wake_box).start()
    except MqttMissing as error:
        warn(str(error))
        yield Outbox(limits)
        return
    try:
        yield Outbox(limits, publisher)
    finally:
        # no wait for a broker that this run never reached: the rows wait in the outbox
        # anyway (one that took events and went away is waited for: it may be back)
        reached = publisher.problem is None or publisher.sent > 0
        left = publisher.stop(drain_s if reached else 0.0)
        if left:
            warn(f"{left} event(s) not sent to the MQTT broker yet"
                 + (f" ({publisher.problem})" if publisher.problem else "")
                 + ": they wait in the database's outbox")
