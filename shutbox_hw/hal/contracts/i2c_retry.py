"""One retry for transient I2C errors, used by every driver on the bus.

smbus2 hands the kernel's error through unchanged (``fcntl.ioctl`` raises
``OSError`` with the errno the I2C adapter returned), so what is worth trying
again is decided by the adapters the box runs on:

- ``i2c-bcm2835`` (Pi 1-4): ``EREMOTEIO`` (121) for a NAK, of the address or
  of a byte; ``EIO`` (5) for any other error the controller flags (a clock
  stretched too long); ``ETIMEDOUT`` (110) when the transfer did not finish;
- the Pi 5's DesignWare controllers (RP1): ``EAGAIN`` (11) when arbitration
  is lost;
- ``i2c-gpio`` (the dice bus, bit-banged): ``EIO`` for a NAK of a byte,
  ``ETIMEDOUT`` for a line held low. Its ``ENXIO`` (no ACK of the address)
  has already been tried three times by the kernel and means "nothing there":
  not retried.

A retry is bounded (``attempts`` in all, the pauses doubling from
``backoff_s``) and the sleep is injectable, so tests and the virtual clock
see every pause. The error that ends the tries is raised unchanged; each
driver words it for its own device.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from typing import TypeVar

TRANSIENT_ERRNOS = frozenset({errno.EREMOTEIO, errno.EIO, errno.ETIMEDOUT, errno.EAGAIN})
"""121, 5, 110 and 11: a transfer that failed on the wire, worth trying again."""

T = TypeVar("T")


def transient_errno(exc: BaseException) -> bool:
    """An ``OSError`` whose errno is one of :data:`TRANSIENT_ERRNOS`."""
    return isinstance(exc, OSError) and exc.errno in TRANSIENT_ERRNOS


class I2cRetry:
    """Runs bus operations, each tried again after a transient error.

    ``retries`` counts the failures that were tried again (for the log and
    tests). ``transient`` decides which exceptions are worth another try;
    any other exception, and the last one when the tries run out, is raised
    unchanged.
    """

    def __init__(self, attempts: int = 4, backoff_s: float = 0.001, *,
                 sleep: Callable[[float], None] = time.sleep,
                 transient: Callable[[BaseException], bool] = transient_errno) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.sleep = sleep
        self.transient = transient
        self.retries = 0

    def run(self, op: Callable[[], T],
            on_retry: Callable[[BaseException], None] | None = None) -> T:
        """``op()``, tried up to ``attempts`` times; ``on_retry`` hears each
        error that is tried again."""
        delay = self.backoff_s
        for _ in range(self.attempts - 1):
            try:
                return op()
            except Exception as exc:  # noqa: BLE001 - ``transient`` decides, the rest re-raised
                if not self.transient(exc):
                    raise
                self.retries += 1
                if on_retry is not None:
                    on_retry(exc)
            self.sleep(delay)
            delay *= 2
        return op()
