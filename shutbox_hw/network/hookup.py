"""Plugging the outbox and its publisher into the daemon's store (``run`` and ``sim``).

With ``[network] mqtt`` the store queues every event (:mod:`shutbox_hw.store.outbox`)
whether or not paho-mqtt is installed: a box without the ``mqtt`` extra keeps
its events until it has it, and plays the same meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..config import Config

Wake = Callable[[], None]


def _nothing() -> None:
    """The outbox's wake when no publisher runs (the rows wait in the database)."""


@contextmanager
def publishing(config: Config, db_path: str | Path, warn: Callable[[str], None],
               drain_s: float = 0.0) -> Iterator[Wake | None]:
    """The store's ``outbox`` hook (None: no ``[network] mqtt``), a publisher running
    meanwhile; on the way out up to ``drain_s`` seconds to send what is queued."""
    if config.network.mqtt is None:
        yield None
        return
    from .publisher import MqttMissing, Publisher
    try:
        publisher = Publisher(db_path, config.network).start()
    except MqttMissing as error:
        warn(str(error))
        yield _nothing
        return
    try:
        yield publisher.wake
    finally:
        # no wait for a broker that cannot be reached: the rows wait in the outbox anyway
        left = publisher.stop(drain_s if publisher.problem is None else 0.0)
        if left:
            warn(f"{left} event(s) not sent to the MQTT broker yet"
                 + (f" ({publisher.problem})" if publisher.problem else "")
                 + ": they wait in the database's outbox")
